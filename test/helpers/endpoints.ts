import type { Ability } from '../../src/auth/abilities.js';
import type { TeamRole } from '../../src/db/schema.js';
import { createSessionsService } from '../../src/sessions/sessions.service.js';
import type { RequestOptions, TestContext, TestUser } from './test-app.js';

/** The dashboard password `PUT /user/password`'s case sets before changing it. */
const OLD_PASSWORD = 'an old passphrase 1';

export interface EndpointCase {
  /** As in api-v1, e.g. `GET /projects/{project}`. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /**
   * Below /api/v1, with `:project`, `:report`, `:token`, `:team`, `:user`, `:id`, `:webhook` or
   * `:delivery` for the path resources.
   */
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
/** A webhook id that is a well-formed UUID v7 but names no webhook. */
export const MISSING_WEBHOOK = '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9d';
/** A delivery id that is a well-formed UUID v7 but names no delivery. */
export const MISSING_DELIVERY = '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9e';

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
    name: 'GET /projects/{project}/pull-requests',
    method: 'GET',
    path: '/projects/:project/pull-requests',
    invalidQuery: '?page=0',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}/pull-requests` }),
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
    name: 'GET /projects/{project}/issues',
    method: 'GET',
    path: '/projects/:project/issues',
    invalidQuery: '?assignee=someone',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}/issues` }),
  },
  {
    name: 'GET /projects/{project}/tracker',
    method: 'GET',
    path: '/projects/:project/tracker',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}/tracker` }),
  },
  {
    name: 'GET /projects/{project}/tracker/deliveries',
    method: 'GET',
    path: '/projects/:project/tracker/deliveries',
    invalidQuery: '?page=0',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}/tracker/deliveries` }),
  },
  {
    name: 'PUT /projects/{project}/tracker',
    method: 'PUT',
    path: '/projects/:project/tracker',
    body: { connection_id: null },
    invalidBody: { connection_id: 12 },
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({
      method: 'PUT',
      url: `/api/v1/projects/${await projectOf(ctx, user)}/tracker`,
      body: { connection_id: null },
    }),
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
    name: 'GET /reports/{report}/suppressed',
    method: 'GET',
    path: '/reports/:report/suppressed',
    invalidQuery: '?type=ignored',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/reports/${await reportOf(ctx, user)}/suppressed` }),
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
    name: 'GET /user/issues',
    method: 'GET',
    path: '/user/issues',
    invalidQuery: '?page=0',
    ability: 'read',
    subscription: false,
    success: 200,
    prepare: async (ctx, user) => {
      // An issue assigned to the user, when they may decide about one (so the answer's shape is filled in).
      await issueOf(ctx, user, { status: 'confirmed', assignee_id: user.id }).catch(() => undefined);
      return { method: 'GET', url: '/api/v1/user/issues' };
    },
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

/** A shared team `owner` owns, with `other` in it as `role`; `other` keeps their current team. */
async function teamWith(ctx: TestContext, owner: TestUser, other: TestUser, role: TeamRole): Promise<number> {
  const teamId = await ctx.given.team(owner, 'Endpoint team');
  await ctx.given.member(teamId, other, role, { makeCurrent: false });
  return teamId;
}

/** A pending invitation of `user`'s email to a new shared team, made over the API by its owner. */
async function invitationFor(ctx: TestContext, user: TestUser): Promise<number> {
  const owner = await ctx.given.user({ plan: 'enterprise' });
  const teamId = await ctx.given.team(owner, 'Inviting team');
  const response = await ctx.request({
    method: 'POST',
    url: `/api/v1/teams/${teamId}/invitations`,
    token: owner.token,
    body: { email: user.email, role: 'member' },
  });
  if (response.statusCode !== 201) throw new Error(`inviting failed: ${response.body}`);
  return (response.json() as { invitation: { id: number } }).invitation.id;
}

/** A team `user` owns, for the owner-only and owner-or-admin routes. */
const ownTeam = (ctx: TestContext, user: TestUser) => ctx.given.team(user, 'Own team');

/**
 * E4 (the caller's profile, teams, members, invitations) and E5 (the audit lists), each with a request
 * that succeeds for `user`. Kept apart from ENDPOINTS, whose cases are project, report and token
 * endpoints that the generic D7/D8/API1/API3 suites exercise; the route-table suites use both.
 * `ability` is the route's declared ability: removing another member needs `admin` on top (E4), so
 * the DELETE member case is the caller leaving, which needs `write`.
 */
export const TEAM_ENDPOINTS: EndpointCase[] = [
  {
    name: 'GET /user',
    method: 'GET',
    path: '/user',
    ability: 'read',
    subscription: false,
    success: 200,
    prepare: async () => ({ method: 'GET', url: '/api/v1/user' }),
  },
  {
    name: 'PUT /user',
    method: 'PUT',
    path: '/user',
    ability: 'write',
    subscription: false,
    success: 200,
    prepare: async () => ({ method: 'PUT', url: '/api/v1/user', body: { name: 'Renamed' } }),
  },
  {
    // E7: a user's own dashboard password; the current one must match, so prepare sets it first.
    name: 'PUT /user/password',
    method: 'PUT',
    path: '/user/password',
    ability: 'admin',
    subscription: false,
    success: 200,
    prepare: async (ctx, user) => {
      await createSessionsService({ db: ctx.db, clock: ctx.clock }).setPassword(user.email, OLD_PASSWORD);
      return { method: 'PUT', url: '/api/v1/user/password', body: { current_password: OLD_PASSWORD, password: 'a new passphrase 2' } };
    },
    invalidBody: { current_password: OLD_PASSWORD, password: 'short' },
  },
  {
    name: 'PUT /user/current-team',
    method: 'PUT',
    path: '/user/current-team',
    ability: 'write',
    subscription: false,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'PUT', url: '/api/v1/user/current-team', body: { team_id: await ownTeam(ctx, user) } }),
  },
  {
    name: 'GET /user/audit-events',
    method: 'GET',
    path: '/user/audit-events',
    ability: 'read',
    subscription: false,
    success: 200,
    prepare: async () => ({ method: 'GET', url: '/api/v1/user/audit-events' }),
  },
  {
    // E11.2: the caller's notification choices.
    name: 'GET /user/notifications',
    method: 'GET',
    path: '/user/notifications',
    ability: 'read',
    subscription: false,
    success: 200,
    prepare: async () => ({ method: 'GET', url: '/api/v1/user/notifications' }),
  },
  {
    name: 'PUT /user/notifications',
    method: 'PUT',
    path: '/user/notifications',
    ability: 'write',
    subscription: false,
    success: 200,
    prepare: async (ctx, user) => ({
      method: 'PUT',
      url: '/api/v1/user/notifications',
      body: { new_issues: 'high', weekly_digest: true, muted_projects: [await projectOf(ctx, user)] },
    }),
    invalidBody: { new_issues: 'info', gate_failed: 'yes' },
  },
  {
    name: 'GET /teams',
    method: 'GET',
    path: '/teams',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async () => ({ method: 'GET', url: '/api/v1/teams' }),
  },
  {
    name: 'POST /teams',
    method: 'POST',
    path: '/teams',
    ability: 'write',
    subscription: true,
    success: 201,
    prepare: async (ctx, user) => {
      await ctx.given.plan(user, 'enterprise'); // E4: Business or Enterprise creates teams
      return { method: 'POST', url: '/api/v1/teams', body: { name: 'Created' } };
    },
  },
  {
    name: 'GET /teams/{team}',
    method: 'GET',
    path: '/teams/:team',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/teams/${await ownTeam(ctx, user)}` }),
  },
  {
    name: 'PUT /teams/{team}',
    method: 'PUT',
    path: '/teams/:team',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'PUT', url: `/api/v1/teams/${await ownTeam(ctx, user)}`, body: { name: 'Renamed team' } }),
  },
  {
    name: 'DELETE /teams/{team}',
    method: 'DELETE',
    path: '/teams/:team',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'DELETE', url: `/api/v1/teams/${await ownTeam(ctx, user)}` }),
  },
  {
    name: 'POST /teams/{team}/transfer',
    method: 'POST',
    path: '/teams/:team/transfer',
    ability: 'admin',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => {
      const heir = await ctx.given.user({ plan: 'enterprise' });
      const teamId = await teamWith(ctx, user, heir, 'admin');
      return { method: 'POST', url: `/api/v1/teams/${teamId}/transfer`, body: { user_id: heir.id } };
    },
  },
  {
    name: 'PUT /teams/{team}/members/{user}',
    method: 'PUT',
    path: '/teams/:team/members/:user',
    ability: 'admin',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => {
      const colleague = await ctx.given.user({ plan: 'enterprise' });
      const teamId = await teamWith(ctx, user, colleague, 'member');
      return { method: 'PUT', url: `/api/v1/teams/${teamId}/members/${colleague.id}`, body: { role: 'readonly' } };
    },
  },
  {
    name: 'DELETE /teams/{team}/members/{user}',
    method: 'DELETE',
    path: '/teams/:team/members/:user',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => {
      const owner = await ctx.given.user({ plan: 'enterprise' });
      const teamId = await teamWith(ctx, owner, user, 'member');
      return { method: 'DELETE', url: `/api/v1/teams/${teamId}/members/${user.id}` };
    },
  },
  {
    name: 'POST /teams/{team}/invitations',
    method: 'POST',
    path: '/teams/:team/invitations',
    ability: 'admin',
    subscription: true,
    success: 201,
    prepare: async (ctx, user) => ({
      method: 'POST',
      url: `/api/v1/teams/${await ownTeam(ctx, user)}/invitations`,
      body: { email: `invitee-${Math.random().toString(36).slice(2, 8)}@example.com`, role: 'member' },
    }),
  },
  {
    name: 'GET /teams/{team}/invitations',
    method: 'GET',
    path: '/teams/:team/invitations',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/teams/${await ownTeam(ctx, user)}/invitations` }),
  },
  {
    name: 'DELETE /teams/{team}/invitations/{id}',
    method: 'DELETE',
    path: '/teams/:team/invitations/:id',
    ability: 'admin',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => {
      const teamId = await ownTeam(ctx, user);
      const response = await ctx.request({
        method: 'POST',
        url: `/api/v1/teams/${teamId}/invitations`,
        token: await ctx.given.token(user),
        body: { email: `cancelled-${Math.random().toString(36).slice(2, 8)}@example.com`, role: 'member' },
      });
      if (response.statusCode !== 201) throw new Error(`inviting failed: ${response.body}`);
      const id = (response.json() as { invitation: { id: number } }).invitation.id;
      return { method: 'DELETE', url: `/api/v1/teams/${teamId}/invitations/${id}` };
    },
  },
  {
    name: 'GET /teams/{team}/audit-events',
    method: 'GET',
    path: '/teams/:team/audit-events',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/teams/${await ownTeam(ctx, user)}/audit-events` }),
  },
  {
    name: 'GET /invitations',
    method: 'GET',
    path: '/invitations',
    ability: 'read',
    subscription: false,
    success: 200,
    prepare: async () => ({ method: 'GET', url: '/api/v1/invitations' }),
  },
  {
    name: 'POST /invitations/{id}/accept',
    method: 'POST',
    path: '/invitations/:id/accept',
    ability: 'write',
    subscription: false,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'POST', url: `/api/v1/invitations/${await invitationFor(ctx, user)}/accept` }),
  },
  {
    name: 'POST /invitations/{id}/decline',
    method: 'POST',
    path: '/invitations/:id/decline',
    ability: 'write',
    subscription: false,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'POST', url: `/api/v1/invitations/${await invitationFor(ctx, user)}/decline` }),
  },
];

