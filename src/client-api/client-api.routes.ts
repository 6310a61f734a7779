import type { FastifyRequest } from 'fastify';
import { FailureUpload } from '../failures/failure-upload.schemas.js';
import type { FailuresService } from '../failures/failures.service.js';
import { badRequest, invalidField, projectArchived, unauthenticated, validationFailed } from '../wire/api-error.js';
import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { rejectInvalidHost } from '../http/host-header.js';
import { carriesBody, requireJsonObjectBody } from '../http/json-body.js';
import { publicUrl } from '../http/public-url.js';
import { emptyJsonBody, parseJsonBody } from '../wire/json-parse.js';
import { withStorableText } from '../wire/json-values.js';
import { UUID_PATTERN } from '../projects/permissions.js';
import type { ProjectTokenCredential } from '../projects/project-api-token.js';
import type { ProjectWithLatestReport } from '../projects/projects.repository.js';
import { toProject } from '../projects/projects.service.js';
import type { ApplyRateLimit } from '../rate-limit/api-rate-limit.js';
import { tooCostly, type HeavyWork } from '../reports/threads/heavy-work.js';
import type { ReportsService } from '../reports/reports.service.js';
import { processUploadBytes, type UploadOutcome } from '../reports/upload/process-upload.js';
import { ReportUpload } from '../reports/upload/upload.schemas.js';
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
  heavyWork: HeavyWork;
  config: Config;
}

/**
 * A report upload's body once read: parsed, checked and prepared off the event loop (D28,
 * upload/process-upload.ts). The routes answer its outcome at the step of D4's order it belongs to.
 */
class UploadBody {
  constructor(readonly outcome: UploadOutcome) {}
}

const isUpload = (request: FastifyRequest) => request.routeOptions.config.clientApi?.rateGroup === 'reports';

/**
 * The endpoints the published client package calls (CLIENT-WIRE.md), registered under `/api`.
 * Order of checks, after D4: identify the project from its API token, count the request against
 * the project's budget (or the IP's, without a valid token), 401, body transport (415/413/400),
 * 409 for an archived project, then 422 for the body.
 */
export async function clientApiRoutes(app: App, deps: ClientApiDeps) {
  const { reportsService: reports, failuresService: failures, config } = deps;
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
  app.addHook('preValidation', async (request) => {
    if (!isUpload(request)) await requireJsonObjectBody(request);
  });

  // Uploads are read as bytes and handed to the heavy-work pool whole; its outcome is this route's
  // body. Not JSON is a 400 here, at parsing, as for any other body; the failure route's bodies are
  // small and parsed as usual.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    if (!isUpload(request)) return parseJsonBody(body.toString('utf8'));
    if (body.length === 0) throw emptyJsonBody();
    const outcome = await deps.heavyWork.processUpload(body);
    if (outcome.kind === 'malformed') throw badRequest(outcome.message);
    if (outcome.kind === 'too-costly') throw tooCostly();
    return new UploadBody(outcome);
  });
  /** After the credential's second check (D22), as `requireJsonObjectBody` for other bodies. */
  const checkUploadBody = async (request: FastifyRequest) => {
    // No body at all is validated as `{}`, so that the missing fields read as "required" (422).
    if (!(request.body instanceof UploadBody)) request.body = new UploadBody(processUploadBytes(Buffer.from('{}')));
    const { outcome } = request.body as UploadBody;
    if (outcome.kind === 'not-an-object') throw badRequest(outcome.message);
  };

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
      // The schema documents the body; upload/process-upload.ts validates it against the same schema.
      schema: { tags, summary, body: ReportUpload, response: { 201: UploadResponse } },
      validatorCompiler: () => () => true,
      preParsing: decompressGzipBody,
      preValidation: [checkUploadBody, refuseArchived],
      handler: async (request, reply) => {
        const project = projectOf(request);
        const { outcome } = request.body as unknown as UploadBody;
        if (outcome.kind === 'invalid') throw validationFailed(outcome.fieldErrors);
        if (outcome.kind !== 'processed') throw new Error(`unexpected upload outcome ${outcome.kind}`);
        const upload = outcome.upload;
        checkProjectId(upload.projectId, project.id);
        const { report, gate } = await reports.receiveUpload(credentialOf(request), project.id, upload, publicUrl(config, request, ''));
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
