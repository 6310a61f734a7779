/**
 * OWASP API Security Top 10 (2023), API8: Security Misconfiguration.
 *
 * - Security headers (@fastify/helmet, src/http/security-headers.ts) on EVERY kind of answer: success,
 *   D3 errors of each status, unknown routes, the client package's answers, 429, the operational
 *   endpoints, an URL the router cannot decode, a 500. The API's policy is the strictest
 *   (`default-src 'none'`, no framing, no referrer); /docs has its own policy, same-origin only.
 * - Nothing that advertises the stack (`X-Powered-By`, a versioned `Server`), no CORS grant.
 * - Errors in production are D3's fixed envelope: no stack, SQL, file path or parser message.
 * - TRACE and OPTIONS do not reflect the request back.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import type { App } from '../../src/http/app-types.js';
import { expectError, expectNoInternals, freshAddress } from '../helpers/contract.js';
import { clientCall, minimalReport, upload } from '../helpers/client-wire.js';
import { send } from '../helpers/test-app.js';

/** The headers every answer of the API carries (the API policy). */
function expectApiSecurityHeaders(response: LightMyRequestResponse, name: string) {
  const h = response.headers;
  expect(h['x-content-type-options'], name).toBe('nosniff');
  expect(h['x-frame-options'], name).toBe('DENY');
  expect(String(h['content-security-policy']), name).toContain("default-src 'none'");
  expect(String(h['content-security-policy']), name).toContain("frame-ancestors 'none'");
  expect(h['referrer-policy'], name).toBe('no-referrer');
  expect(h['cross-origin-resource-policy'], name).toBe('same-origin');
  expect(String(h['strict-transport-security']), name).toMatch(/max-age=\d+/);
  expectNothingAdvertised(response, name);
}

/** No stack advertisement and no CORS grant, on any answer. */
function expectNothingAdvertised(response: LightMyRequestResponse, name: string) {
  const h = response.headers;
  expect(h['x-powered-by'], name).toBeUndefined();
  expect(h['access-control-allow-origin'], name).toBeUndefined();
  expect(h['access-control-allow-credentials'], name).toBeUndefined();
  if (h.server !== undefined) expect(String(h.server), name).not.toMatch(/\d/);
}

