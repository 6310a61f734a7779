/**
 * D5 (transport), D3 (envelope, no internals) and D2 (JSON, UTC timestamps) across /api/v1.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { countRows, type RequestOptions } from '../helpers/test-app.js';
import {
  JSON_UTF8,
  NOT_FOUND,
  expectApiHeaders,
  expectError,
  expectErrorLike,
  expectNoInternals,
  expectValidationError,
  sha256,
} from '../helpers/contract.js';

/**
 * A fresh app for each test, always with `user` and its project Existing (`projectId`), which the
 * counts below expect; `call` is a request as `user`, checked for what every answer here must have.
 */
const it = appTest({ project: { name: 'Existing' } })
  .extend('existing', { auto: true }, async ({ project }) => project)
  .extend('call', ({ ctx, user }) => async (options: Omit<RequestOptions, 'token'> & { token?: string }) => {
    const response = await ctx.request({ token: user.token, ...options });
    expect(response.headers['content-type']).toBe(JSON_UTF8);
    expectNoInternals(response);
    return response;
  })
  .extend('bodyEndpoints', ({ projectId }) => [
    { method: 'POST' as const, url: '/api/v1/projects' },
    { method: 'PUT' as const, url: `/api/v1/projects/${projectId}` },
    { method: 'POST' as const, url: '/api/v1/tokens' },
  ]);

describe('D5: a body that is not JSON gets 415', () => {
  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
    it(`answers 415 Unsupported Media Type for content-type ${contentType} on every body endpoint`, async ({
      call,
      bodyEndpoints,
      ctx,
    }) => {
      for (const { method, url } of bodyEndpoints) {
        const response = await call({ method, url, body: 'name=Shop&framework_version=11', headers: { 'content-type': contentType } });
        expectApiHeaders(response);
        expectErrorLike(response, 415, 'Unsupported Media Type', /JSON/);
      }
      expect(await countRows(ctx.db, 'projects')).toBe(1);
    });
  }

  it('answers 415 for a text/plain body that happens to contain valid JSON', async ({ call, ctx }) => {
    const response = await call({
      method: 'POST',
      url: '/api/v1/projects',
      body: JSON.stringify({ name: 'Shop', framework_version: '11' }),
      headers: { 'content-type': 'text/plain' },
    });
    expectErrorLike(response, 415, 'Unsupported Media Type', /JSON/);
    expect(await countRows(ctx.db, 'projects')).toBe(1);
  });
});

