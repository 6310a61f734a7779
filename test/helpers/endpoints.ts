import type { Ability } from '../../src/auth/abilities.js';
import type { RequestOptions, TestContext, TestUser } from './test-app.js';

export interface EndpointCase {
  /** As in api-v1, e.g. `GET /projects/{project}`. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below /api/v1, with `:project` or `:token` for the path resource. */
  path: string;
  ability: Ability;
  /** Project endpoints need an active subscription (D7). */
  subscription: boolean;
  success: number;
  /** Builds a valid request for `user` (creating what the path needs), without the token. */
  prepare(ctx: TestContext, user: TestUser): Promise<Omit<RequestOptions, 'token'>>;
  /** A body the endpoint accepts, for requests built on an existing project and token. */
  body?: unknown;
  /** A body (or query) that fails validation with 422 once every earlier check passes. */
  invalidBody?: unknown;
  invalidQuery?: string;
  /** A query every successful request needs (`?format=sarif` for E3's export), appended to `path`. */
  query?: string;
  /** The success answer's Content-Type, when it is not D2's JSON (E3's downloads). */
  contentType?: string;
}

/** A project id that is a well-formed UUID v7 but names no project. */
export const MISSING_PROJECT = '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b';
/** A report id that is a well-formed UUID v7 but names no report. */
export const MISSING_REPORT = '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9c';
/** A token id that belongs to nobody. */
export const MISSING_TOKEN = '999999';

const projectBody = { name: 'Checked', framework_version: '12' };
/** Fails validation on both fields of a project. */
export const INVALID_PROJECT_BODY = { name: '', framework_version: '8' };

const projectOf = async (ctx: TestContext, user: TestUser) => (await ctx.given.project(user, { name: 'Target' })).project.id;

const reportOf = async (ctx: TestContext, user: TestUser) => (await ctx.given.report(await projectOf(ctx, user))).uuid;

/**
 * api-v1 section 4 (9 endpoints), D17 archive/unarchive, the report endpoints (the reports issue)
 * and the extensions' (E1 changes and branches, E2 trend and badges), each with a request that succeeds.
 */
