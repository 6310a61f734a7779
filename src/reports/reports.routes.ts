import type { FastifyReply, FastifyRequest } from 'fastify';
import { credentialOf } from '../auth/write-credential.js';
import type { Config } from '../config.js';
import { isRowId } from '../db/dialect.js';
import { validationFailed } from '../wire/api-error.js';
import type { App } from '../http/app-types.js';
import { SUBSCRIBED } from '../http/route-kind.js';
import { callerOf } from '../auth/caller.js';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { acceptsGzip, inflated } from '../http/content-coding.js';
import { PageQuery, Paginated } from '../wire/pagination.js';
import { publicUrl } from '../http/public-url.js';
import { loggedStream } from '../http/streamed-answer.js';
import { MessageResponse } from '../wire/schemas.js';
import type { ProjectAction } from '../projects/permissions.js';
import { projectOf, resolveProjectParam } from '../projects/project-param.js';
import { ProjectParams } from '../projects/projects.schemas.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { EXPORT_MEDIA_TYPES, exportFileName } from './export/export-formats.js';
import type { ReportExportService } from './export/report-export.service.js';
import { branchFilter } from './upload/git-context.js';
import { BODY_PIECE_BYTES, INFLATE_WHOLE_BYTES, inflatedLength } from './answer/stored-body.js';
import type { ReportRow } from './store/report-rows.js';
import {
  BranchesResponse,
  ChangeItem,
  ChangesQuery,
  BranchesQuery,
  DEFAULT_TREND_LIMIT,
  ExportQuery,
  ExportResponse,
  ProjectIssuesQuery,
  PullRequestItem,
  ReportDetailResponse,
  ReportListItem,
  ReportListQuery,
  ReportParams,
  SuppressedItem,
  SuppressedQuery,
  TrendQuery,
  TrendResponse,
} from './reports.schemas.js';
import type { ReportsService } from './reports.service.js';
import type { SuppressedIssuesService } from './suppressed-issues.service.js';

const DELETED = 'Report deleted successfully.';

declare module 'fastify' {
  interface FastifyRequest {
    /** The `{report}` of the URL, resolved for the caller before anything else is validated (D4 step 7). */
    report: ReportRow | null;
  }
}