/** A webhook body E6 accepts (no request is sent to it: the tests run no delivery worker). */
const webhookBody = { url: 'https://hooks.example.com/scoreboard', events: ['report.created', 'run.failed'] };
/** Fails validation on both fields of a webhook. */
const INVALID_WEBHOOK_BODY = { url: 'ftp://hooks.example.com/x', events: [] };

/**
 * A webhook on a new project of `user`, created over the API as E6 stores it, with a token of its
 * own (so whatever abilities `user`'s token has); the token too, for further setup requests.
 */
async function webhookOf(ctx: TestContext, user: TestUser) {
  const projectId = await projectOf(ctx, user);
  const token = await ctx.given.token(user, { name: 'webhook setup' });
  const response = await ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/webhooks`, token, body: webhookBody });
  if (response.statusCode !== 201) throw new Error(`creating a webhook failed: ${response.body}`);
  const webhookId = (response.json() as { webhook: { id: string } }).webhook.id;
  return { projectId, webhookId, token, url: `/api/v1/projects/${projectId}/webhooks/${webhookId}` };
}

/**
 * E6's webhooks (owner or admin of the project's team, else 404), each with a request that succeeds
 * for `user`. Kept apart from ENDPOINTS like TEAM_ENDPOINTS: their `:webhook` and `:delivery` are
 * unknown to the generic suites (test/webhooks/webhooks-api.test.ts covers D4, D7 and API1 for them);
 * the route-table suites and the OpenAPI coverage use them.
 */
export const WEBHOOK_ENDPOINTS: EndpointCase[] = [
  {
    name: 'POST /projects/{project}/webhooks',
    method: 'POST',
    path: '/projects/:project/webhooks',
    body: webhookBody,
    invalidBody: INVALID_WEBHOOK_BODY,
    ability: 'write',
    subscription: true,
    success: 201,
    prepare: async (ctx, user) => ({ method: 'POST', url: `/api/v1/projects/${await projectOf(ctx, user)}/webhooks`, body: webhookBody }),
  },
  {
    name: 'GET /projects/{project}/webhooks',
    method: 'GET',
    path: '/projects/:project/webhooks',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${(await webhookOf(ctx, user)).projectId}/webhooks` }),
  },
  {
    name: 'GET /projects/{project}/webhooks/{webhook}',
    method: 'GET',
    path: '/projects/:project/webhooks/:webhook',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: (await webhookOf(ctx, user)).url }),
  },
  {
    name: 'PUT /projects/{project}/webhooks/{webhook}',
    method: 'PUT',
    path: '/projects/:project/webhooks/:webhook',
    body: { events: ['ping'], active: false, description: 'Paused' },
    invalidBody: INVALID_WEBHOOK_BODY,
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({
      method: 'PUT',
      url: (await webhookOf(ctx, user)).url,
      body: { url: 'https://hooks.example.com/changed', events: ['project.archived'], active: false, description: 'Paused' },
    }),
  },
  {
    name: 'DELETE /projects/{project}/webhooks/{webhook}',
    method: 'DELETE',
    path: '/projects/:project/webhooks/:webhook',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'DELETE', url: (await webhookOf(ctx, user)).url }),
  },
  {
    name: 'POST /projects/{project}/webhooks/{webhook}/rotate-secret',
    method: 'POST',
    path: '/projects/:project/webhooks/:webhook/rotate-secret',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'POST', url: `${(await webhookOf(ctx, user)).url}/rotate-secret` }),
  },
  {
    name: 'POST /projects/{project}/webhooks/{webhook}/ping',
    method: 'POST',
    path: '/projects/:project/webhooks/:webhook/ping',
    ability: 'write',
    subscription: true,
    success: 202,
    prepare: async (ctx, user) => ({ method: 'POST', url: `${(await webhookOf(ctx, user)).url}/ping` }),
  },
  {
    name: 'GET /projects/{project}/webhooks/{webhook}/deliveries',
    method: 'GET',
    path: '/projects/:project/webhooks/:webhook/deliveries',
    invalidQuery: '?page=0',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => {
      const webhook = await webhookOf(ctx, user);
      const ping = await ctx.request({ method: 'POST', url: `${webhook.url}/ping`, token: webhook.token });
      if (ping.statusCode !== 202) throw new Error(`pinging a webhook failed: ${ping.body}`);
      return { method: 'GET', url: `${webhook.url}/deliveries` };
    },
  },
  {
    name: 'POST /projects/{project}/webhooks/{webhook}/deliveries/{delivery}/redeliver',
    method: 'POST',
    path: '/projects/:project/webhooks/:webhook/deliveries/:delivery/redeliver',
    ability: 'write',
    subscription: true,
    success: 202,
    prepare: async (ctx, user) => {
      const webhook = await webhookOf(ctx, user);
      const ping = await ctx.request({ method: 'POST', url: `${webhook.url}/ping`, token: webhook.token });
      if (ping.statusCode !== 202) throw new Error(`pinging a webhook failed: ${ping.body}`);
      const deliveryId = (ping.json() as { data: { id: string } }).data.id;
      return { method: 'POST', url: `${webhook.url}/deliveries/${deliveryId}/redeliver` };
    },
  },
];

