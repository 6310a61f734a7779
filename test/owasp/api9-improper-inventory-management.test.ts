/**
 * OWASP API Security Top 10 (2023), API9: Improper Inventory Management.
 *
 * The inventory is the OpenAPI document (/api/v1/openapi.json, issue 5); what the app really serves
 * is its route table (`app.routeTable`). They must agree: every route served under /api is
 * documented, every documented operation is served, and the only undocumented routes are the named
 * operational and documentation ones. No forgotten debug or test route, no older API version, and
 * no other spelling of a path that reaches a handler past its checks. HEAD routes exist exactly for
 * GET routes and answer like them.
 *
 * test/openapi/document.test.ts checks the document against the ENDPOINTS table; this file checks it
 * against what the app registered.
 */
import { readdirSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import { DASHBOARD_PAGES } from '../../src/dashboard/dashboard-pages.js';
import { DEFAULT_DASHBOARD_ROOT } from '../../src/dashboard/dashboard.routes.js';
import { freshAddress } from '../helpers/contract.js';
import { MISSING_PROJECT, MISSING_REPORT, MISSING_TOKEN } from '../helpers/endpoints.js';

const it = sharedAppTest({ user: { plan: 'enterprise' } });

/** The dashboard (E7): its pages (the app's index.html) and its built assets; pages for people, not API operations. */
const DASHBOARD_ROUTES = [...Object.values(DASHBOARD_PAGES).map((path) => `GET ${path}`), 'GET /assets/*'];

/** Served but deliberately not in the document: the document itself, metrics, the /docs pages, the dashboard. */
const UNDOCUMENTED = [
  ...DASHBOARD_ROUTES,
  'GET /api/v1/openapi.json',
  'GET /metrics',
  'GET /docs',
  'GET /docs/json',
  'GET /docs/yaml',
  'GET /docs/static/index.html',
  'GET /docs/static/swagger-initializer.js',
  'GET /docs/static/*',
];

/** `/api/v1/projects/:project` -> `/api/v1/projects/{project}`. */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

describe('API9 improper inventory management', () => {
  /** Every route as `METHOD /url`, HEAD included. */
  let served: string[];
  let documented: string[];
  it.beforeAll(async ({ ctx }) => {
    served = ctx.app.routeTable.flatMap((entry) => [entry.method].flat().map((method) => `${method} ${entry.url}`));
    const response = await ctx.request({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    const paths = response.json().paths as Record<string, Record<string, unknown>>;
    documented = Object.entries(paths).flatMap(([path, operations]) => Object.keys(operations).map((m) => `${m.toUpperCase()} ${path}`));
  });

  const servedWithoutHead = () => served.filter((route) => !route.startsWith('HEAD '));
  const asDocumented = (route: string) => {
    const [method, url] = route.split(' ') as [string, string];
    return `${method} ${toOpenApiPath(url)}`;
  };

  it('documents every route the app serves, but for the named operational and /docs routes', () => {
    const undocumented = servedWithoutHead().filter((route) => !documented.includes(asDocumented(route)));
    expect(undocumented.sort()).toEqual([...UNDOCUMENTED].sort());
  });

  it('serves every documented operation', () => {
    const servedAsDocumented = servedWithoutHead().map(asDocumented);
    const ghost = documented.filter((operation) => !servedAsDocumented.includes(operation));
    expect(ghost).toEqual([]);
    expect(documented.length).toBeGreaterThanOrEqual(21);
  });

  it('serves nothing outside the API, the public badges, the operational endpoints and /docs, and no debug or test route', () => {
    for (const route of served) {
      const url = route.split(' ')[1]!;
      const dashboard = DASHBOARD_ROUTES.some((page) => page.split(' ')[1] === url);
      if (!dashboard)
        expect(url, route).toMatch(/^\/(api\/|badges\/:key\/|notifications\/unsubscribe\/:token$|healthz$|readyz$|metrics$|docs($|\/))/);
      expect(url, route).not.toMatch(/debug|test|internal|admin|phpinfo|\benv\b|config|seed|reset|dump|__/i);
    }
    // One API version: /api/v1, plus the client package's unversioned /api paths (CLIENT-WIRE.md).
    for (const route of served.filter((r) => r.includes(' /api/'))) {
      expect(route.split(' ')[1], route).not.toMatch(/^\/api\/v(?!1\/)\d/);
    }
  });

  it('has a HEAD route for every GET route and none without one', () => {
    const gets = served
      .filter((r) => r.startsWith('GET '))
      .map((r) => r.slice(4))
      .sort();
    const heads = served
      .filter((r) => r.startsWith('HEAD '))
      .map((r) => r.slice(5))
      .sort();
    expect(heads).toEqual(gets);
  });

  it('answers HEAD like GET on every GET route: same status and headers, no body', async ({ ctx, user }) => {
    // A file the build really made, for the dashboard's assets (npm test builds first).
    const asset = readdirSync(`${DEFAULT_DASHBOARD_ROOT}assets`)[0]!;
    const concrete = (url: string) =>
      url
        .replace(':project', MISSING_PROJECT)
        .replace(':report', MISSING_REPORT)
        .replace(':token', MISSING_TOKEN)
        .replace(':team', MISSING_TOKEN)
        .replace(/^\/assets\/\*$/, `/assets/${asset}`)
        .replace('*', 'index.html');
    const ignored = new Set(['date', 'x-ratelimit-remaining', 'content-length', 'transfer-encoding', 'etag', 'last-modified']);
    const comparable = (headers: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(headers).filter(([name]) => !ignored.has(name)));
    let compared = 0;
    for (const route of served.filter((r) => r.startsWith('GET '))) {
      const url = concrete(route.slice(4));
      // With and without a token: the refusals must agree too.
      for (const token of [user.token, undefined]) {
        const remoteAddress = freshAddress();
        const get = await ctx.request({ method: 'GET', url, token, remoteAddress });
        const head = await ctx.request({ method: 'HEAD', url, token, remoteAddress: freshAddress() });
        expect(head.statusCode, `HEAD ${url}`).toBe(get.statusCode);
        expect(comparable(head.headers), `HEAD ${url}`).toEqual(comparable(get.headers));
        expect(head.body, `HEAD ${url}`).toBe('');
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(20);
  });

  it('reaches no handler through another spelling of a path: old versions, case, dots, doubled slashes', async ({ ctx, user }) => {
    const spellings = [
      '/api/v0/tokens',
      '/api/v2/tokens',
      '/api/V1/tokens',
      '/API/v1/tokens',
      '/api/v1/Tokens',
      '/api//v1/tokens',
      '/api/v1//tokens',
      '/api/v1/tokens%2f',
      '/api/v1/tokens;x=1',
      '/api/v1/tokens.json',
    ];
    // (`/api/v1/./tokens`, `/api/v1/projects/../tokens` and their %2e forms are not other spellings:
    // RFC 3986 removes dot segments before the request is made, so they name /api/v1/tokens itself.)
    for (const url of spellings) {
      // With a valid token, so that reaching the tokens handler would answer 200.
      const response = await ctx.request({ method: 'GET', url, token: user.token, remoteAddress: freshAddress() });
      expect([400, 404, 405], `${url}: ${response.statusCode} ${response.body}`).toContain(response.statusCode);
      expect(response.headers['content-type'], url).toMatch(/^application\/json/);
    }
  });
});