describe('D5: bodies that are JSON but unusable get 400', () => {
  it('answers 400 Bad Request for malformed JSON', async ({ call, bodyEndpoints }) => {
    for (const { method, url } of bodyEndpoints) {
      const response = await call({ method, url, body: '{"name": "Shop",', headers: { 'content-type': 'application/json' } });
      expectApiHeaders(response);
      expectErrorLike(response, 400, 'Bad Request', /JSON/);
    }
  });

  for (const raw of ['[]', '"x"', 'null', '42', 'true']) {
    it(`answers 400 for the JSON value ${raw}, which is not an object, on POST /projects`, async ({ call, ctx }) => {
      const response = await call({ method: 'POST', url: '/api/v1/projects', body: raw, headers: { 'content-type': 'application/json' } });
      expectErrorLike(response, 400, 'Bad Request', /.+/);
      expect(await countRows(ctx.db, 'projects')).toBe(1);
    });
  }

  it('answers 400, not a 500 from a blown stack, for a body nested hundreds of thousands of levels deep', async ({
    call,
    bodyEndpoints,
    ctx,
  }) => {
    const deepArrays = `{"name":${'['.repeat(400_000)}${']'.repeat(400_000)},"framework_version":"11"}`;
    const deepObjects = `{"name":"Shop","framework_version":"11","x":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    for (const body of [deepArrays, deepObjects]) {
      for (const { method, url } of bodyEndpoints) {
        const response = await call({ method, url, body, headers: { 'content-type': 'application/json' } });
        expectApiHeaders(response);
        expectErrorLike(response, 400, 'Bad Request', /nested more than 32 levels/);
      }
    }
    expect(await countRows(ctx.db, 'projects')).toBe(1);
  });

  it('accepts bodies nested up to 32 levels in ignored fields', async ({ call }) => {
    const body = `{"name":"Shop","framework_version":"11","x":${'['.repeat(31)}${']'.repeat(31)}}`;
    const response = await call({ method: 'POST', url: '/api/v1/projects', body, headers: { 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(201);
  });

  it('answers 400 for an empty body sent as application/json', async ({ call, bodyEndpoints }) => {
    for (const { method, url } of bodyEndpoints) {
      const response = await call({ method, url, body: '', headers: { 'content-type': 'application/json' } });
      expectErrorLike(response, 400, 'Bad Request', /.+/);
    }
  });
});

describe('D5: bodies over 1 MiB get 413', () => {
  const oversized = JSON.stringify({ name: 'x'.repeat(1024 * 1024), framework_version: '11' });

  it('answers 413 Payload Too Large naming the limit on every body endpoint', async ({ call, bodyEndpoints, ctx }) => {
    expect(Buffer.byteLength(oversized)).toBeGreaterThan(1024 * 1024);
    for (const { method, url } of bodyEndpoints) {
      const response = await call({ method, url, body: oversized });
      expectApiHeaders(response);
      expectErrorLike(response, 413, 'Payload Too Large', /1 ?MiB|1,?048,?576/);
    }
    expect(await countRows(ctx.db, 'projects')).toBe(1);
  });

  it('reads a body of exactly 1 MiB (and then validates it: 422)', async ({ call }) => {
    const prefix = '{"framework_version":"11","name":"';
    const body = `${prefix + 'x'.repeat(1024 * 1024 - prefix.length - 2)}"}`;
    expect(Buffer.byteLength(body)).toBe(1024 * 1024);
    const response = await call({ method: 'POST', url: '/api/v1/projects', body });
    expect(response.statusCode).toBe(422);
    expect(response.json().errors).toEqual({ name: ['The name may not be greater than 255 characters.'] });
  });
});

describe('D5: unknown paths get 404, unsupported methods 405', () => {
  it('answers an unknown path under /api/v1 with the exact 404 envelope and the rate-limit headers', async ({ call }) => {
    const response = await call({ method: 'GET', url: '/api/v1/nope' });
    expectApiHeaders(response);
    expectError(response, 404, NOT_FOUND);
  });

  it('answers an unknown path outside /api/v1 with the exact 404 envelope', async ({ call }) => {
    // (`/` is the dashboard, E7: test/web/dashboard-serving.test.ts.)
    for (const url of ['/nope', '/projects', '/assets/nope.js', '/sign-in/more']) {
      expectError(await call({ method: 'GET', url }), 404, NOT_FOUND);
    }
  });

  it('answers an unknown path under /api outside /api/v1 for the client package: with success false', async ({ call }) => {
    // CLIENT-WIRE.md: the client package reads `success` and `message` from every /api answer.
    const response = await call({ method: 'GET', url: '/api/v2/projects' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ success: false, ...NOT_FOUND });
  });

  /** `{project}` stands for the project's id. */
  const cases = [
    { method: 'PATCH', path: '/api/v1/projects', allow: ['GET', 'HEAD', 'POST'] },
    { method: 'DELETE', path: '/api/v1/projects', allow: ['GET', 'HEAD', 'POST'] },
    { method: 'PATCH', path: '/api/v1/projects/{project}', allow: ['DELETE', 'GET', 'HEAD', 'PUT'] },
    { method: 'POST', path: '/api/v1/projects/{project}', allow: ['DELETE', 'GET', 'HEAD', 'PUT'] },
    { method: 'GET', path: '/api/v1/projects/{project}/regenerate-token', allow: ['POST'] },
    { method: 'PUT', path: '/api/v1/projects/{project}/archive', allow: ['POST'] },
    { method: 'PUT', path: '/api/v1/tokens', allow: ['GET', 'HEAD', 'POST'] },
    { method: 'GET', path: '/api/v1/tokens/1', allow: ['DELETE'] },
  ] as const;

  for (const { method, path, allow } of cases) {
    it(`answers ${method} on a known path with 405 and Allow: ${allow.join(', ')}`, async ({ projectId, call }) => {
      const response = await call({ method, url: path.replace('{project}', projectId) });
      expectApiHeaders(response);
      expect(response.statusCode).toBe(405);
      const allowHeader = String(response.headers.allow ?? '');
      expect(
        allowHeader
          .split(',')
          .map((m) => m.trim())
          .sort(),
      ).toEqual([...allow].sort());
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(['error', 'message']);
      expect(body.error).toBe('Method Not Allowed');
      for (const allowed of allow) expect(body.message).toContain(allowed);
    });
  }

  it('answers HEAD on a GET route like GET, without a body', async ({ ctx, user }) => {
    const response = await ctx.request({ method: 'HEAD', url: '/api/v1/tokens', token: user.token });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expectApiHeaders(response);
  });
});

