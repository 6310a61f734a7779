/**
 * OWASP API Security Top 10 (2023), API5: Broken Function Level Authorization.
 *
 * Walks the app's ROUTE TABLE (`app.routeTable`: every route the app registered), not a list kept by
 * hand, so a route added without an access rule fails this file:
 * - every route is either an /api/v1 route declaring its ability (and a case in ENDPOINTS, with the
 *   ability and subscription rule of api-v1 / D7), a client-package route (project token), the public
 *   OpenAPI document, or one of the named operational and documentation routes; nothing else;
 * - every /api/v1 route refuses a token lacking exactly its ability with D6's 403, changing nothing;
 * - every project and report route that changes something, and every read of a project's webhooks
 *   (E6), refuses the team roles D15 excludes and users outside the team;
 * - every route but the public ones refuses a request without a token, and each kind of route
 *   refuses the other kind's token (a personal access token on /api, a project token on /api/v1).
 *
 * The ability hierarchy per endpoint is in test/auth/ability-hierarchy.test.ts, the start-up check
 * for an /api/v1 route without an ability in test/auth/route-table.test.ts, the role matrix of the
 * project endpoints in test/projects/permissions.test.ts.
 */
import { readdirSync } from 'node:fs';
import type { HTTPMethods } from 'fastify';
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import { servicesOn } from '../helpers/test-app.js';
import type { Ability } from '../../src/auth/abilities.js';
import { createApp } from '../../src/app.js';
import { DASHBOARD_PAGES } from '../../src/dashboard/dashboard-pages.js';
import { DEFAULT_DASHBOARD_ROOT } from '../../src/dashboard/dashboard.routes.js';
import type { TeamRole } from '../../src/db/schema.js';
import type { RouteTableEntry } from '../../src/http/app-types.js';
import { UNAUTHENTICATED, expectError, expectNotFound, freshAddress, missingAbility } from '../helpers/contract.js';
import { clientCall, expectClientUnauthenticated, minimalReport } from '../helpers/client-wire.js';
import {
  ENDPOINTS,
  MISSING_DELIVERY,
  MISSING_PROJECT,
  MISSING_REPORT,
  MISSING_TOKEN,
  MISSING_WEBHOOK,
  TEAM_ENDPOINTS,
  WEBHOOK_ENDPOINTS,
  ISSUE_ENDPOINTS,
  TICKET_ENDPOINTS,
  CODE_HOST_ENDPOINTS,
  CONNECTION_ENDPOINTS,
  snapshot,
  type EndpointCase,
} from '../helpers/endpoints.js';

const it = sharedAppTest();

/** The routes anyone may call without a token (D1 operations, the API reference). */
const PUBLIC_ROUTES = [
  '/healthz',
  '/readyz',
  '/metrics',
  '/docs',
  '/docs/json',
  '/docs/yaml',
  '/docs/static/index.html',
  '/docs/static/swagger-initializer.js',
  '/docs/static/*',
];
/** E11.3: an email's unsubscribe link, no token: the signed token in the path is the credential (404 for any other). */
const UNSUBSCRIBE_ROUTE = '/notifications/unsubscribe/:token';
/** The OpenAPI document: no token, declared with `publicDocument`. */
const OPENAPI_DOCUMENT = '/api/v1/openapi.json';
/** The client package's routes (CLIENT-WIRE.md), authenticated by the project API token. */
const CLIENT_ROUTES = [
  'POST /api/reports',
  'POST /api/v1/reports',
  'POST /api/reports/failure',
  'GET /api/token/verify',
  'GET /api/project',
];
/** E7: the dashboard's pages (each the app's index.html, no data) and its built assets, for anyone. */
const DASHBOARD_ROUTES = [...Object.values(DASHBOARD_PAGES), '/assets/*'];
/** E7's own routes: the sign-in (no credential) and the session's (a session only, never a token). */
const SESSION_ROUTES = ['POST /api/v1/session sign-in', 'GET /api/v1/session signed-in', 'DELETE /api/v1/session signed-in'];
/** The public badges (E2.3): no token, the project's badge key in the path is the credential. */
const BADGE_ROUTES = ['/badges/:key/score.svg', '/badges/:key/gate.svg', '/badges/:key/score.json'];