/** One app for the file's header tests, with a user and a project. */
const it = sharedAppTest({ project: { name: 'Headers' } }).extend(
  'answers',
  /** One request per kind of answer the service gives, with the status it must have. */
  ({ ctx, user, projectId, apiToken }) =>
    async (): Promise<[string, number, LightMyRequestResponse][]> => {
      const limitedIp = freshAddress();
      for (let i = 0; i < 10; i++) await ctx.request({ method: 'GET', url: '/api/v1/tokens', remoteAddress: limitedIp });
      const clientLimitedIp = freshAddress();
      for (let i = 0; i < 10; i++) await clientCall(ctx, null, undefined, { url: '/api/project', remoteAddress: clientLimitedIp });
      const json = { 'content-type': 'application/json' };
      return [
        ['200 v1 read', 200, await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token })],
        [
          '201 v1 create',
          201,
          await ctx.request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: { name: 'H', framework_version: '11' } }),
        ],
        ['HEAD v1', 200, await ctx.request({ method: 'HEAD', url: '/api/v1/tokens', token: user.token })],
        [
          '400 malformed JSON',
          400,
          await ctx.request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: '{"name":', headers: json }),
        ],
        ['400 undecodable URL', 400, await ctx.request({ method: 'GET', url: '/api/v1/projects/%zz', token: user.token })],
        ['401 v1', 401, await ctx.request({ method: 'GET', url: '/api/v1/tokens', remoteAddress: freshAddress() })],
        [
          '403 v1',
          403,
          await ctx.request({
            method: 'POST',
            url: '/api/v1/tokens',
            token: await ctx.given.token(user, { abilities: ['read'] }),
            body: { name: 'x', abilities: ['read'] },
          }),
        ],
        ['404 v1 resource', 404, await ctx.request({ method: 'GET', url: '/api/v1/projects/nope', token: user.token })],
        ['404 unknown v1 path', 404, await ctx.request({ method: 'GET', url: '/api/v1/nope', token: user.token })],
        ['404 unknown path', 404, await ctx.request({ method: 'GET', url: '/nope' })],
        // (`/` is the dashboard, with its own page policy: below.)
        ['404 a path beside the dashboard', 404, await ctx.request({ method: 'GET', url: '/projects' })],
        ['405 v1', 405, await ctx.request({ method: 'PATCH', url: '/api/v1/projects', token: user.token })],
        [
          '413 v1',
          413,
          await ctx.request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: { name: 'x'.repeat(1024 * 1024 + 1) } }),
        ],
        [
          '415 v1',
          415,
          await ctx.request({
            method: 'POST',
            url: '/api/v1/projects',
            token: user.token,
            body: 'x',
            headers: { 'content-type': 'text/plain' },
          }),
        ],
        ['422 v1', 422, await ctx.request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: {} })],
        ['429 v1', 429, await ctx.request({ method: 'GET', url: '/api/v1/tokens', remoteAddress: limitedIp })],
        ['201 client upload', 201, await upload(ctx, apiToken, minimalReport({ project_id: projectId }))],
        ['200 client verify', 200, await clientCall(ctx, apiToken, undefined, { url: '/api/token/verify' })],
        ['401 client', 401, await clientCall(ctx, null, undefined, { url: '/api/project', remoteAddress: freshAddress() })],
        ['404 client unknown path', 404, await clientCall(ctx, apiToken, undefined, { url: '/api/nope' })],
        ['422 client', 422, await upload(ctx, apiToken, { results: 'nope' })],
        ['429 client', 429, await clientCall(ctx, null, undefined, { url: '/api/project', remoteAddress: clientLimitedIp })],
        ['200 healthz', 200, await ctx.request({ method: 'GET', url: '/healthz' })],
        ['200 readyz', 200, await ctx.request({ method: 'GET', url: '/readyz' })],
        ['200 metrics', 200, await ctx.request({ method: 'GET', url: '/metrics' })],
        ['200 openapi.json', 200, await ctx.request({ method: 'GET', url: '/api/v1/openapi.json' })],
      ];
    },
);

