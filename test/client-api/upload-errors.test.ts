/**
 * CLIENT-WIRE.md "What the service does with a report" and "How the client reads the answer": every
 * refused upload answers its exact status with `{success:false, error, message}` (D3 titles), never
 * a 5xx, a stack trace or a redirect, and stores nothing.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freshAddress } from '../helpers/contract.js';
import {
  clientCall,
  countResults,
  expectClientAnswer,
  expectClientError,
  expectClientUnauthenticated,
  expectClientValidationError,
  fixtureText,
  loadFixture,
  minimalReport,
  readProject,
  storedRows,
  upload,
} from '../helpers/client-wire.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';

const MiB = 1024 * 1024;
const LIMIT = 10 * MiB;

let ctx: TestContext;
let user: TestUser;
let projectId: string;
let apiToken: string;
/** What the project looked like before the refused request: one stored report, its latest. */
let before: { rows: { reports: number; failures: number }; latest: unknown };

beforeEach(async () => {
  ctx = await buildTestApp();
  user = await ctx.given.user();
  ({
    project: { id: projectId },
    apiToken,
  } = await ctx.given.project(user, { name: 'Target' }));
  // A baseline report analysed at 09:00; every refused upload below is newer, so storing it would move latest_report.
  const baseline = await upload(ctx, apiToken, minimalReport({ analyzed_at: '2026-11-21T09:00:00+00:00' }));
  expect(baseline.statusCode).toBe(201);
  before = await snapshot();
});
afterEach(async () => ctx.close());

async function snapshot(id = projectId) {
  return { rows: await storedRows(ctx), latest: (await readProject(ctx, user, id)).latest_report };
}

/** A valid body analysed after the baseline. */
const newerReport = (overrides: Record<string, unknown> = {}) => minimalReport({ analyzed_at: '2026-11-21T09:30:00+00:00', ...overrides });

/** The refusal stored nothing: row counts and latest_report as before. */
async function expectNothingStored() {
  expect(await snapshot()).toEqual(before);
}

/** Well-formed (40 characters of [A-Za-z0-9]) but nobody's token. */
const unknownToken = () =>
  randomBytes(30)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, 'x')
    .slice(0, 40);

describe('401: an upload without a valid project API token', () => {
  const cases: { name: string; authorization: string | null }[] = [
    { name: 'no Authorization header', authorization: null },
    { name: '"Bearer" with nothing after it', authorization: 'Bearer' },
    { name: '"Bearer " with a space only', authorization: 'Bearer ' },
    { name: 'a wrong token of the right shape', authorization: `Bearer ${unknownToken()}` },
    { name: 'a token of the wrong shape', authorization: 'Bearer not-a-token' },
    { name: 'another scheme', authorization: 'Basic dXNlcjpwYXNz' },
  ];
  for (const { name, authorization } of cases) {
    it(`answers 401 {success:false, error:"Unauthenticated"} for ${name}`, async () => {
      const headers = authorization === null ? {} : { authorization };
      const response = await upload(ctx, null, newerReport(), { headers, remoteAddress: freshAddress() });
      expectClientUnauthenticated(response);
      await expectNothingStored();
    });
  }

  it('answers 401 for the token with a suffix or cut short', async () => {
    for (const token of [`${apiToken}x`, apiToken.slice(0, 39), ` ${apiToken}x`]) {
      expectClientUnauthenticated(await upload(ctx, token, newerReport(), { remoteAddress: freshAddress() }));
    }
    await expectNothingStored();
  });

  it('answers 401 for a personal access token (service_…), which is not a project token', async () => {
    expectClientUnauthenticated(await upload(ctx, user.token, newerReport(), { remoteAddress: freshAddress() }));
    await expectNothingStored();
  });

  it('refuses a token regenerated away at once, and accepts the new one (D10)', async () => {
    const regenerated = await ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/regenerate-token`, token: user.token });
    expect(regenerated.statusCode).toBe(200);
    const newToken = regenerated.json().api_token as string;

    expectClientUnauthenticated(await upload(ctx, apiToken, newerReport(), { remoteAddress: freshAddress() }));
    expectClientUnauthenticated(
      await upload(ctx, apiToken, { project_id: 'unknown', failure_reason: 'uncaught_exception' }, { url: '/api/reports/failure' }),
    );
    await expectNothingStored();

    expect((await upload(ctx, newToken, newerReport())).statusCode).toBe(201);
  });

  it('refuses the token of a deleted project', async () => {
    const deleted = await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${projectId}`, token: user.token });
    expect(deleted.statusCode).toBe(200);
    expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 0 });

    expectClientUnauthenticated(await upload(ctx, apiToken, newerReport()));
    expectClientUnauthenticated(await upload(ctx, apiToken, loadFixture('failure'), { url: '/api/reports/failure' }));
    expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 0 });
  });

  it('answers 401 on the failure endpoint without a token, storing no failure', async () => {
    const response = await upload(ctx, null, loadFixture('failure', projectId), {
      url: '/api/reports/failure',
      remoteAddress: freshAddress(),
    });
    expectClientUnauthenticated(response);
    await expectNothingStored();
  });
});

