import type { FastifyRequest } from 'fastify';
import { credentialOf } from '../auth/write-credential.js';
import type { Config } from '../config.js';
import { callerOf, type App } from '../http/app-types.js';
import { PageQuery, Paginated } from '../http/pagination.js';
import { publicUrl } from '../http/public-url.js';
import { MessageResponse } from '../http/schemas.js';
import type { ProjectAction } from '../projects/permissions.js';
import { projectOf, resolveProjectParam } from '../projects/project-param.js';
import { ProjectParams } from '../projects/projects.schemas.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { ReportRow } from './reports.repository.js';
import { ReportDetailResponse, ReportParams, ReportSummary } from './reports.schemas.js';
import type { ReportsService } from './reports.service.js';

const DELETED = 'Report deleted successfully.';

declare module 'fastify' {
  interface FastifyRequest {
    /** The `{report}` of the URL, resolved for the caller before anything else is validated (D4 step 7). */
    report: ReportRow | null;
  }
}

/** Every report route needs an active subscription (D7); permissions follow the parent project (D15). */
const read = { ability: 'read', subscription: true } as const;
const write = { ability: 'write', subscription: true } as const;

export async function reportsRoutes(
  app: App,
  deps: { reportsService: ReportsService; projectsService: ProjectsService; config: Config },
) {
  const { reportsService: reports, projectsService: projects, config } = deps;
  const tags = ['reports'];

  const resolveReport = (action: ProjectAction) => async (request: FastifyRequest) => {
    const { report } = request.params as { report: string };
    request.report = await reports.resolveReport(callerOf(request), report, action);
  };
  const reportOf = (request: FastifyRequest): ReportRow => request.report!;

  app.get('/projects/:project/reports', {
    config: read,
    schema: {
      tags,
      summary: "List a project's reports, newest analysis first",
      params: ProjectParams,
      querystring: PageQuery,
      response: { 200: Paginated(ReportSummary) },
    },
    preValidation: resolveProjectParam(projects, 'view'),
    handler: async (request) => {
      const project = projectOf(request);
      const path = publicUrl(config, request, `/api/v1/projects/${project.id}/reports`);
      return reports.listReports(project.id, request.query.page ?? 1, path);
    },
  });

  app.get('/reports/:report', {
    config: read,
    schema: { tags, summary: 'Read a report with all its results', params: ReportParams, response: { 200: ReportDetailResponse } },
    preValidation: resolveReport('view'),
    handler: async (request) => ({ data: reports.detail(reportOf(request)) }),
  });

  // Deleting a report is destructive like deleting its project: the same roles (D15, owner or admin).
  app.delete('/reports/:report', {
    config: write,
    schema: { tags, summary: 'Delete a report', params: ReportParams, response: { 200: MessageResponse } },
    preValidation: resolveReport('delete'),
    handler: async (request) => {
      await reports.deleteReport(reportOf(request), credentialOf(request));
      return { message: DELETED };
    },
  });
}
