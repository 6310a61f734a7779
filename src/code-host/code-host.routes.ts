import { credentialOf } from '../auth/write-credential.js';
import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { publicUrl } from '../http/public-url.js';
import { SUBSCRIBED } from '../http/route-kind.js';
import { projectOf, resolveProjectParam } from '../projects/project-param.js';
import { ProjectParams } from '../projects/projects.schemas.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { PageQuery, Paginated } from '../wire/pagination.js';
import { MessageResponse } from '../wire/schemas.js';
import { CodeHostDelivery, CodeHostResponse, PutCodeHostBody } from './code-host.schemas.js';
import { type CodeHostService, NO_CODE_HOST_MESSAGE } from './code-host.service.js';

const UNLINKED = 'Code host unlinked successfully.';

/**
 * E10.1 and E10.4 under /api/v1/projects/{project}/code-host: any member reads the link and its
 * deliveries; linking and unlinking take the owner or admin role (D15's delete roles), else 404; an
 * active subscription (D7).
 */
export async function codeHostRoutes(
  app: App,
  deps: { codeHostService: CodeHostService; projectsService: Pick<ProjectsService, 'resolveProject'>; config: Config },
) {
  const { codeHostService: codeHosts, projectsService: projects, config } = deps;
  const tags = ['code host'];
  const viewable = resolveProjectParam(projects, 'view');
  const manage = resolveProjectParam(projects, 'delete');
  const notLinked = `The project does not exist or the caller may not see it (\`The requested resource was not found.\`), or it is not linked to a code host (\`${NO_CODE_HOST_MESSAGE}\`).`;

  app.get('/projects/:project/code-host', {
    config: { ...SUBSCRIBED.read, notFoundWhen: notLinked },
    schema: {
      tags,
      summary: "The project's code host: the connection, the repository, and what is posted there",
      params: ProjectParams,
      response: { 200: CodeHostResponse },
    },
    preValidation: viewable,
    handler: async (request) => ({ data: await codeHosts.get(projectOf(request).id) }),
  });

  app.put('/projects/:project/code-host', {
    config: SUBSCRIBED.write,
    schema: {
      tags,
      summary: 'Link the project to a repository through a connection of its team (or change the link)',
      description:
        'From then on every report with a commit sets a status on it (a check run for a GitHub App), and every report of a pull request ' +
        'keeps one comment current on it. A connection that is not a code host, or a repository name the host would not take, is a 422.',
      params: ProjectParams,
      body: PutCodeHostBody,
      response: { 200: CodeHostResponse },
    },
    preValidation: manage,
    handler: async (request) => ({ data: await codeHosts.link(credentialOf(request), projectOf(request).id, request.body) }),
  });

  app.delete('/projects/:project/code-host', {
    config: {
      ...SUBSCRIBED.write,
      notFoundWhen: `The project does not exist or the caller is not its owner or admin, or it is not linked to a code host (\`${NO_CODE_HOST_MESSAGE}\`).`,
    },
    schema: {
      tags,
      summary: 'Unlink the code host: nothing more is posted (calls already queued are still made)',
      params: ProjectParams,
      response: { 200: MessageResponse },
    },
    preValidation: manage,
    handler: async (request) => {
      await codeHosts.unlink(credentialOf(request), projectOf(request).id);
      return { message: UNLINKED };
    },
  });

  app.get('/projects/:project/code-host/deliveries', {
    config: { ...SUBSCRIBED.read },
    schema: {
      tags,
      summary: "The calls made to the project's code host for its reports (commit statuses, pull-request comments), newest first",
      params: ProjectParams,
      querystring: PageQuery,
      response: { 200: Paginated(CodeHostDelivery) },
    },
    preValidation: viewable,
    handler: async (request) => {
      const project = projectOf(request);
      const path = publicUrl(config, request, `/api/v1/projects/${project.id}/code-host/deliveries`);
      return codeHosts.deliveries(project.id, request.query.page ?? 1, path);
    },
  });
}
