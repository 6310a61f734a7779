import type { FastifyRequest } from 'fastify';
import { FailureUpload } from '../failures/failure-upload.schemas.js';
import type { FailuresService } from '../failures/failures.service.js';
import { invalidField, projectArchived, unauthenticated } from '../http/api-error.js';
import type { App } from '../http/app-types.js';
import { rejectInvalidHost } from '../http/host-header.js';
import { carriesBody, requireJsonObjectBody } from '../http/json-body.js';
import { withStorableText } from '../http/json-values.js';
import { UUID_PATTERN } from '../projects/permissions.js';
import type { ProjectTokenCredential } from '../projects/project-api-token.js';
import type { ProjectWithLatestReport } from '../projects/projects.repository.js';
import { toProject } from '../projects/projects.service.js';
import type { ApplyRateLimit } from '../rate-limit/api-rate-limit.js';
import type { ReportsService } from '../reports/reports.service.js';
import { ReportUpload } from '../reports/upload.schemas.js';
import { ClientProjectResponse, MessageAnswer, UploadResponse, VerifyResponse } from './client-api.schemas.js';
import type { ClientRateGroup } from './client-request.js';
import { decompressGzipBody } from './gzip-body.js';
import type { createProjectIdentifier } from './identify-project.js';

/** CLIENT-WIRE.md: report bodies up to 10 MiB, measured after gzip decompression. */
export const UPLOAD_BODY_LIMIT = 10 * 1024 * 1024;

export interface ClientApiDeps {
  identifyProject: ReturnType<typeof createProjectIdentifier>;
  applyRateLimit: ApplyRateLimit;
  reportsService: ReportsService;
  failuresService: FailuresService;
}

/**
 * The endpoints the published client package calls (CLIENT-WIRE.md), registered under `/api`.
 * Order of checks, after D4: identify the project from its API token, count the request against
 * the project's budget (or the IP's, without a valid token), 401, body transport (415/413/400),
 * 409 for an archived project, then 422 for the body.
 */
export async function clientApiRoutes(app: App, deps: ClientApiDeps) {
  const { reportsService: reports, failuresService: failures } = deps;
  const tags = ['client package'];

  const refuseUnidentified = (request: FastifyRequest) => {
    if (request.clientProject === null) throw unauthenticated(request.routeOptions.config.clientApi?.unauthenticatedBody);
  };
  app.decorateRequest('clientProject', null);
  app.addHook('onRequest', async (request, reply) => {
    request.clientProject = await deps.identifyProject(request);
    await deps.applyRateLimit(request, reply);
    rejectInvalidHost(request);
    refuseUnidentified(request);
  });
  // D22: a slow upload is identified again once its body has arrived; a token rotated meanwhile is
  // a 401 and an archive a 409 (below), as if the request had arrived then.
  app.addHook('preValidation', async (request) => {
    if (!carriesBody(request)) return;
    request.clientProject = await deps.identifyProject(request);
    refuseUnidentified(request);
  });
  app.addHook('preValidation', requireJsonObjectBody);

  const clientApi = (rateGroup: ClientRateGroup) => ({ clientApi: { rateGroup } });
  const projectOf = (request: FastifyRequest): ProjectWithLatestReport => request.clientProject!.project;
  const credentialOf = (request: FastifyRequest): ProjectTokenCredential => request.clientProject!.credential;
  const refuseArchived = async (request: FastifyRequest) => {
    if (projectOf(request).archived_at !== null) throw projectArchived();
  };

  const submitReport = (url: string, summary: string) =>
    app.post(url, {
      config: clientApi('reports'),
      bodyLimit: UPLOAD_BODY_LIMIT,
      schema: { tags, summary, body: ReportUpload, response: { 201: UploadResponse } },
      preParsing: decompressGzipBody,
      preValidation: refuseArchived,
      handler: async (request, reply) => {
        const project = projectOf(request);
        const upload = withStorableText(request.body);
        checkProjectId(upload.project_id, project.id);
        const { report, gate } = await reports.receiveUpload(credentialOf(request), project.id, upload);
        return reply.code(201).send({ success: true, message: 'Report received.', report, gate });
      },
    });
  submitReport('/reports', 'Submit an analysis report (the client package)');
  // Client versions 0.1.13 to 1.0.5 post here; the upload rules apply, not the v1 ones.
  submitReport('/v1/reports', 'Submit an analysis report (clients before 1.0.6)');

  app.post('/reports/failure', {
    config: clientApi('failures'),
    bodyLimit: UPLOAD_BODY_LIMIT,
    schema: { tags, summary: 'Record a failed analysis run (the client package)', body: FailureUpload, response: { 201: MessageAnswer } },
    preParsing: decompressGzipBody,
    preValidation: refuseArchived,
    handler: async (request, reply) => {
      const project = projectOf(request);
      const input = withStorableText(request.body);
      checkProjectId(input.project_id, project.id);
      await failures.recordFailure(credentialOf(request), project.id, input);
      return reply.code(201).send({ success: true, message: 'Failure recorded.' });
    },
  });

  app.get('/token/verify', {
    config: { clientApi: { rateGroup: 'reads', unauthenticatedBody: { valid: false } } },
    schema: { tags, summary: 'Check a project API token', response: { 200: VerifyResponse } },
    handler: async (request) => {
      const project = projectOf(request);
      return { success: true, valid: true as const, message: 'The API token is valid.', project: { id: project.id, name: project.name } };
    },
  });

  app.get('/project', {
    config: clientApi('reads'),
    schema: { tags, summary: "Read the token's project, settings included", response: { 200: ClientProjectResponse } },
    handler: async (request) => ({ success: true, message: 'Project retrieved.', data: toProject(projectOf(request)) }),
  });
}

/**
 * CLIENT-WIRE.md: `project_id` is the project's UUID, or `unknown` when the user did not configure
 * it; older clients leave it out. A UUID of any other project is refused (422).
 */
function checkProjectId(projectId: string | null | undefined, tokenProjectId: string): void {
  if (projectId === undefined || projectId === null || projectId === '' || projectId === 'unknown') return;
  if (!UUID_PATTERN.test(projectId)) {
    throw invalidField('project_id', 'The project id must be the project\'s UUID or "unknown".');
  }
  if (projectId.toLowerCase() !== tokenProjectId) {
    throw invalidField('project_id', 'The project id does not match the project of the API token.');
  }
}