describe('API8 security headers on every kind of answer', () => {
  it('sets the API policy headers on every answer, and nothing that advertises the stack or grants CORS', async ({ answers }) => {
    const all = await answers();
    for (const [name, status, response] of all) {
      expect(response.statusCode, `${name}: ${response.body.slice(0, 200)}`).toBe(status);
      expectApiSecurityHeaders(response, name);
    }
  });

  it('marks every /api/v1 answer Cache-Control: no-store (D36), errors, the document and sign-in included', async ({
    ctx,
    user,
    answers,
  }) => {
    const all = await answers();
    const onApiV1 = all.filter(([name]) => /v1|malformed JSON|undecodable URL|openapi\.json/.test(name));
    expect(onApiV1.length).toBeGreaterThanOrEqual(15);
    const signIn = await ctx.request({ method: 'POST', url: '/api/v1/session', body: { email: user.email, password: 'not the password' } });
    for (const [name, , response] of [...onApiV1, ['401 sign-in', 401, signIn] as const]) {
      expect(response.headers['cache-control'], name).toBe('no-store');
    }
  });

  it('gives /docs and its assets a same-origin policy: no wildcard, no remote host, no framing', async ({ ctx }) => {
    const pages = ['/docs', '/docs/', '/docs/static/index.html', '/docs/static/swagger-initializer.js', '/docs/static/swagger-ui.css'];
    for (const url of pages) {
      const response = await ctx.request({ method: 'GET', url });
      expect(response.statusCode, url).toBeLessThan(400);
      const directives = directivesOf(response);
      expect(directives['default-src'], url).toEqual(["'none'"]);
      expect(directives['frame-ancestors'], url).toEqual(["'none'"]);
      for (const [name, sources] of Object.entries(directives)) {
        for (const source of sources as string[]) {
          // Only keywords ('self', 'none', 'unsafe-inline') and data: for images and fonts; never `*` or a host.
          expect(source, `${url} ${name}`).toMatch(/^'(self|none|unsafe-inline)'$|^data:$/);
        }
      }
      expect(directives['script-src'], url).not.toContain("'unsafe-inline'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expectNothingAdvertised(response, url);
    }
  });

  it('gives the dashboard (E7) a same-origin policy without inline scripts: no wildcard, no remote host, no framing', async ({ ctx }) => {
    const page = await ctx.request({ method: 'GET', url: '/' });
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(asset, 'the page names its script').toBeDefined();
    for (const [url, response] of [
      ['/', page],
      ['/reports/x', await ctx.request({ method: 'GET', url: '/reports/x' })],
      [asset!, await ctx.request({ method: 'GET', url: asset! })],
    ] as const) {
      expect(response.statusCode, url).toBe(200);
      const directives = directivesOf(response);
      if (url !== asset) {
        // The page's own policy; an asset keeps the API's `default-src 'none'`, which is stricter still.
        expect(directives['default-src'], url).toEqual(["'self'"]);
        expect(directives['script-src'], url).toEqual(["'self'"]);
        expect(directives['style-src'], url).toEqual(["'self'"]);
      }
      expect(directives['frame-ancestors'], url).toEqual(["'none'"]);
      for (const [name, sources] of Object.entries(directives)) {
        for (const source of sources as string[]) expect(source, `${url} ${name}`).toMatch(/^'(self|none)'$|^data:$/);
      }
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expectNothingAdvertised(response, url);
    }
  });

  it('sends the same headers over a real socket, with no Server or X-Powered-By header', async ({ port }) => {
    for (const path of ['/healthz', '/api/v1/tokens', '/api/project', '/nope']) {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      await response.arrayBuffer();
      expect(response.headers.get('x-powered-by'), path).toBeNull();
      expect(response.headers.get('server'), path).toBeNull();
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('content-security-policy'), path).toContain("default-src 'none'");
    }
  });

  it('answers TRACE and OPTIONS without reflecting the request and without a CORS grant', async ({ ctx, user, projectId }) => {
    const marker = '<script>reflected-4242</script>';
    for (const method of ['TRACE', 'OPTIONS'] as const) {
      for (const url of ['/api/v1/projects', `/api/v1/projects/${projectId}`, '/api/reports', '/api/project', '/healthz', '/nope']) {
        const response = await ctx.app.inject({
          method: method as InjectOptions['method'], // light-my-request's type omits TRACE; it sends it
          url: `${url}?q=${encodeURIComponent(marker)}`,
          headers: {
            authorization: `Bearer ${user.token}`,
            origin: 'https://evil.example',
            'access-control-request-method': 'DELETE',
            'x-reflect': marker,
            cookie: `c=${marker}`,
          },
          remoteAddress: freshAddress(),
        });
        const name = `${method} ${url}`;
        expect([401, 404, 405], `${name}: ${response.body}`).toContain(response.statusCode);
        for (const text of [response.body, JSON.stringify(response.headers)]) {
          expect(text, name).not.toContain('reflected-4242');
          expect(text, name).not.toContain(user.token);
          expect(text, name).not.toContain('evil.example');
        }
        expect(response.headers['content-type'], name).toMatch(/^application\/json/);
        expectApiSecurityHeaders(response, name);
      }
    }
  });
});

const SECRET_DETAIL = 'select * from personal_access_tokens where token_hash = $1 /work/main/src/secret.ts:42';

/**
 * Another app for the file: one like the production one on the test's store, with routes that fail
 * the way a bug would; `destroyed` is set by the test that destroys its database.
 */