export const ENDPOINTS: EndpointCase[] = [
  {
    name: 'GET /projects',
    method: 'GET',
    path: '/projects',
    invalidQuery: '?page=0',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async () => ({ method: 'GET', url: '/api/v1/projects' }),
  },
  {
    name: 'POST /projects',
    method: 'POST',
    path: '/projects',
    body: projectBody,
    invalidBody: INVALID_PROJECT_BODY,
    ability: 'write',
    subscription: true,
    success: 201,
    prepare: async () => ({ method: 'POST', url: '/api/v1/projects', body: { name: 'New', framework_version: '12' } }),
  },
  {
    name: 'GET /projects/{project}',
    method: 'GET',
    path: '/projects/:project',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}` }),
  },
  {
    name: 'PUT /projects/{project}',
    method: 'PUT',
    path: '/projects/:project',
    body: projectBody,
    invalidBody: INVALID_PROJECT_BODY,
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({
      method: 'PUT',
      url: `/api/v1/projects/${await projectOf(ctx, user)}`,
      body: { name: 'Renamed', framework_version: '11' },
    }),
  },
  {
    name: 'DELETE /projects/{project}',
    method: 'DELETE',
    path: '/projects/:project',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'DELETE', url: `/api/v1/projects/${await projectOf(ctx, user)}` }),
  },
  {
    name: 'POST /projects/{project}/regenerate-token',
    method: 'POST',
    path: '/projects/:project/regenerate-token',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'POST', url: `/api/v1/projects/${await projectOf(ctx, user)}/regenerate-token` }),
  },
  {
    name: 'POST /projects/{project}/archive',
    method: 'POST',
    path: '/projects/:project/archive',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'POST', url: `/api/v1/projects/${await projectOf(ctx, user)}/archive` }),
  },
  {
    name: 'POST /projects/{project}/unarchive',
    method: 'POST',
    path: '/projects/:project/unarchive',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => {
      const id = await projectOf(ctx, user);
      await ctx.db.updateTable('projects').set({ archived_at: ctx.clock.now().toISOString() }).where('id', '=', id).execute();
      return { method: 'POST', url: `/api/v1/projects/${id}/unarchive` };
    },
  },
  {
    name: 'GET /projects/{project}/reports',
    method: 'GET',
    path: '/projects/:project/reports',
    invalidQuery: '?page=0',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}/reports` }),
  },
  {
    name: 'GET /projects/{project}/branches',
    method: 'GET',
    path: '/projects/:project/branches',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}/branches` }),
  },
  {
    name: 'GET /projects/{project}/trend',
    method: 'GET',
    path: '/projects/:project/trend',
    invalidQuery: '?limit=0',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}/trend` }),
  },
  {
    name: 'GET /projects/{project}/badges',
    method: 'GET',
    path: '/projects/:project/badges',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}/badges` }),
  },
  {
    name: 'POST /projects/{project}/badges/regenerate',
    method: 'POST',
    path: '/projects/:project/badges/regenerate',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'POST', url: `/api/v1/projects/${await projectOf(ctx, user)}/badges/regenerate` }),
  },
  {
    name: 'GET /projects/{project}/failures',
    method: 'GET',
    path: '/projects/:project/failures',
    invalidQuery: '?page=abc',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}/failures` }),
  },
  {
    name: 'GET /reports/{report}',
    method: 'GET',
    path: '/reports/:report',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/reports/${await reportOf(ctx, user)}` }),
  },
  {
    name: 'GET /reports/{report}/changes',
    method: 'GET',
    path: '/reports/:report/changes',
    invalidQuery: '?kind=moved',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/reports/${await reportOf(ctx, user)}/changes` }),
  },
  {
    name: 'GET /reports/{report}/export',
    method: 'GET',
    path: '/reports/:report/export',
    // SARIF rather than CSV: the success answer is still JSON for the tests that read it as such.
    query: '?format=sarif',
    invalidQuery: '?format=pdf',
    contentType: 'application/sarif+json',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/reports/${await reportOf(ctx, user)}/export?format=sarif` }),
  },
  {
    name: 'DELETE /reports/{report}',
    method: 'DELETE',
    path: '/reports/:report',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'DELETE', url: `/api/v1/reports/${await reportOf(ctx, user)}` }),
  },
  {
    name: 'GET /tokens',
    method: 'GET',
    path: '/tokens',
    ability: 'read',
    subscription: false,
    success: 200,
    prepare: async () => ({ method: 'GET', url: '/api/v1/tokens' }),
  },
  {
    name: 'POST /tokens',
    method: 'POST',
    path: '/tokens',
    body: { name: 'ci', abilities: ['read'] },
    invalidBody: { name: 'ci', abilities: [] },
    ability: 'admin',
    subscription: false,
    success: 201,
    prepare: async () => ({ method: 'POST', url: '/api/v1/tokens', body: { name: 'made', abilities: ['read'] } }),
  },
  {
    name: 'DELETE /tokens/{token}',
    method: 'DELETE',
    path: '/tokens/:token',
    ability: 'admin',
    subscription: false,
    success: 200,
    prepare: async (ctx, user) => {
      await ctx.given.token(user, { name: 'victim' });
      const { id } = await ctx.db
        .selectFrom('personal_access_tokens')
        .select('id')
        .where('user_id', '=', user.id)
        .where('name', '=', 'victim')
        .executeTakeFirstOrThrow();
      return { method: 'DELETE', url: `/api/v1/tokens/${id}` };
    },
  },
];

/** Projects and tokens as rows, to show a refused request changed nothing (last use excluded). */
export async function snapshot(ctx: TestContext) {
  const projects = await ctx.db.selectFrom('projects').selectAll().orderBy('id').execute();
  const tokens = await ctx.db
    .selectFrom('personal_access_tokens')
    .select(['id', 'user_id', 'name', 'token_hash', 'abilities', 'expires_at'])
    .orderBy('id')
    .execute();
  return { projects, tokens };
}