interface Route {
  method: HTTPMethods;
  url: string;
  config: RouteTableEntry['config'];
}

/** The route table with one entry per method (Fastify records `['HEAD', 'GET']` routes once). */
function routesOf(table: readonly RouteTableEntry[]): Route[] {
  return table.flatMap((entry) => [entry.method].flat().map((method) => ({ method, url: entry.url, config: entry.config })));
}

/** HEAD routes are Fastify's automatic companions of GET routes: they follow the GET route's rule. */
const asGet = (route: Route): Route => (route.method === 'HEAD' ? { ...route, method: 'GET' } : route);

/** Every /api/v1 operation with a succeeding request: api-v1 and E1-E3, then E4 and E5, then E6. */
const ALL_ENDPOINTS = [
  ...ENDPOINTS,
  ...TEAM_ENDPOINTS,
  ...WEBHOOK_ENDPOINTS,
  ...ISSUE_ENDPOINTS,
  ...TICKET_ENDPOINTS,
  ...CONNECTION_ENDPOINTS,
  ...CODE_HOST_ENDPOINTS,
];

/** The ENDPOINTS (or TEAM_ENDPOINTS, WEBHOOK_ENDPOINTS, ISSUE_ENDPOINTS) case of an /api/v1 route, by method and path pattern. */
function endpointOf(route: Route): EndpointCase | undefined {
  const { method, url } = asGet(route);
  return ALL_ENDPOINTS.find((e) => e.method === method && `/api/v1${e.path}` === url);
}

/** Why a route is allowed to exist, or why not (a problem to fix). */
function classify(
  route: Route,
): { kind: 'v1' | 'client' | 'document' | 'public' | 'badge' | 'session' | 'sign-in' | 'link' } | { problem: string } {
  const name = `${route.method} ${route.url}`;
  const { config } = route;
  if (config.sessionRoute !== undefined) {
    if (config.ability !== undefined) return { problem: `${name}: a session route with an ability as well` };
    return SESSION_ROUTES.includes(`${asGet(route).method} ${route.url} ${config.sessionRoute}`)
      ? { kind: config.sessionRoute === 'sign-in' ? 'sign-in' : 'session' }
      : { problem: `${name}: a session route E7 does not need` };
  }
  if (config.clientApi !== undefined) {
    return CLIENT_ROUTES.includes(`${asGet(route).method} ${route.url}`)
      ? { kind: 'client' }
      : { problem: `${name}: a client-package route CLIENT-WIRE.md does not name` };
  }
  if (config.publicDocument)
    return route.url === OPENAPI_DOCUMENT ? { kind: 'document' } : { problem: `${name}: public without being the OpenAPI document` };
  if (config.publicBadge) {
    const badge = asGet(route).method === 'GET' && BADGE_ROUTES.includes(route.url);
    return badge ? { kind: 'badge' } : { problem: `${name}: a public badge route E2.3 does not name` };
  }
  if (config.ability !== undefined) {
    if (!route.url.startsWith('/api/v1/')) return { problem: `${name}: an ability outside /api/v1 is never checked` };
    const endpoint = endpointOf(route);
    if (!endpoint)
      return { problem: `${name}: no ENDPOINTS, TEAM_ENDPOINTS or WEBHOOK_ENDPOINTS case (test/helpers/endpoints.ts) tests this route` };
    if (endpoint.ability !== config.ability)
      return { problem: `${name}: declares '${config.ability}', the contract says '${endpoint.ability}'` };
    if (endpoint.subscription !== (config.subscription === true)) return { problem: `${name}: subscription rule differs from D7` };
    return { kind: 'v1' };
  }
  if (PUBLIC_ROUTES.includes(route.url) || DASHBOARD_ROUTES.includes(route.url)) return { kind: 'public' };
  if (route.url === UNSUBSCRIBE_ROUTE && ['GET', 'POST'].includes(asGet(route).method)) return { kind: 'link' };
  return { problem: `${name}: declares no ability, is no client-package route and is not a named public route` };
}