describe('409: an archived project accepts no uploads (D17, CLIENT-WIRE.md)', () => {
  const archive = async (action: 'archive' | 'unarchive') => {
    const response = await ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/${action}`, token: user.token });
    expect(response.statusCode, response.body).toBe(200);
  };

  it('answers 409 {success:false, error:"Conflict"} to an upload to an archived project, and 201 again after unarchive', async () => {
    await archive('archive');
    before = await snapshot();
    const refused = await upload(ctx, apiToken, fixtureText('report-small', projectId));
    expectClientError(refused, 409, 'Conflict', /archived/i);
    await expectNothingStored();

    await archive('unarchive');
    const again = loadFixture('report-small', projectId);
    again.analyzed_at = '2026-11-21T09:30:00+00:00';
    const accepted = await upload(ctx, apiToken, again);
    expect(accepted.statusCode).toBe(201);
    expect(accepted.json().success).toBe(true);
    expect((await readProject(ctx, user, projectId)).latest_report.uuid).toBe(accepted.json().report.uuid);
  });

  it('answers 409 on the alias POST /api/v1/reports too', async () => {
    await archive('archive');
    before = await snapshot();
    expectClientError(await upload(ctx, apiToken, newerReport(), { url: '/api/v1/reports' }), 409, 'Conflict');
    await expectNothingStored();
  });

  it('checks the archive before the body: an invalid body to an archived project is still 409', async () => {
    await archive('archive');
    before = await snapshot();
    expectClientError(await upload(ctx, apiToken, { project_id: 'unknown' }), 409, 'Conflict');
    await expectNothingStored();
  });
});

describe('422: bodies the schema refuses, with the dotted field path', () => {
  it('answers 422 field "results" when results is missing', async () => {
    const body = newerReport();
    delete body.results;
    const response = await upload(ctx, apiToken, body);
    expectClientValidationError(response, ['results']);
    await expectNothingStored();
  });

  for (const value of [{}, 'all passed', 42, null, { 0: { analyzer_id: 'x', status: 'passed' } }]) {
    it(`answers 422 field "results" when results is ${JSON.stringify(value)}`, async () => {
      expectClientValidationError(await upload(ctx, apiToken, newerReport({ results: value })), ['results']);
      await expectNothingStored();
    });
  }

  it('answers 422 field "results.3.status" for status "exploded" in the fourth result of a real report', async () => {
    const body = loadFixture('report-small', projectId);
    body.analyzed_at = '2026-11-21T09:30:00+00:00';
    body.results[3].status = 'exploded';
    expectClientValidationError(await upload(ctx, apiToken, body), ['results.3.status']);
    await expectNothingStored();
  });

  it("answers 422 with the path of an invalid severity deep in a result's issues", async () => {
    const body = loadFixture('report-full', projectId);
    body.analyzed_at = '2026-11-21T09:30:00+00:00';
    const resultIndex = body.results.findIndex((r: any) => r.issues.length >= 2);
    expect(resultIndex).toBeGreaterThanOrEqual(0);
    body.results[resultIndex].issues[1].severity = 'catastrophic';
    expectClientValidationError(await upload(ctx, apiToken, body), [`results.${resultIndex}.issues.1.severity`]);
    await expectNothingStored();
  });

  it('answers 422 with the path of an invalid severity in issues sent as an object keyed by position', async () => {
    const body = loadFixture('report-php-quirks');
    body.analyzed_at = '2026-11-21T09:30:00+00:00';
    const resultIndex = body.results.findIndex((r: any) => !Array.isArray(r.issues));
    expect(resultIndex).toBeGreaterThanOrEqual(0);
    body.results[resultIndex].issues['2'].severity = 'bogus';
    expectClientValidationError(await upload(ctx, apiToken, body), [`results.${resultIndex}.issues.2.severity`]);
    await expectNothingStored();
  });

  it('answers 422 for a result without analyzer_id, and for an issue without message', async () => {
    const body = newerReport();
    const results = body.results as any[];
    delete results[0].analyzer_id;
    delete results[1].issues[0].message;
    const response = await upload(ctx, apiToken, body);
    expectClientValidationError(response, ['results.0.analyzer_id', 'results.1.issues.0.message']);
    await expectNothingStored();
  });

  it('answers 422 field "project_id" for the id of another project of the same team', async () => {
    const other = await ctx.given.project(user, { name: 'Other' });
    const response = await upload(ctx, apiToken, fixtureText('report-small', other.project.id));
    expectClientValidationError(response, ['project_id']);
    await expectNothingStored();
    expect((await readProject(ctx, user, other.project.id)).latest_report).toBeNull();
  });

  it('answers 422 field "project_id" for a well-formed UUID that is no project', async () => {
    expectClientValidationError(await upload(ctx, apiToken, newerReport({ project_id: '0190c8a0-0000-7000-8000-000000000001' })), [
      'project_id',
    ]);
    await expectNothingStored();
  });

  for (const garbage of ['not-a-uuid', 'unknown-project', '12345', "0190c8a0' OR 1=1 --"]) {
    it(`answers 422 field "project_id" for the non-UUID string ${JSON.stringify(garbage)}`, async () => {
      expectClientValidationError(await upload(ctx, apiToken, newerReport({ project_id: garbage })), ['project_id']);
      await expectNothingStored();
    });
  }

  it('answers 422 for a failure with an unknown failure_reason, storing no failure', async () => {
    const body = loadFixture('failure', projectId);
    body.failure_reason = 'meteor_strike';
    const response = await upload(ctx, apiToken, body, { url: '/api/reports/failure' });
    expectClientValidationError(response, ['failure_reason']);
    await expectNothingStored();
  });

  it('answers 422 field "project_id" for a failure naming another project', async () => {
    const other = await ctx.given.project(user, { name: 'Other' });
    const response = await upload(ctx, apiToken, fixtureText('failure', other.project.id), { url: '/api/reports/failure' });
    expectClientValidationError(response, ['project_id']);
    await expectNothingStored();
  });
});

describe('415: bodies that are not JSON, or encoded in a way the service does not read', () => {
  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
    it(`answers 415 {success:false, error:"Unsupported Media Type"} for Content-Type ${contentType}`, async () => {
      const response = await upload(ctx, apiToken, fixtureText('report-small', projectId), { headers: { 'content-type': contentType } });
      expectClientError(response, 415, 'Unsupported Media Type', /JSON/);
      await expectNothingStored();
    });
  }

  for (const encoding of ['br', 'deflate']) {
    it(`answers 415 for Content-Encoding: ${encoding}`, async () => {
      const response = await upload(ctx, apiToken, fixtureText('report-small', projectId), { headers: { 'content-encoding': encoding } });
      expectClientError(response, 415, 'Unsupported Media Type', /gzip/);
      await expectNothingStored();
    });
  }
});

describe('400: bodies that are JSON content type but unusable', () => {
  it('answers 400 {success:false, error:"Bad Request"} for malformed JSON', async () => {
    const truncated = fixtureText('report-small', projectId).slice(0, 5000);
    expectClientError(await upload(ctx, apiToken, truncated), 400, 'Bad Request', /JSON/);
    await expectNothingStored();
  });

  for (const raw of ['[]', '[{"results":[]}]', '"report"', '42', 'null', 'true']) {
    it(`answers 400 for the JSON value ${raw}, which is not an object`, async () => {
      expectClientError(await upload(ctx, apiToken, raw), 400, 'Bad Request');
      await expectNothingStored();
    });
  }

  it('answers 400 for bytes sent as gzip that are not gzip', async () => {
    const response = await upload(ctx, apiToken, Buffer.from(fixtureText('report-small', projectId)), {
      headers: { 'content-encoding': 'gzip' },
    });
    expectClientError(response, 400, 'Bad Request', /gzip|decompress/i);
    await expectNothingStored();
  });

  it('answers 400 for a gzip stream cut short', async () => {
    const whole = gzipSync(Buffer.from(fixtureText('report-small', projectId)));
    const response = await upload(ctx, apiToken, whole.subarray(0, Math.floor(whole.length / 2)), {
      headers: { 'content-encoding': 'gzip' },
    });
    expectClientError(response, 400, 'Bad Request');
    await expectNothingStored();
  });
});

describe('413: the upload limit is 10 MiB, measured after gzip decompression', () => {
  /** `{"results":[]}` padded with JSON whitespace to exactly `bytes` bytes. */
  const paddedBody = (bytes: number, body = '{"results":[]') => `${body + ' '.repeat(bytes - body.length - 1)}}`;

  it('accepts an uncompressed body of exactly 10 MiB', async () => {
    const raw = paddedBody(LIMIT);
    expect(Buffer.byteLength(raw)).toBe(LIMIT);
    const response = await upload(ctx, apiToken, raw);
    expect(response.statusCode, response.body).toBe(201);
  });

  it('answers 413 {success:false, error:"Payload Too Large"} for an uncompressed body one byte over 10 MiB', async () => {
    const response = await upload(ctx, apiToken, paddedBody(LIMIT + 1));
    expectClientError(response, 413, 'Payload Too Large', /10 MiB/);
    await expectNothingStored();
  });

  it('answers 413 for a gzip bomb: tiny compressed, over 10 MiB decompressed', async () => {
    const json = JSON.stringify({ ...newerReport(), pad: ' '.repeat(11 * MiB) });
    const bomb = gzipSync(Buffer.from(json));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const response = await upload(ctx, apiToken, bomb, { headers: { 'content-encoding': 'gzip' } });
    expectClientError(response, 413, 'Payload Too Large');
    await expectNothingStored();
  });

  it('accepts a gzip body under the limit, with the same counts as uncompressed', async () => {
    const raw = fixtureText('report-full', projectId);
    const response = await upload(ctx, apiToken, gzipSync(Buffer.from(raw)), { headers: { 'content-encoding': 'gzip' } });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ success: true, message: 'Report received.', report: countResults(JSON.parse(raw).results) });
    expect(await storedRows(ctx)).toEqual({ reports: before.rows.reports + 1, failures: 0 });
  });

  it('accepts a gzip failure notification too', async () => {
    const response = await upload(ctx, apiToken, gzipSync(Buffer.from(fixtureText('failure', projectId))), {
      url: '/api/reports/failure',
      headers: { 'content-encoding': 'gzip' },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toEqual({ success: true, message: 'Failure recorded.' });
  });

  it("applies the 10 MiB upload limit on the alias POST /api/v1/reports, not v1's 1 MiB", async () => {
    const response = await upload(ctx, apiToken, paddedBody(2 * MiB, JSON.stringify(newerReport()).slice(0, -1)), {
      url: '/api/v1/reports',
    });
    expect(response.statusCode, response.body).toBe(201);
    expectClientError(await upload(ctx, apiToken, paddedBody(LIMIT + 1), { url: '/api/v1/reports' }), 413, 'Payload Too Large');
  });
});

describe('CLIENT-WIRE.md: /api/* never redirects and always answers a JSON object with success', () => {
  it('handles POST /api/reports/ (trailing slash) as the upload, not with a redirect', async () => {
    const response = await upload(ctx, apiToken, newerReport(), { url: '/api/reports/' });
    expect(response.statusCode).toBe(201);
    expect(response.headers.location).toBeUndefined();
    expect(response.json()).toMatchObject({ success: true, message: 'Report received.' });
  });

  it('handles the failure, verify and project paths with a trailing slash too', async () => {
    const failure = await upload(ctx, apiToken, loadFixture('failure', projectId), { url: '/api/reports/failure/' });
    expect(failure.statusCode).toBe(201);
    for (const url of ['/api/token/verify/', '/api/project/']) {
      const response = await clientCall(ctx, apiToken, undefined, { url });
      expect(response.statusCode, url).toBe(200);
      expect(expectClientAnswer(response).success).toBe(true);
    }
  });

  for (const [method, url] of [
    ['GET', '/api/unknown'],
    ['POST', '/api/report'],
    ['POST', '/api/v2/reports'],
    ['GET', '/api'],
    ['POST', '/api/reports/failure/extra'],
  ] as const) {
    it(`answers ${method} ${url} with 404 {success:false, error:"Not Found"}`, async () => {
      const response = await clientCall(ctx, apiToken, method === 'POST' ? newerReport() : undefined, { method, url });
      expectClientError(response, 404, 'Not Found', 'The requested resource was not found.');
      expect(response.headers.location).toBeUndefined();
      await expectNothingStored();
    });
  }

  it('answers GET /api/reports (what a redirected POST becomes) with 405, success:false and an Allow header', async () => {
    const response = await clientCall(ctx, apiToken, undefined, { url: '/api/reports' });
    expectClientError(response, 405, 'Method Not Allowed', /POST/);
    expect(response.headers.allow).toBe('POST');
    await expectNothingStored();
  });

  it('answers other wrong methods on client paths with 405 and Allow', async () => {
    const cases = [
      { method: 'PUT' as const, url: '/api/reports/failure', allow: /POST/ },
      { method: 'DELETE' as const, url: '/api/project', allow: /GET/ },
      { method: 'POST' as const, url: '/api/token/verify', allow: /GET/ },
    ];
    for (const { method, url, allow } of cases) {
      const response = await clientCall(ctx, apiToken, method === 'DELETE' ? undefined : {}, { method, url });
      expectClientError(response, 405, 'Method Not Allowed');
      expect(response.headers.allow).toMatch(allow);
    }
    await expectNothingStored();
  });
});

describe('D3: no 5xx and no internals, whatever the body', () => {
  const hostile: { name: string; body: unknown }[] = [
    { name: 'results of numbers', body: { results: [1, 2, 3] } },
    { name: 'issues of strings', body: { results: [{ analyzer_id: 'a', status: 'failed', issues: ['x'] }] } },
    { name: 'a negative execution time', body: { results: [{ analyzer_id: 'a', status: 'passed', execution_time: -1 }] } },
    { name: 'analyzed_at not a date', body: newerReport({ analyzed_at: 'yesterday' }) },
    { name: 'metadata a string', body: newerReport({ metadata: 'none' }) },
    { name: 'configuration a non-empty list', body: newerReport({ configuration: ['a'] }) },
    {
      name: 'issues keyed by names',
      body: { results: [{ analyzer_id: 'a', status: 'failed', issues: { first: { message: 'm', severity: 'low' } } }] },
    },
    {
      name: 'code_snippet lines of objects',
      body: {
        results: [{ analyzer_id: 'a', status: 'failed', issues: [{ message: 'm', severity: 'low', code_snippet: { lines: [{}] } }] }],
      },
    },
    { name: 'a prototype key', body: '{"results":[],"__proto__":{"polluted":true}}' },
    { name: 'deeply nested metadata', body: `{"results":[],"metadata":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}` },
  ];
  for (const { name, body } of hostile) {
    it(`answers ${name} with a 4xx client answer and stores nothing`, async () => {
      const response = await upload(ctx, apiToken, body);
      expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
      const answer = expectClientAnswer(response);
      expect(answer.success).toBe(false);
      expect(typeof answer.error).toBe('string');
      await expectNothingStored();
    });
  }

  it('answers an empty body with Content-Type JSON with a 4xx client answer', async () => {
    const response = await upload(ctx, apiToken, '');
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(expectClientAnswer(response).success).toBe(false);
    await expectNothingStored();
  });
});