describe('D5: prototype keys in a body never pollute', () => {
  const attacks = [
    '{"__proto__": {"polluted": "yes"}, "name": "Proto", "framework_version": "11"}',
    '{"constructor": {"prototype": {"polluted": "yes"}}, "name": "Ctor", "framework_version": "11"}',
    '{"name": "Nested", "framework_version": "11", "settings": {"__proto__": {"polluted": "yes"}}}',
    '{"name": "tok", "abilities": ["read"], "__proto__": {"polluted": "yes"}}',
  ];

  it('answers 400 or a normal answer, never 500, and Object.prototype stays clean', async ({ call, bodyEndpoints }) => {
    for (const raw of attacks) {
      for (const { method, url } of bodyEndpoints) {
        const response = await call({ method, url, body: raw, headers: { 'content-type': 'application/json' } });
        expect([200, 201, 400, 422]).toContain(response.statusCode);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        if (response.statusCode < 300) expect(JSON.stringify(response.json())).not.toContain('polluted');
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('D5: a prototype key is refused in its own words, not as malformed JSON', () => {
  const PROTOTYPE_KEY = { error: 'Bad Request', message: 'The request body may not contain "__proto__" or "constructor.prototype" keys.' };

  it.for([
    '{"__proto__": {"polluted": "yes"}, "name": "Proto", "framework_version": "11"}',
    '{"name": "Nested", "framework_version": "11", "settings": {"__proto__": {"polluted": "yes"}}}',
    '{"constructor": {"prototype": {"polluted": "yes"}}, "name": "Ctor", "framework_version": "11"}',
  ])('answers %s with that 400 on every body endpoint, storing nothing', async (raw, { call, bodyEndpoints, ctx }) => {
    const before = await countRows(ctx.db, 'projects');
    for (const { method, url } of bodyEndpoints) {
      const response = await call({ method, url, body: raw, headers: { 'content-type': 'application/json' } });
      expectError(response, 400, PROTOTYPE_KEY);
    }
    expect(await countRows(ctx.db, 'projects')).toBe(before);
  });

  it('answers the same on the client package upload, with success: false', async ({ ctx, user }) => {
    const { apiToken } = await ctx.given.project(user, { name: 'Uploads' });
    const response = await ctx.request({
      method: 'POST',
      url: '/api/reports',
      token: apiToken,
      body: '{"results":[],"__proto__":{"polluted":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 400, body: { success: false, ...PROTOTYPE_KEY } });
  });

  it('still answers malformed JSON as malformed', async ({ call }) => {
    const response = await call({
      method: 'POST',
      url: '/api/v1/projects',
      body: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expectError(response, 400, { error: 'Bad Request', message: 'The request body is not valid JSON.' });
  });
});

describe('the reference page refuses paths outside its files in the envelope', () => {
  it.for(['/docs/static/%00', '/docs/static/a%00.js'])('answers GET %s with 400 "The request URL is not valid."', async (url, { ctx }) => {
    const response = await ctx.request({ method: 'GET', url });
    expect(response.headers['content-type']).toBe(JSON_UTF8);
    expectError(response, 400, { error: 'Bad Request', message: 'The request URL is not valid.' });
  });

  it.for([
    '/docs/static/../../package.json',
    '/docs/static/%2e%2e/%2e%2e/package.json',
    '/docs/static/..%5c..%5cpackage.json',
    '/docs/static/%2e%2e%5cpackage.json',
    '/docs/static/nothing-here.js',
  ])('answers GET %s with the 404 envelope', async (url, { ctx }) => {
    expectError(await ctx.request({ method: 'GET', url }), 404, NOT_FOUND);
  });

  it.for(['', '?x=1', '?url=https://evil.example/'])(
    'redirects GET /docs/static/index.html%s to the page, never to the same URL (D36), and drops the query',
    async (query, { ctx }) => {
      const response = await ctx.request({ method: 'GET', url: `/docs/static/index.html${query}` });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('/docs/');
      expect((await ctx.request({ method: 'GET', url: response.headers.location as string })).statusCode).toBe(200);
    },
  );
});

describe('D3: no internals in any answer', () => {
  // Fastify's router rejects these before our hooks run; D3 still wants the envelope and D8 the headers.
  it('answers a {project} or {token} longer than the router allows with the 404 envelope (D11, D9)', async ({ call }) => {
    for (const url of [
      `/api/v1/projects/${'x'.repeat(101)}`,
      `/api/v1/projects/${'x'.repeat(5000)}`,
      `/api/v1/tokens/${'1'.repeat(200)}`,
    ]) {
      const response = await call({ method: url.includes('tokens') ? 'DELETE' : 'GET', url });
      expectApiHeaders(response);
      expectError(response, 404, NOT_FOUND);
    }
  });

  it('answers a path with broken percent-encoding with a 400 in the D3 envelope, not echoing the URL', async ({ call }) => {
    for (const url of ['/api/v1/projects/%zz', '/api/v1/tokens/%E0%A4%A']) {
      const response = await call({ method: 'GET', url });
      expectApiHeaders(response);
      expectErrorLike(response, 400, 'Bad Request', /^(?!.*%).+$/);
    }
  });

  it('answers a page number past 2147483647 with 422, not a server error (D27)', async ({ call }) => {
    const response = await call({ method: 'GET', url: '/api/v1/projects?page=99999999999999999999' });
    expectValidationError(response, ['page']);
  });

  it('never shows a stack trace, SQL or a path, whatever goes wrong', async ({ call }) => {
    const requests: Parameters<typeof call>[0][] = [
      { method: 'GET', url: '/api/v1/projects?page=1e300' },
      { method: 'GET', url: '/api/v1/projects?page=-1' },
      { method: 'DELETE', url: '/api/v1/tokens/99999999999999999999999' },
      {
        method: 'POST',
        url: '/api/v1/projects',
        body: '{"name":"\\ud800","framework_version":"11"}',
        headers: { 'content-type': 'application/json' },
      },
      { method: 'POST', url: '/api/v1/tokens', body: { name: 'x', abilities: ['read'], expires_at: '9999-99-99' } },
      { method: 'POST', url: '/api/v1/projects', body: `{"a":${'['.repeat(5000)}`, headers: { 'content-type': 'application/json' } },
      { method: 'GET', url: '/api/v1/projects', token: `service_${'A'.repeat(40)}zzzzzzzz` },
    ];
    for (const request of requests) {
      const response = await call(request);
      if (response.statusCode >= 400) {
        const body = response.json();
        expect(typeof body.error).toBe('string');
        expect(typeof body.message).toBe('string');
      }
    }
  });
});

describe('D2: timestamps are UTC with milliseconds and Z', () => {
  const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

  /** Every non-null string under a key ending in `_at`, with its path. */
  function timestamps(value: unknown, path = ''): [string, string][] {
    if (Array.isArray(value)) return value.flatMap((item, i) => timestamps(item, `${path}.${i}`));
    if (value === null || typeof value !== 'object') return [];
    return Object.entries(value).flatMap(([key, item]) =>
      key.endsWith('_at') && typeof item === 'string' ? [[`${path}.${key}`, item] as [string, string]] : timestamps(item, `${path}.${key}`),
    );
  }

  it('writes every *_at of projects, reports and tokens as YYYY-MM-DDTHH:mm:ss.sssZ', async ({ ctx, projectId, call }) => {
    await ctx.given.report(projectId);
    const created = await call({
      method: 'POST',
      url: '/api/v1/tokens',
      body: { name: 'ci', abilities: ['read'], expires_at: '2027-01-01T12:00:00+02:00' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().token.expires_at).toBe('2027-01-01T10:00:00.000Z');

    const responses: LightMyRequestResponse[] = [
      created,
      await call({ method: 'POST', url: '/api/v1/projects', body: { name: 'New', framework_version: 12 } }),
      await call({ method: 'POST', url: `/api/v1/projects/${projectId}/archive` }),
      await call({ method: 'GET', url: `/api/v1/projects/${projectId}` }),
      await call({ method: 'GET', url: '/api/v1/projects' }),
      await call({ method: 'GET', url: '/api/v1/tokens' }),
    ];
    const found = responses.flatMap((response) => timestamps(response.json()));
    const keys = new Set(found.map(([path]) => path.split('.').pop()));
    for (const key of ['created_at', 'archived_at', 'analyzed_at', 'expires_at', 'last_used_at']) expect(keys).toContain(key);
    for (const [path, value] of found) expect({ path, value }).toEqual({ path, value: expect.stringMatching(ISO_Z) });
  });
});

describe('D5: unknown body fields are ignored, never stored', () => {
  const junk = {
    id: '00000000-0000-7000-8000-000000000000',
    team_id: 999,
    api_token: 'A'.repeat(40),
    archived_at: '2020-01-01T00:00:00.000Z',
    created_at: '2020-01-01T00:00:00.000Z',
    favourite_colour: 'green',
  };

  it('creates a project with its own id, team, token and timestamps whatever the body says', async ({ ctx, user, call }) => {
    const response = await call({ method: 'POST', url: '/api/v1/projects', body: { name: 'Shop', framework_version: '11', ...junk } });
    expect(response.statusCode).toBe(201);
    const { project, api_token } = response.json();
    expect(project).toMatchObject({ team_id: user.teamId, archived_at: null, created_at: ctx.clock.now().toISOString() });
    expect(project.id).not.toBe(junk.id);
    expect(project).not.toHaveProperty('favourite_colour');
    expect(api_token).not.toBe(junk.api_token);

    const row = await ctx.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ team_id: user.teamId, archived_at: null, created_at: ctx.clock.now().toISOString() });
    expect(row.api_token_hash).toBe(sha256(api_token));
    expect(await ctx.db.selectFrom('projects').select('id').where('id', '=', junk.id).executeTakeFirst()).toBeUndefined();
  });

  it('updates a project without touching id, team, token or timestamps the body names', async ({ ctx, user, projectId, call }) => {
    const before = await ctx.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow();
    ctx.clock.advance(5_000);
    const response = await call({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}`,
      body: { name: 'Renamed', framework_version: '12', ...junk },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      id: projectId,
      name: 'Renamed',
      team_id: user.teamId,
      archived_at: null,
      created_at: before.created_at,
    });

    const after = await ctx.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow();
    expect(after).toMatchObject({
      team_id: before.team_id,
      api_token_hash: before.api_token_hash,
      archived_at: null,
      created_at: before.created_at,
      name: 'Renamed',
    });
  });

  it('creates a token for the caller with fresh metadata whatever the body says', async ({ ctx, user, call }) => {
    const other = await ctx.given.user();
    const response = await call({
      method: 'POST',
      url: '/api/v1/tokens',
      body: {
        name: 'ci',
        abilities: ['read'],
        id: 1,
        user_id: other.id,
        last_used_at: junk.created_at,
        created_at: junk.created_at,
        favourite_colour: 'green',
      },
    });
    expect(response.statusCode).toBe(201);
    const { token } = response.json();
    expect(token).toEqual({
      id: expect.any(Number),
      name: 'ci',
      abilities: ['read'],
      last_used_at: null,
      expires_at: null,
      created_at: ctx.clock.now().toISOString(),
    });
    const row = await ctx.db.selectFrom('personal_access_tokens').selectAll().where('id', '=', token.id).executeTakeFirstOrThrow();
    expect(row.user_id).toBe(user.id);
  });
});