/**
 * A project of `user` with an uploaded report holding issues (E1.2 fingerprints); the project, one of
 * its issues' fingerprints and all of them, and a token of its own for further setup. With `state`,
 * that issue's state is set first (over the API).
 */
async function issueOf(ctx: TestContext, user: TestUser, state?: Record<string, unknown>) {
  const { project, apiToken } = await ctx.given.project(user, { name: 'Issues' });
  const upload = await ctx.request({
    method: 'POST',
    url: '/api/reports',
    token: apiToken,
    body: {
      analyzed_at: '2026-11-21T09:00:00+00:00',
      results: [
        {
          analyzer_id: 'sql-injection',
          status: 'failed',
          message: 'Found 2 issues',
          issues: [
            { message: 'Raw query', severity: 'high', recommendation: 'Bind it.', location: { file: 'app/A.php', line: 3 } },
            { message: 'Raw query again', severity: 'critical', recommendation: 'Bind it.', location: { file: 'app/B.php', line: 9 } },
          ],
        },
      ],
    },
  });
  if (upload.statusCode !== 201) throw new Error(`uploading a report failed: ${upload.body}`);
  const fingerprints = (
    await ctx.db
      .selectFrom('report_issues as i')
      .innerJoin('reports as r', 'r.id', 'i.report_id')
      .select('i.fingerprint')
      .where('r.project_id', '=', project.id)
      .orderBy('i.id')
      .execute()
  ).map((row) => row.fingerprint);
  const url = `/api/v1/projects/${project.id}/issues`;
  if (state !== undefined) {
    const token = await ctx.given.token(user, { name: 'issue setup' });
    const response = await ctx.request({ method: 'PUT', url: `${url}/${fingerprints[0]}`, token, body: state });
    if (response.statusCode !== 200) throw new Error(`deciding about an issue failed: ${response.body}`);
  }
  return { projectId: project.id, fingerprint: fingerprints[0]!, fingerprints, url };
}

