import { credentialOf } from '../auth/write-credential.js';
import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { SUBSCRIBED } from '../http/route-kind.js';
import { callerOf } from '../auth/caller.js';
import { publicUrl } from '../http/public-url.js';
import { MessageResponse } from '../wire/schemas.js';
import { JSON_CONTENT_TYPE, listJson } from '../wire/serialization.js';
import {
  CreateProjectBody,
  CreateProjectResponse,
  ProjectListQuery,
  ProjectListResponse,
  ProjectParams,
  ProjectResponse,
  RegenerateTokenResponse,
  UpdateProjectBody,
} from './projects.schemas.js';
import type { ProjectAction } from './permissions.js';
import { projectOf, resolveProjectParam } from './project-param.js';
import { toProject, type ProjectsService } from './projects.service.js';

// D18: fixed success messages.
const CREATED = 'Project created successfully. Save the API token — it will only be shown once.';
const DELETED = 'Project deleted successfully.';
const REGENERATED = 'API token regenerated. Save the new token — it will only be shown once.';

/** Every project route needs an active subscription (D7). */
export async function projectsRoutes(app: App, deps: { projectsService: ProjectsService; config: Config }) {
  const { projectsService: projects, config } = deps;
  const resolve = (action: ProjectAction) => resolveProjectParam(projects, action);

  const tags = ['projects'];

  app.get('/projects', {
    config: SUBSCRIBED.read,
    schema: { tags, summary: "List the current team's projects", querystring: ProjectListQuery, response: { 200: ProjectListResponse } },
    handler: async (request, reply) => {
      // D16: links are absolute, built from PUBLIC_URL or else from the request's scheme and host.
      const page = await projects.listProjectsJson(
        callerOf(request),
        request.query.page ?? 1,
        publicUrl(config, request, '/api/v1/projects'),
      );
      // The projects come as JSON written by the database; the envelope by the schema's serialiser.
      return reply.type(JSON_CONTENT_TYPE).send(listJson(ProjectListResponse, page) as never);
    },
  });

  app.post('/projects', {
    config: { ...SUBSCRIBED.write, forbiddenWhen: ['the user belongs to no team, or is a readonly member of their current team'] },
    schema: { tags, summary: 'Create a project in the current team', body: CreateProjectBody, response: { 201: CreateProjectResponse } },
    preValidation: async (request) => {
      await projects.requireCreatorInCurrentTeam(callerOf(request));
    },
    handler: async (request, reply) => {
      const { project, apiToken } = await projects.createProject(credentialOf(request), request.body);
      return reply.code(201).send({ project, api_token: apiToken, message: CREATED });
    },
  });

  app.get('/projects/:project', {
    config: SUBSCRIBED.read,
    schema: { tags, summary: 'Read a project', params: ProjectParams, response: { 200: ProjectResponse } },
    preValidation: resolve('view'),
    handler: async (request) => ({ data: toProject(projectOf(request)) }),
  });

  app.put('/projects/:project', {
    config: SUBSCRIBED.write,
    schema: { tags, summary: 'Update a project', params: ProjectParams, body: UpdateProjectBody, response: { 200: ProjectResponse } },
    preValidation: resolve('update'),
    handler: async (request) => ({ data: await projects.updateProject(credentialOf(request), projectOf(request).id, request.body) }),
  });

  app.delete('/projects/:project', {
    config: SUBSCRIBED.write,
    schema: { tags, summary: 'Delete a project and all its reports', params: ProjectParams, response: { 200: MessageResponse } },
    preValidation: resolve('delete'),
    handler: async (request) => {
      await projects.deleteProject(credentialOf(request), projectOf(request).id);
      return { message: DELETED };
    },
  });

  app.post('/projects/:project/regenerate-token', {
    config: SUBSCRIBED.write,
    schema: { tags, summary: 'Issue a new project API token', params: ProjectParams, response: { 200: RegenerateTokenResponse } },
    preValidation: resolve('update'),
    handler: async (request) => ({
      api_token: await projects.regenerateApiToken(credentialOf(request), projectOf(request).id),
      message: REGENERATED,
    }),
  });

  // D17: archive and unarchive, an extension the contract leaves open.
  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    app.post(`/projects/:project/${action}`, {
      config: SUBSCRIBED.write,
      schema: {
        tags,
        summary: `${archived ? 'Archive' : 'Unarchive'} a project`,
        params: ProjectParams,
        response: { 200: ProjectResponse },
      },
      preValidation: resolve('update'),
      handler: async (request) => ({ data: await projects.setArchived(credentialOf(request), projectOf(request).id, archived) }),
    });
  }
}
