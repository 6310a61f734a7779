import type { FastifyRequest } from 'fastify';
import { callerOf } from '../auth/caller.js';
import { credentialOf } from '../auth/write-credential.js';
import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { publicUrl } from '../http/public-url.js';
import { SUBSCRIBED } from '../http/route-kind.js';
import { projectOf, resolveProjectParam } from '../projects/project-param.js';
import { ProjectParams } from '../projects/projects.schemas.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { PageQuery } from '../wire/pagination.js';
import {
  AssignedIssuesResponse,
  BulkIssuesBody,
  BulkIssuesResponse,
  IssueParams,
  TrackedIssueResponse,
  UpdateIssueBody,
} from './issues.schemas.js';
import type { IssuesService } from './issues.service.js';

/**
 * E8.2 under /api/v1: deciding about a project's issues (owner, admin or member of its team, as
 * D15's update; anyone else gets a 404; an active subscription, D7) and the caller's assigned issues
 * (no subscription: /user* stays open to a lapsed user).
 */
export async function issuesRoutes(
  app: App,
  deps: { issuesService: IssuesService; projectsService: Pick<ProjectsService, 'resolveProject'>; config: Config },
) {
  const { issuesService: issues, projectsService: projects, config } = deps;
  const tags = ['issues'];
  const updatable = resolveProjectParam(projects, 'update');
  /** D4 step 7: the project's 404, then the fingerprint's (`Issue not found.`), both before the body's 422. */
  const heldIssue = async (request: FastifyRequest) => {
    await updatable(request);
    await issues.assertHeld(projectOf(request).id, (request.params as { fingerprint: string }).fingerprint);
  };

  app.put('/projects/:project/issues/:fingerprint', {
    config: {
      ...SUBSCRIBED.write,
      notFoundWhen:
        'The project does not exist or the caller may not change its issues (`The requested resource was not found.`), ' +
        'or the fingerprint is not 32 lowercase hexadecimal characters or no report of the project holds it (`Issue not found.`).',
    },
    schema: {
      tags,
      summary: 'Decide about an issue: set its status, comment, assignee and expiry (the whole state; fields left out are cleared)',
      params: IssueParams,
      body: UpdateIssueBody,
      response: { 200: TrackedIssueResponse },
    },
    preValidation: heldIssue,
    handler: async (request) => ({
      data: await issues.update(credentialOf(request), projectOf(request).id, request.params.fingerprint, request.body),
    }),
  });

  app.post('/projects/:project/issues/bulk', {
    config: SUBSCRIBED.write,
    schema: {
      tags,
      summary: 'Decide about up to 500 issues at once: all of them change, or none',
      params: ProjectParams,
      body: BulkIssuesBody,
      response: { 200: BulkIssuesResponse },
    },
    preValidation: updatable,
    handler: async (request) => {
      const data = await issues.updateMany(credentialOf(request), projectOf(request).id, request.body);
      return { data, message: `${data.length} ${data.length === 1 ? 'issue' : 'issues'} updated.` };
    },
  });

  app.get('/user/issues', {
    config: { ability: 'read' },
    schema: {
      tags,
      summary: "The issues assigned to the caller in their teams' projects, latest change first",
      querystring: PageQuery,
      response: { 200: AssignedIssuesResponse },
    },
    handler: async (request) =>
      issues.assignedTo(callerOf(request), request.query.page ?? 1, publicUrl(config, request, '/api/v1/user/issues')),
  });
}