/** A decision E8.2 accepts; and one that fails validation on two fields. */
const issueBody = { status: 'false_positive', comment: 'Checked by hand.' };
const INVALID_ISSUE_BODY = { status: 'maybe', comment: 12 };

/**
 * E8.2's changes (owner, admin or member of the project's team, else 404), each with a request that
 * succeeds for `user`. Kept apart from ENDPOINTS like WEBHOOK_ENDPOINTS: their `:fingerprint` (and
 * bulk's fingerprints in the body) must name an issue a report of the project holds, which the
 * generic suites' projects have none of (test/issues/issue-states-api.test.ts covers D4, D7 and D15
 * for them); the route-table suites and the OpenAPI coverage use them.
 */
export const ISSUE_ENDPOINTS: EndpointCase[] = [
  {
    name: 'PUT /projects/{project}/issues/{fingerprint}',
    method: 'PUT',
    path: '/projects/:project/issues/:fingerprint',
    body: issueBody,
    invalidBody: INVALID_ISSUE_BODY,
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => {
      const issue = await issueOf(ctx, user);
      return { method: 'PUT', url: `${issue.url}/${issue.fingerprint}`, body: issueBody };
    },
  },
  {
    name: 'POST /projects/{project}/issues/bulk',
    method: 'POST',
    path: '/projects/:project/issues/bulk',
    body: { ...issueBody, fingerprints: ['0'.repeat(32)] },
    invalidBody: { ...INVALID_ISSUE_BODY, fingerprints: [] },
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => {
      const issue = await issueOf(ctx, user);
      return { method: 'POST', url: `${issue.url}/bulk`, body: { ...issueBody, fingerprints: issue.fingerprints } };
    },
  },
];

