/**
 * CLIENT-WIRE.md "Rate limit for uploads: per project, 60 per minute by default (configurable),
 * with the same headers as D8", and D8's 10 a minute per IP for requests without a valid token.
 * Windows are fixed, 60 seconds, on the fake clock.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { TOO_MANY_MESSAGE, freshAddress } from '../helpers/contract.js';
import {
  clientCall,
  expectClientAnswer,
  expectClientError,
  expectClientUnauthenticated,
  expectRateLimitHeaders,
  minimalReport,
  storedRows,
  upload,
} from '../helpers/client-wire.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';

let ctx: TestContext;
let user: TestUser;
afterEach(async () => ctx?.close());

async function setUp(env: Record<string, string> = {}) {
  ctx = await buildTestApp({ env });
  user = await ctx.given.user();
  const { project, apiToken } = await ctx.given.project(user, { name: 'Limited' });
  return { projectId: project.id, apiToken };
}

/** A report of another run each call: an identical body would be a retry of the last one, stored once (D40). */
let runs = 0;
const anotherRun = () => minimalReport({ total_execution_time: 1 + ++runs });

/** The upload 429: the D8 body with `success: false`, Retry-After equal to retry_after, limit headers. */
function expectTooMany(response: LightMyRequestResponse, limit: number): number {
  const body = expectClientError(response, 429, 'Too Many Requests', TOO_MANY_MESSAGE, { retry_after: expect.any(Number) });
  expect(Number.isInteger(body.retry_after)).toBe(true);
  expect(body.retry_after).toBeGreaterThanOrEqual(1);
  expect(body.retry_after).toBeLessThanOrEqual(60);
  expect(response.headers['retry-after']).toBe(String(body.retry_after));
  expectRateLimitHeaders(response, limit, 0);
  return body.retry_after as number;
}

/** Sends `count` good uploads, each 201 with the headers counting down from `limit`. */
async function spend(token: string, count: number, limit: number, alreadyUsed = 0, url = '/api/reports') {
  for (let i = 1; i <= count; i++) {
    const response = await upload(ctx, token, anotherRun(), { url });
    expect(response.statusCode, response.body).toBe(201);
    expectRateLimitHeaders(response, limit, limit - alreadyUsed - i);
  }
}