/** Every report route needs an active subscription (D7); permissions follow the parent project (D15). */
export async function reportsRoutes(
  app: App,
  deps: {
    reportsService: ReportsService;
    reportExportService: ReportExportService;
    suppressedIssuesService: SuppressedIssuesService;
    projectsService: Pick<ProjectsService, 'resolveProject'>;
    config: Config;
  },
) {
  const {
    reportsService: reports,
    reportExportService: exportService,
    suppressedIssuesService: suppressed,
    projectsService: projects,
    config,
  } = deps;
  const tags = ['reports'];

  const resolveReport = (action: ProjectAction) => async (request: FastifyRequest) => {
    const { report } = request.params as { report: string };
    request.report = await reports.resolveReport(callerOf(request), report, action);
  };
  const reportOf = (request: FastifyRequest): ReportRow => request.report!;

  app.get('/projects/:project/reports', {
    config: SUBSCRIBED.read,
    schema: {
      tags,
      summary: "List a project's reports, newest analysis first",
      params: ProjectParams,
      querystring: ReportListQuery,
      response: { 200: Paginated(ReportListItem) },
    },
    preValidation: resolveProjectParam(projects, 'view'),
    handler: async (request) => {
      const project = projectOf(request);
      const path = publicUrl(config, request, `/api/v1/projects/${project.id}/reports`);
      // E1.6: `?branch=` with no name lists the reports that have no branch.
      return reports.listReports(project.id, request.query.page ?? 1, path, branchFilter(request.query.branch));
    },
  });

  app.get('/projects/:project/branches', {
    config: SUBSCRIBED.read,
    schema: {
      tags,
      summary: "The latest report of each of a project's branches, newest first",
      params: ProjectParams,
      querystring: BranchesQuery,
      response: { 200: BranchesResponse },
    },
    preValidation: resolveProjectParam(projects, 'view'),
    handler: async (request) => reports.listBranches(projectOf(request).id, request.query.include === 'report_count'),
  });

  app.get('/projects/:project/pull-requests', {
    config: SUBSCRIBED.read,
    schema: {
      tags,
      summary: "The latest report of each of a project's pull requests, newest first",
      params: ProjectParams,
      querystring: PageQuery,
      response: { 200: Paginated(PullRequestItem) },
    },
    preValidation: resolveProjectParam(projects, 'view'),
    handler: async (request) => {
      const project = projectOf(request);
      const path = publicUrl(config, request, `/api/v1/projects/${project.id}/pull-requests`);
      return reports.listPullRequests(project.id, request.query.page ?? 1, path);
    },
  });

  app.get('/projects/:project/trend', {
    config: SUBSCRIBED.read,
    schema: {
      tags,
      summary: "A project's last reports, oldest first: score, issues, changes and gate of each",
      params: ProjectParams,
      querystring: TrendQuery,
      response: { 200: TrendResponse },
    },
    preValidation: resolveProjectParam(projects, 'view'),
    handler: async (request) => {
      // As in the report list: `?branch=` with no name means the reports that have no branch.
      const { branch, limit, include } = request.query;
      return reports.trend(projectOf(request).id, branchFilter(branch), limit ?? DEFAULT_TREND_LIMIT, include === 'commit');
    },
  });

  // E8.2: the project's issues as its latest report has them, with what people decided about each.
  app.get('/projects/:project/issues', {
    config: SUBSCRIBED.read,
    schema: {
      tags,
      summary: "The issues of a project's latest report (or a branch's), each with its state, most severe first",
      params: ProjectParams,
      querystring: ProjectIssuesQuery,
      response: { 200: Paginated(ChangeItem) },
    },
    preValidation: resolveProjectParam(projects, 'view'),
    handler: async (request) => {
      const project = projectOf(request);
      const { status, severity, assignee, branch, page } = request.query;
      const path = publicUrl(config, request, `/api/v1/projects/${project.id}/issues`);
      const assigneeId =
        assignee === undefined ? undefined : assignee === 'none' ? null : assignee === 'me' ? callerOf(request).userId : Number(assignee);
      // Beyond what an id column holds, like 0: no user's id (and PostgreSQL would refuse to compare with it).
      if (typeof assigneeId === 'number' && !isRowId(assigneeId)) {
        throw validationFailed({ assignee: ['The assignee must be me, none or the id of a user.'] });
      }
      return reports.listProjectIssues(
        project.id,
        {
          branch: branchFilter(branch),
          filter: { status, severity, assignee: assigneeId },
          filters: { status, severity, assignee, branch },
        },
        page ?? 1,
        path,
      );
    },
  });

  app.get('/reports/:report/changes', {
    config: SUBSCRIBED.read,
    schema: {
      tags,
      summary: "A report's issues against its baseline: new, then fixed, then unchanged",
      params: ReportParams,
      querystring: ChangesQuery,
      response: { 200: Paginated(ChangeItem) },
    },
    preValidation: resolveReport('view'),
    handler: async (request) => {
      const report = reportOf(request);
      const { kind, severity, state, page } = request.query;
      const path = publicUrl(config, request, `/api/v1/reports/${report.uuid}/changes`);
      return reports.listChanges(report, { kind, severity, state }, page ?? 1, path);
    },
  });

  // E8.6: what the client package suppressed (inline comments, its configuration, its baseline).
  app.get('/reports/:report/suppressed', {
    config: SUBSCRIBED.read,
    schema: {
      tags,
      summary: 'The issues the client package suppressed in a report, in upload order',
      params: ReportParams,
      querystring: SuppressedQuery,
      response: { 200: Paginated(SuppressedItem) },
    },
    preValidation: resolveReport('view'),
    handler: async (request) => {
      const report = reportOf(request);
      const { type, page } = request.query;
      const path = publicUrl(config, request, `/api/v1/reports/${report.uuid}/suppressed`);
      return suppressed.list(report, type, page ?? 1, path);
    },
  });

  // E3: a download, not a JSON answer (D2 does not apply to its 200); errors are still D3's envelope.
  app.get('/reports/:report/export', {
    config: SUBSCRIBED.read,
    schema: {
      tags,
      summary: "Download a report's issues as SARIF 2.1.0 or CSV",
      params: ReportParams,
      querystring: ExportQuery,
      response: { 200: ExportResponse },
    },
    preValidation: resolveReport('view'),
    handler: async (request, reply) => {
      const report = reportOf(request);
      const { format } = request.query;
      const headers = {
        'content-type': EXPORT_MEDIA_TYPES[format],
        'content-disposition': `attachment; filename="${exportFileName(report.uuid, format)}"`,
        // The issues of a private project: kept by no cache, shared or not.
        'cache-control': 'no-store',
      };
      // The type provider types the body as the schema's shape; this body is a stream of its text.
      const download = reply as FastifyReply;
      // HEAD: the same headers without reading a single issue.
      if (request.method === 'HEAD') return download.headers(headers).send();
      // Opened before the headers are set: if it fails, the error answer carries none of them.
      const body = await exportService.open(report, format);
      return download.headers(headers).send(loggedStream(request, body));
    },
  });

  app.get('/reports/:report', {
    config: SUBSCRIBED.read,
    schema: { tags, summary: 'Read a report with all its results', params: ReportParams, response: { 200: ReportDetailResponse } },
    preValidation: resolveReport('view'),
    handler: async (request, reply) => {
      // D28: the answer stored at upload, compressed; sent as it is to a client that takes gzip,
      // else inflated on the way. A small one is read whole, a large one as the client reads;
      // inflated, only one that stays small is inflated whole (D33).
      const body = await reports.detailBody(reportOf(request));
      const answer = (reply as FastifyReply).header('content-type', 'application/json; charset=utf-8').header('vary', 'accept-encoding');
      const small = body.length <= BODY_PIECE_BYTES;
      if (acceptsGzip(request.headers['accept-encoding'])) {
        answer.header('content-encoding', 'gzip').header('content-length', body.length);
        return answer.send(small ? await body.whole() : loggedStream(request, body.stream()));
      }
      if (!small) return answer.send(loggedStream(request, inflated(body.stream())));
      const gzip = await body.whole();
      if (inflatedLength(gzip) <= INFLATE_WHOLE_BYTES) return answer.send(gunzipSync(gzip));
      return answer.send(loggedStream(request, inflated(Readable.from([gzip], { objectMode: false }))));
    },
  });

  // Deleting a report is destructive like deleting its project: the same roles (D15, owner or admin).
  app.delete('/reports/:report', {
    config: SUBSCRIBED.write,
    schema: { tags, summary: 'Delete a report', params: ReportParams, response: { 200: MessageResponse } },
    preValidation: resolveReport('delete'),
    handler: async (request) => {
      await reports.deleteReport(reportOf(request), credentialOf(request));
      return { message: DELETED };
    },
  });
}