/**
 * E9.4's tickets (owner, admin or member, else 404). Their success needs a tracker and a provider
 * (test/tickets/tickets-api.test.ts covers it against stand-ins); here a project without a tracker
 * answers its documented 409, which is what the route-table suites and the OpenAPI coverage need.
 */
export const TICKET_ENDPOINTS: EndpointCase[] = [
  {
    name: 'POST /projects/{project}/issues/{fingerprint}/ticket',
    method: 'POST',
    path: '/projects/:project/issues/:fingerprint/ticket',
    ability: 'write',
    subscription: true,
    success: 409,
    prepare: async (ctx, user) => {
      const issue = await issueOf(ctx, user);
      return { method: 'POST', url: `${issue.url}/${issue.fingerprint}/ticket` };
    },
  },
  {
    name: 'POST /projects/{project}/issues/bulk-tickets',
    method: 'POST',
    path: '/projects/:project/issues/bulk-tickets',
    body: { fingerprints: ['0'.repeat(32)] },
    invalidBody: { fingerprints: [] },
    ability: 'write',
    subscription: true,
    success: 409,
    prepare: async (ctx, user) => {
      const issue = await issueOf(ctx, user);
      return { method: 'POST', url: `${issue.url}/bulk-tickets`, body: { fingerprints: issue.fingerprints } };
    },
  },
];