const productionIt = sharedAppTest().extend('production', { scope: 'file' }, async ({ ctx }, { onCleanup }) => {
  const db: Db = ctx.store.open();
  const config = loadConfig({ ...ctx.store.env, NODE_ENV: 'production', LOG_LEVEL: 'silent' });
  expect(config.isProduction).toBe(true);
  const app: App = await createApp(config, { db, clock: ctx.clock });
  app.get('/api/v1/failing', { config: { ability: 'read' } }, async () => {
    throw new Error(SECRET_DETAIL);
  });
  app.get('/api/failing', { config: { clientApi: { rateGroup: 'reads' } } }, async () => {
    throw Object.assign(new TypeError(SECRET_DETAIL), { code: 'SQLITE_ERROR', sql: SECRET_DETAIL });
  });
  await app.ready();
  const production = { app, db, destroyed: false };
  onCleanup(async () => {
    await app.close();
    if (!production.destroyed) await db.destroy();
  });
  return production;
});

describe('API8 errors without internals in production (NODE_ENV=production)', () => {
  productionIt('answers an unexpected error on /api/v1 with exactly the D3 500 envelope', async ({ user, production: { app } }) => {
    const response = await send(app, { method: 'GET', url: '/api/v1/failing', token: user.token });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: 'Server Error', message: 'Something went wrong on our side. Please try again later.' });
    expectNoInternals(response);
    expect(response.body).not.toContain('personal_access_tokens');
    expectApiSecurityHeaders(response, '500');
  });

  productionIt('answers an unexpected error on /api with the same envelope and success:false', async ({ production: { app } }) => {
    const response = await send(app, { method: 'GET', url: '/api/failing' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      success: false,
      error: 'Server Error',
      message: 'Something went wrong on our side. Please try again later.',
    });
    expectNoInternals(response);
    expectApiSecurityHeaders(response, '500 client');
  });

  productionIt("answers malformed JSON with our fixed sentence, not the parser's message", async ({ ctx, user, production: { app } }) => {
    const bodies = ['{"name": "x",', '{"a":1}}', "{'a':1}", '{"a":01}', '\u0000', '{"a":"\\x"}'];
    for (const body of bodies) {
      for (const [url, token] of [
        ['/api/v1/projects', user.token],
        ['/api/reports', null],
      ] as const) {
        const response = await send(app, {
          method: 'POST',
          url,
          token: token ?? (await ctx.given.project(user)).apiToken,
          body,
          headers: { 'content-type': 'application/json' },
        });
        expect(response.statusCode, `${url} ${JSON.stringify(body)}`).toBe(400);
        const answer = response.json();
        expect(answer.message).toBe('The request body is not valid JSON.');
        expect(response.body).not.toMatch(/Unexpected|position|token|JSON\.parse|SyntaxError/);
        expectNoInternals(response);
      }
    }
  });

  // A destroyed Kysely instance is not an outage (that is 503: test/faults/database-unavailable.test.ts)
  // but a failure inside the service: the fixed 500 envelope, with nothing of the driver's words.
  productionIt('answers a failure in the database layer with the fixed 500 envelope, no driver message', async ({ user, production }) => {
    await production.db.destroy();
    production.destroyed = true;
    const response = await send(production.app, { method: 'GET', url: '/api/v1/tokens', token: user.token, remoteAddress: freshAddress() });
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    expectError(response, 500, { error: 'Server Error', message: 'Something went wrong on our side. Please try again later.' });
    expectNoInternals(response);
    expect(response.body).not.toMatch(/destroyed|driver|pool|kysely/i);
    expectApiSecurityHeaders(response, '5xx database gone');
  });
});

/** A Content-Security-Policy header as `{directive: [sources]}`. */
function directivesOf(response: { headers: Record<string, unknown> }): Record<string, string[]> {
  return Object.fromEntries(
    String(response.headers['content-security-policy'])
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}