/** A URL that reaches the route, with path parameters that name nothing. */
const urlOf = (route: Route) =>
  route.url
    .replace(':project', MISSING_PROJECT)
    .replace(':report', MISSING_REPORT)
    .replace(':token', MISSING_TOKEN)
    .replace(':team', MISSING_TOKEN)
    .replace(':user', MISSING_TOKEN)
    .replace(':id', MISSING_TOKEN)
    .replace(':webhook', MISSING_WEBHOOK)
    .replace(':delivery', MISSING_DELIVERY)
    // A file the dashboard's build really made (npm test builds first).
    .replace(/^\/assets\/\*$/, `/assets/${readdirSync(`${DEFAULT_DASHBOARD_ROOT}assets`)[0]}`)
    .replace('*', 'index.html');

describe('API5 broken function level authorization', () => {
  let routes: Route[];
  it.beforeAll(async ({ ctx }) => {
    routes = routesOf(ctx.app.routeTable);
  });

  const v1Routes = () => routes.filter((r) => r.config.ability !== undefined);

  describe('the route table', () => {
    it('holds only routes with an access rule: every one classified, none a problem', () => {
      expect(routes.length).toBeGreaterThan(30);
      const problems = routes.map(classify).flatMap((c) => ('problem' in c ? [c.problem] : []));
      expect(problems).toEqual([]);
    });

    it('serves every ENDPOINTS case and every client-package route (the table is not stale)', () => {
      const served = new Set(routes.map((r) => `${r.method} ${r.url}`));
      for (const endpoint of ALL_ENDPOINTS) expect(served, endpoint.name).toContain(`${endpoint.method} /api/v1${endpoint.path}`);
      for (const route of CLIENT_ROUTES) expect(served).toContain(route);
    });

    it('flags a route registered without an ability, wherever it is mounted', async ({ ctx }) => {
      // A second app on the same store, with routes a careless change could add.
      const db = ctx.store.open();
      const app = await createApp(ctx.config, { db, clock: ctx.clock });
      try {
        app.register(async (scope) => {
          scope.get('/internal/debug', async () => ({ ok: true }));
          scope.post('/api/admin/reset', async () => ({ ok: true }));
          scope.get('/api/v1/sneaky', { config: { ability: 'read' } }, async () => ({ ok: true }));
        });
        await app.ready();
        const problems = routesOf(app.routeTable)
          .map(classify)
          .flatMap((c) => ('problem' in c ? [c.problem] : []));
        expect(problems).toEqual([
          expect.stringMatching(/^GET \/internal\/debug: declares no ability/),
          expect.stringMatching(/^HEAD \/internal\/debug: declares no ability/),
          expect.stringMatching(/^POST \/api\/admin\/reset: declares no ability/),
          expect.stringMatching(/^GET \/api\/v1\/sneaky: no ENDPOINTS, TEAM_ENDPOINTS or WEBHOOK_ENDPOINTS case/),
          expect.stringMatching(/^HEAD \/api\/v1\/sneaky: no ENDPOINTS, TEAM_ENDPOINTS or WEBHOOK_ENDPOINTS case/),
        ]);
      } finally {
        await app.close();
        await db.destroy();
      }
    });
  });

  describe('abilities (D6)', () => {
    /** The abilities of a token that just lacks `ability` in the hierarchy. */
    const below: Record<Ability, Ability[]> = { read: [], write: ['read'], admin: ['read', 'write'] };

    it("refuses a token lacking exactly the route's ability with 403 on every /api/v1 route, changing nothing", async ({ ctx }) => {
      const checked: string[] = [];
      for (const route of v1Routes()) {
        const endpoint = endpointOf(route)!;
        const ability = route.config.ability!;
        const user = await ctx.given.user({ plan: 'enterprise', abilities: below[ability] });
        const request = await endpoint.prepare(ctx, user);
        const before = await snapshot(ctx);
        const response = await ctx.request({ ...request, method: route.method, token: user.token });
        const name = `${route.method} ${route.url}`;
        expect(response.statusCode, name).toBe(403);
        if (route.method !== 'HEAD') expectError(response, 403, missingAbility(ability));
        expect(await snapshot(ctx), name).toEqual(before);

        // Control: the same request with a token holding exactly that ability succeeds.
        const exact = await ctx.given.token(user, { abilities: [ability], name: 'exact' });
        const allowed = await ctx.request({ ...request, method: route.method, token: exact });
        expect(allowed.statusCode, `${name}: ${allowed.body}`).toBe(route.method === 'HEAD' ? 200 : endpoint.success);
        checked.push(name);
      }
      // Every operation of the ENDPOINTS table was among them (HEAD routes come on top).
      const operations = ALL_ENDPOINTS.map((e) => `${e.method} /api/v1${e.path}`);
      expect(checked.filter((name) => operations.includes(name)).sort()).toEqual(operations.sort());
    });
  });

  describe('team roles (D15)', () => {
    /** Who may use each project or report route that changes something: a new one must be added here. */
    const ALLOWED: Record<string, TeamRole[]> = {
      'PUT /api/v1/projects/:project': ['owner', 'admin', 'member'],
      'POST /api/v1/projects/:project/regenerate-token': ['owner', 'admin', 'member'],
      'POST /api/v1/projects/:project/archive': ['owner', 'admin', 'member'],
      'POST /api/v1/projects/:project/unarchive': ['owner', 'admin', 'member'],
      'POST /api/v1/projects/:project/badges/regenerate': ['owner', 'admin', 'member'],
      'DELETE /api/v1/projects/:project': ['owner', 'admin'],
      'DELETE /api/v1/reports/:report': ['owner', 'admin'],
      // E6: a project's webhooks are managed as it is deleted, by the owner or an admin of its team.
      'POST /api/v1/projects/:project/webhooks': ['owner', 'admin'],
      'PUT /api/v1/projects/:project/webhooks/:webhook': ['owner', 'admin'],
      'DELETE /api/v1/projects/:project/webhooks/:webhook': ['owner', 'admin'],
      'POST /api/v1/projects/:project/webhooks/:webhook/rotate-secret': ['owner', 'admin'],
      'POST /api/v1/projects/:project/webhooks/:webhook/ping': ['owner', 'admin'],
      'POST /api/v1/projects/:project/webhooks/:webhook/deliveries/:delivery/redeliver': ['owner', 'admin'],
      // E8.2: deciding about a project's issues, as updating it.
      'PUT /api/v1/projects/:project/issues/:fingerprint': ['owner', 'admin', 'member'],
      'POST /api/v1/projects/:project/issues/bulk': ['owner', 'admin', 'member'],
      // E9.3, E9.4: a project's tracker and its tickets, as updating it.
      'PUT /api/v1/projects/:project/tracker': ['owner', 'admin', 'member'],
      'POST /api/v1/projects/:project/issues/:fingerprint/ticket': ['owner', 'admin', 'member'],
      'POST /api/v1/projects/:project/issues/bulk-tickets': ['owner', 'admin', 'member'],
      // E10.1: a project's code host decides what is posted in the team's name, as deleting it.
      'PUT /api/v1/projects/:project/code-host': ['owner', 'admin'],
      'DELETE /api/v1/projects/:project/code-host': ['owner', 'admin'],
    };
    /** The project reads that team membership alone does not open: E6's webhooks and their deliveries. */
    const READ_ALLOWED: Record<string, TeamRole[]> = {
      'GET /api/v1/projects/:project/webhooks': ['owner', 'admin'],
      'GET /api/v1/projects/:project/webhooks/:webhook': ['owner', 'admin'],
      'GET /api/v1/projects/:project/webhooks/:webhook/deliveries': ['owner', 'admin'],
    };
    const writingRoutes = () => v1Routes().filter((r) => !['GET', 'HEAD'].includes(r.method) && /:(project|report)\b/.test(r.url));
    const webhookReads = () => v1Routes().filter((r) => r.method === 'GET' && r.url.startsWith('/api/v1/projects/:project/webhooks'));

    it('has a D15 rule for every project and report route that changes something', () => {
      expect(
        writingRoutes()
          .map((r) => `${r.method} ${r.url}`)
          .sort(),
      ).toEqual(Object.keys(ALLOWED).sort());
      // And for every read of a project's webhooks.
      expect(
        webhookReads()
          .map((r) => `${r.method} ${r.url}`)
          .sort(),
      ).toEqual(Object.keys(READ_ALLOWED).sort());
    });

    it('refuses every excluded role, and a user outside the team, with 404 on those routes, changing nothing', async ({ ctx }) => {
      for (const route of [...writingRoutes(), ...webhookReads()]) {
        const name = `${route.method} ${route.url}`;
        const allowed = ALLOWED[name] ?? READ_ALLOWED[name]!;
        const excluded = (['admin', 'member', 'readonly'] as const).filter((r) => !allowed.includes(r));
        for (const role of [...excluded, 'outsider' as const]) {
          const owner = await ctx.given.user({ plan: 'enterprise' });
          const request = await endpointOf(route)!.prepare(ctx, owner);
          const colleague = await ctx.given.user({ plan: 'enterprise' });
          // An outsider is a user of another team (their own), with every ability and a subscription.
          if (role !== 'outsider') await ctx.given.member(owner.teamId!, colleague, role);
          const before = await snapshot(ctx);
          const reports = await ctx.db.selectFrom('reports').selectAll().orderBy('id').execute();

          const response = await ctx.request({ ...request, token: colleague.token });

          expectNotFound(response);
          expect(await snapshot(ctx), `${name} as ${role}`).toEqual(before);
          expect(await ctx.db.selectFrom('reports').selectAll().orderBy('id').execute()).toEqual(reports);
        }
      }
    });
  });

  describe('authentication on every route', () => {
    it('refuses a request without a token on every route but the public ones (401)', async ({ ctx }) => {
      let refused = 0;
      for (const route of routes) {
        const kind = classify(route);
        // The sign-in takes no credential: it answers a body without email and password with 422 (sessions tests);
        // an unsubscribe link's token is its credential: any other is a 404 (unsubscribe tests).
        if (!('kind' in kind) || ['public', 'document', 'badge', 'sign-in', 'link'].includes(kind.kind)) continue;
        const url = urlOf(route);
        const body = route.method === 'GET' || route.method === 'HEAD' ? undefined : kind.kind === 'client' ? minimalReport() : {};
        const response = await ctx.request({ method: route.method, url, body, remoteAddress: freshAddress() });
        expect(response.statusCode, `${route.method} ${url}`).toBe(401);
        if (route.method !== 'HEAD') {
          if (kind.kind === 'client') expectClientUnauthenticated(response, route.url === '/api/token/verify' ? { valid: false } : {});
          else expectError(response, 401, UNAUTHENTICATED);
        }
        refused += 1;
      }
      expect(refused).toBeGreaterThan(25);
    });

    it('answers the public routes without a token', async ({ ctx }) => {
      for (const route of routes) {
        const kind = classify(route);
        if (!('kind' in kind) || (kind.kind !== 'public' && kind.kind !== 'document')) continue;
        const response = await ctx.request({ method: route.method, url: urlOf(route), remoteAddress: freshAddress() });
        expect(response.statusCode, `${route.method} ${route.url}`).toBeLessThan(400);
      }
    });

    it('answers the public badge routes without a token, by their key alone: a key no project has is 404', async ({ ctx }) => {
      const user = await ctx.given.user({ plan: 'enterprise' });
      const { project } = await ctx.given.project(user, { name: 'Badged' });
      const { badge_key: key } = await ctx.db
        .selectFrom('projects')
        .select('badge_key')
        .where('id', '=', project.id)
        .executeTakeFirstOrThrow();
      let answered = 0;
      for (const route of routes.filter((r) => r.config.publicBadge)) {
        const ok = await ctx.request({ method: route.method, url: route.url.replace(':key', key), remoteAddress: freshAddress() });
        expect(ok.statusCode, `${route.method} ${route.url}`).toBe(200);
        const unknown = await ctx.request({
          method: route.method,
          url: route.url.replace(':key', 'K'.repeat(32)),
          remoteAddress: freshAddress(),
        });
        expect(unknown.statusCode, `${route.method} ${route.url}`).toBe(404);
        if (route.method !== 'HEAD') expectNotFound(unknown);
        answered += 1;
      }
      expect(answered).toBe(BADGE_ROUTES.length * 2); // GET and HEAD
    });

    it('refuses a personal access token on every client-package route (401)', async ({ ctx }) => {
      const user = await ctx.given.user({ plan: 'enterprise' });
      for (const route of routes.filter((r) => r.config.clientApi !== undefined && r.method !== 'HEAD')) {
        const response = await clientCall(ctx, user.token, route.method === 'POST' ? minimalReport() : undefined, {
          method: route.method as 'GET' | 'POST',
          url: route.url,
          remoteAddress: freshAddress(),
        });
        expectClientUnauthenticated(response, route.url === '/api/token/verify' ? { valid: false } : {});
      }
    });

    it('refuses a project API token on every /api/v1 route (401), changing nothing', async ({ ctx }) => {
      const user = await ctx.given.user({ plan: 'enterprise' });
      const { apiToken } = await ctx.given.project(user, { name: 'Tokened' });
      for (const route of v1Routes()) {
        const request = await endpointOf(route)!.prepare(ctx, user);
        const before = await snapshot(ctx);
        const response = await ctx.request({ ...request, method: route.method, token: apiToken, remoteAddress: freshAddress() });
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
        if (route.method !== 'HEAD') expectError(response, 401, UNAUTHENTICATED);
        expect(await snapshot(ctx)).toEqual(before);
      }
    });
  });

  describe('owner functions a personal team does not have (D34)', () => {
    it('refuses to hand a personal team over, so no member becomes its owner and the deletion of none leaves it ownerless', async ({
      ctx,
    }) => {
      const owner = await ctx.given.user({ plan: 'enterprise' });
      const heir = await ctx.given.user({ plan: 'enterprise' });
      await ctx.given.member(owner.teamId!, heir, 'admin');
      const { project, apiToken } = await ctx.given.project(owner);
      const roles = async () =>
        ctx.db.selectFrom('team_members').select(['user_id', 'role']).where('team_id', '=', owner.teamId!).orderBy('user_id').execute();
      const before = { stored: await snapshot(ctx), roles: await roles() };

      const transfer = await ctx.request({
        method: 'POST',
        url: `/api/v1/teams/${owner.teamId}/transfer`,
        token: owner.token,
        body: { user_id: heir.id },
      });
      expectError(transfer, 403, { error: 'Forbidden', message: 'A personal team cannot be transferred.' });
      expect({ stored: await snapshot(ctx), roles: await roles() }).toEqual(before);
      // The would-be heir still cannot do what only the owner may: remove the owner, hand the team on.
      const removeOwner = await ctx.request({
        method: 'DELETE',
        url: `/api/v1/teams/${owner.teamId}/members/${owner.id}`,
        token: heir.token,
      });
      expect(removeOwner.statusCode).toBe(403);
      const handOn = await ctx.request({
        method: 'POST',
        url: `/api/v1/teams/${owner.teamId}/transfer`,
        token: heir.token,
        body: { user_id: heir.id },
      });
      expect(handOn.statusCode).toBe(403);

      // The heir's deletion leaves the owner in charge; the owner's takes the team and its project token.
      const { accounts } = servicesOn(ctx.db, ctx.clock);
      await accounts.deleteUser(heir.email);
      const upload = () => clientCall(ctx, apiToken, minimalReport({ project_id: project.id }));
      expect((await upload()).statusCode).toBe(201);
      await accounts.deleteUser(owner.email);
      expectClientUnauthenticated(await upload());
    });
  });
});