/**
 * Projects, tokens (last use excluded), webhooks and their deliveries, issue states as rows, to show a refused
 * request changed nothing.
 */
export async function snapshot(ctx: TestContext) {
  const projects = await ctx.db.selectFrom('projects').selectAll().orderBy('id').execute();
  const tokens = await ctx.db
    .selectFrom('personal_access_tokens')
    .select(['id', 'user_id', 'name', 'token_hash', 'abilities', 'expires_at'])
    .orderBy('id')
    .execute();
  const webhooks = await ctx.db.selectFrom('webhooks').selectAll().orderBy('id').execute();
  const deliveries = await ctx.db.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute();
  const issueStates = await ctx.db.selectFrom('issue_states').selectAll().orderBy('project_id').orderBy('fingerprint').execute();
  return { projects, tokens, webhooks, deliveries, issueStates };
}

/** A connection body E9.1 accepts (no request is made to it: only the check calls the provider). */
const connectionBody = {
  provider: 'gitlab',
  name: 'GitLab',
  base_url: 'https://gitlab.example.com/api/v4',
  credentials: { token: 'glpat-endpoint-case' },
};
/** Fails validation: an unknown provider and an empty name. */
const INVALID_CONNECTION_BODY = { provider: 'svn', name: '', credentials: {} };

/** A connection of `user`'s own team, created over the API, with a token of its own for further setup. */
async function connectionOf(ctx: TestContext, user: TestUser) {
  const teamId = await ownTeam(ctx, user);
  const token = await ctx.given.token(user, { name: 'connection setup' });
  const response = await ctx.request({ method: 'POST', url: `/api/v1/teams/${teamId}/connections`, token, body: connectionBody });
  if (response.statusCode !== 201) throw new Error(`creating a connection failed: ${response.body}`);
  const id = (response.json() as { data: { id: string } }).data.id;
  return { teamId, id, token, url: `/api/v1/teams/${teamId}/connections/${id}` };
}

/**
 * E9.1's connections (owner or admin of the team, else 404 or 403), each with a request that succeeds
 * for `user` (the check answers 200 whether or not the provider could be reached). Kept apart like
 * WEBHOOK_ENDPOINTS: their `:connection` is unknown to the generic suites
 * (test/connections/connections-api.test.ts covers D4, D7 and the roles for them).
 */