describe('per-project upload limit, configured with UPLOAD_RATE_LIMIT', () => {
  it('answers the 4th upload in a window with 429 when UPLOAD_RATE_LIMIT=3, storing nothing', async () => {
    const { apiToken } = await setUp({ UPLOAD_RATE_LIMIT: '3' });
    await spend(apiToken, 3, 3);
    const over = await upload(ctx, apiToken, anotherRun());
    expect(expectTooMany(over, 3)).toBe(60);
    expect(await storedRows(ctx)).toEqual({ reports: 3, failures: 0 });
  });

  it('counts every request and puts the headers on every answer, errors included', async () => {
    const { apiToken } = await setUp({ UPLOAD_RATE_LIMIT: '3' });
    const invalid = await upload(ctx, apiToken, { project_id: 'unknown' });
    expect(invalid.statusCode).toBe(422);
    expectRateLimitHeaders(invalid, 3, 2);
    const malformed = await upload(ctx, apiToken, '{"results":');
    expect(malformed.statusCode).toBe(400);
    expectRateLimitHeaders(malformed, 3, 1);
    await spend(apiToken, 1, 3, 2);
    expectTooMany(await upload(ctx, apiToken, anotherRun()), 3);
    expect(await storedRows(ctx)).toEqual({ reports: 1, failures: 0 });
  });

  it('answers 429 before looking at the body once the budget is spent (D4: the count comes first)', async () => {
    const { apiToken } = await setUp({ UPLOAD_RATE_LIMIT: '2' });
    await spend(apiToken, 2, 2);
    expectTooMany(await upload(ctx, apiToken, '{"results":'), 2);
    expectTooMany(await upload(ctx, apiToken, 'x', { headers: { 'content-type': 'text/plain' } }), 2);
    expectTooMany(await upload(ctx, apiToken, { results: 'nope' }), 2);
  });

  it('defaults to 60 uploads a minute per project', async () => {
    const { apiToken } = await setUp();
    await spend(apiToken, 60, 60);
    expectTooMany(await upload(ctx, apiToken, anotherRun()), 60);
    expect(await storedRows(ctx)).toEqual({ reports: 60, failures: 0 });
  });

  it('gives every project its own budget', async () => {
    const first = await setUp({ UPLOAD_RATE_LIMIT: '3' });
    const second = await ctx.given.project(user, { name: 'Second' });
    await spend(first.apiToken, 3, 3);
    expectTooMany(await upload(ctx, first.apiToken, anotherRun()), 3);
    await spend(second.apiToken, 3, 3);
    expectTooMany(await upload(ctx, second.apiToken, anotherRun()), 3);
  });

  it('gives the budget back when the 60-second window ends, with Retry-After counting down', async () => {
    const { apiToken } = await setUp({ UPLOAD_RATE_LIMIT: '3' });
    await spend(apiToken, 3, 3);
    expect(expectTooMany(await upload(ctx, apiToken, anotherRun()), 3)).toBe(60);
    ctx.clock.advance(30_000);
    expect(expectTooMany(await upload(ctx, apiToken, anotherRun()), 3)).toBe(30);
    ctx.clock.advance(29_000);
    expect(expectTooMany(await upload(ctx, apiToken, anotherRun()), 3)).toBe(1);
    ctx.clock.advance(1_000);
    await spend(apiToken, 3, 3);
    expectTooMany(await upload(ctx, apiToken, anotherRun()), 3);
    expect(await storedRows(ctx)).toEqual({ reports: 6, failures: 0 });
  });

  it('counts per project, not per token: a regenerated token shares the spent budget', async () => {
    const { projectId, apiToken } = await setUp({ UPLOAD_RATE_LIMIT: '3' });
    await spend(apiToken, 2, 3);
    const regenerated = await ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/regenerate-token`, token: user.token });
    expect(regenerated.statusCode).toBe(200);
    const newToken = regenerated.json().api_token as string;
    await spend(newToken, 1, 3, 2);
    expectTooMany(await upload(ctx, newToken, anotherRun()), 3);
  });

  it('shares the upload budget between POST /api/reports and its alias POST /api/v1/reports', async () => {
    const { apiToken } = await setUp({ UPLOAD_RATE_LIMIT: '3' });
    await spend(apiToken, 2, 3);
    await spend(apiToken, 1, 3, 2, '/api/v1/reports');
    expectTooMany(await upload(ctx, apiToken, anotherRun(), { url: '/api/v1/reports' }), 3);
    expectTooMany(await upload(ctx, apiToken, anotherRun()), 3);
  });

  it("does not count uploads against the user's /api/v1 budget, nor the user's requests against the upload budget", async () => {
    const { apiToken } = await setUp({ UPLOAD_RATE_LIMIT: '3' });
    await spend(apiToken, 3, 3);
    const v1 = await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token });
    expect(v1.statusCode).toBe(200);
    expect(v1.headers['x-ratelimit-limit']).toBe('120');
    expect(v1.headers['x-ratelimit-remaining']).toBe('119');
  });

  it('puts the rate-limit headers on the answers of every client endpoint', async () => {
    const { apiToken } = await setUp({ UPLOAD_RATE_LIMIT: '5' });
    const calls = [
      await upload(ctx, apiToken, anotherRun()),
      await upload(ctx, apiToken, { project_id: 'unknown', failure_reason: 'no_analyzers_ran' }, { url: '/api/reports/failure' }),
      await clientCall(ctx, apiToken, undefined, { url: '/api/token/verify' }),
      await clientCall(ctx, apiToken, undefined, { url: '/api/project' }),
    ];
    for (const response of calls) {
      expect(response.statusCode, response.body).toBeLessThan(300);
      expect(response.headers['x-ratelimit-limit']).toBe('5');
      expect(response.headers['x-ratelimit-remaining']).toMatch(/^[0-4]$/);
      expect(response.headers['retry-after']).toBeUndefined();
    }
  });
});

describe('D8: requests without a valid token are limited per client IP, 10 a minute', () => {
  it('answers the 11th unauthenticated upload from one IP with 429, not 401', async () => {
    await setUp();
    const ip = freshAddress();
    for (let i = 1; i <= 10; i++) {
      const response = await upload(ctx, 'x'.repeat(40), anotherRun(), { remoteAddress: ip });
      expectClientUnauthenticated(response);
      expectRateLimitHeaders(response, 10, 10 - i);
    }
    expectTooMany(await upload(ctx, 'x'.repeat(40), anotherRun(), { remoteAddress: ip }), 10);
    // Any request from that IP without a valid token, on any client path.
    expectTooMany(await clientCall(ctx, null, undefined, { url: '/api/project', remoteAddress: ip }), 10);
    expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 0 });
  });

  it('counts every kind of missing or bad token against the IP', async () => {
    await setUp();
    const ip = freshAddress();
    const kinds: (string | null)[] = [null, '', 'short', 'y'.repeat(40), user.token];
    for (let i = 0; i < 10; i++) {
      expectClientUnauthenticated(await upload(ctx, kinds[i % kinds.length] as string | null, anotherRun(), { remoteAddress: ip }));
    }
    expectTooMany(await upload(ctx, null, anotherRun(), { remoteAddress: ip }), 10);
  });

  it("answers verify's 429 with success:false too", async () => {
    await setUp();
    const ip = freshAddress();
    for (let i = 0; i < 10; i++) {
      expectClientUnauthenticated(await clientCall(ctx, '', undefined, { url: '/api/token/verify', remoteAddress: ip }), { valid: false });
    }
    const over = await clientCall(ctx, '', undefined, { url: '/api/token/verify', remoteAddress: ip });
    expect(over.statusCode).toBe(429);
    const body = expectClientAnswer(over);
    expect(body.success).toBe(false);
    expect(body.retry_after).toBe(Number(over.headers['retry-after']));
  });

  it('keeps other IPs and valid tokens from the same IP unaffected, and resets after 60 seconds', async () => {
    const { apiToken } = await setUp();
    const ip = freshAddress();
    for (let i = 0; i < 10; i++) await upload(ctx, null, anotherRun(), { remoteAddress: ip });
    expectTooMany(await upload(ctx, null, anotherRun(), { remoteAddress: ip }), 10);

    expectClientUnauthenticated(await upload(ctx, null, anotherRun(), { remoteAddress: freshAddress() }));
    const valid = await upload(ctx, apiToken, anotherRun(), { remoteAddress: ip });
    expect(valid.statusCode).toBe(201);
    expectRateLimitHeaders(valid, 60, 59);

    ctx.clock.advance(60_000);
    const again = await upload(ctx, null, anotherRun(), { remoteAddress: ip });
    expectClientUnauthenticated(again);
    expectRateLimitHeaders(again, 10, 9);
  });
});