export const CONNECTION_ENDPOINTS: EndpointCase[] = [
  {
    name: 'POST /teams/{team}/connections',
    method: 'POST',
    path: '/teams/:team/connections',
    body: connectionBody,
    invalidBody: INVALID_CONNECTION_BODY,
    ability: 'admin',
    subscription: true,
    success: 201,
    prepare: async (ctx, user) => ({ method: 'POST', url: `/api/v1/teams/${await ownTeam(ctx, user)}/connections`, body: connectionBody }),
  },
  {
    name: 'GET /teams/{team}/connections',
    method: 'GET',
    path: '/teams/:team/connections',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/teams/${(await connectionOf(ctx, user)).teamId}/connections` }),
  },
  {
    name: 'GET /teams/{team}/connections/{connection}',
    method: 'GET',
    path: '/teams/:team/connections/:connection',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: (await connectionOf(ctx, user)).url }),
  },
  {
    name: 'PUT /teams/{team}/connections/{connection}',
    method: 'PUT',
    path: '/teams/:team/connections/:connection',
    body: { name: 'Renamed' },
    invalidBody: { name: '' },
    ability: 'admin',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'PUT', url: (await connectionOf(ctx, user)).url, body: { name: 'Renamed' } }),
  },
  {
    name: 'DELETE /teams/{team}/connections/{connection}',
    method: 'DELETE',
    path: '/teams/:team/connections/:connection',
    ability: 'admin',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'DELETE', url: (await connectionOf(ctx, user)).url }),
  },
  {
    name: 'POST /teams/{team}/connections/{connection}/check',
    method: 'POST',
    path: '/teams/:team/connections/:connection/check',
    ability: 'admin',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => {
      // A base URL of a reserved name (RFC 6761 .invalid): the check fails at once, never leaving the machine.
      const connection = await connectionOf(ctx, user);
      const moved = await ctx.request({
        method: 'PUT',
        url: connection.url,
        token: connection.token,
        body: { base_url: 'https://gitlab.invalid/api/v4' },
      });
      if (moved.statusCode !== 200) throw new Error(`changing a connection failed: ${moved.body}`);
      return { method: 'POST', url: `${connection.url}/check` };
    },
  },
];

/** A project of `user`'s personal team linked (E10.1) to `acme/shop` through a GitLab connection of that team. */
async function codeHostOf(ctx: TestContext, user: TestUser) {
  const token = await ctx.given.token(user, { name: 'code host setup' });
  const created = await ctx.request({ method: 'POST', url: `/api/v1/teams/${user.teamId}/connections`, token, body: connectionBody });
  if (created.statusCode !== 201) throw new Error(`creating a connection failed: ${created.body}`);
  const connectionId = (created.json() as { data: { id: string } }).data.id;
  const projectId = await projectOf(ctx, user);
  const url = `/api/v1/projects/${projectId}/code-host`;
  const linked = await ctx.request({ method: 'PUT', url, token, body: { connection_id: connectionId, repository: 'acme/shop' } });
  if (linked.statusCode !== 200) throw new Error(`linking a code host failed: ${linked.body}`);
  return { connectionId, projectId, url };
}

/**
 * E10.1 and E10.4: a project's code host (reading: any member; linking and unlinking: owner or admin,
 * else 404). Kept apart like CONNECTION_ENDPOINTS: a link needs a connection of the team
 * (test/code-host/code-host-api.test.ts covers D4, D7 and the roles for them).
 */
export const CODE_HOST_ENDPOINTS: EndpointCase[] = [
  {
    name: 'GET /projects/{project}/code-host',
    method: 'GET',
    path: '/projects/:project/code-host',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: (await codeHostOf(ctx, user)).url }),
  },
  {
    name: 'PUT /projects/{project}/code-host',
    method: 'PUT',
    path: '/projects/:project/code-host',
    invalidBody: { connection_id: 12, repository: '' },
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => {
      const linked = await codeHostOf(ctx, user);
      return {
        method: 'PUT',
        url: linked.url,
        body: { connection_id: linked.connectionId, repository: 'acme/shop', commit_status: false },
      };
    },
  },
  {
    name: 'DELETE /projects/{project}/code-host',
    method: 'DELETE',
    path: '/projects/:project/code-host',
    ability: 'write',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'DELETE', url: (await codeHostOf(ctx, user)).url }),
  },
  {
    name: 'GET /projects/{project}/code-host/deliveries',
    method: 'GET',
    path: '/projects/:project/code-host/deliveries',
    invalidQuery: '?page=0',
    ability: 'read',
    subscription: true,
    success: 200,
    prepare: async (ctx, user) => ({ method: 'GET', url: `/api/v1/projects/${await projectOf(ctx, user)}/code-host/deliveries` }),
  },
];
