/**
 * D1: operational endpoints. No token, no rate limit, JSON except the Prometheus text.
 */
import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';
import { JSON_UTF8, expectNoInternals } from '../helpers/contract.js';

function expectNoRateLimitHeaders(response: { headers: Record<string, unknown> }) {
  expect(response.headers['x-ratelimit-limit']).toBeUndefined();
  expect(response.headers['x-ratelimit-remaining']).toBeUndefined();
  expect(response.headers['retry-after']).toBeUndefined();
}

describe('GET /healthz (D1)', () => {
  it('answers 200 {status: "ok"} without a token and without rate-limit headers', async ({ ctx }) => {
    const response = await ctx.request({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_UTF8);
    expect(response.json()).toEqual({ status: 'ok' });
    expectNoRateLimitHeaders(response);
  });

  it('ignores an invalid bearer token', async ({ ctx }) => {
    const response = await ctx.request({ method: 'GET', url: '/healthz', token: 'garbage' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });
});

describe('GET /readyz (D1)', () => {
  it('answers 200 {status: "ok"} while the database is reachable, naming where rate-limit counters live', async ({ ctx }) => {
    const response = await ctx.request({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_UTF8);
    expect(response.json()).toEqual({
      status: 'ok',
      database: 'ok',
      rate_limit_counters: ctx.config.redisUrl === undefined ? 'memory' : 'redis',
    });
    expectNoRateLimitHeaders(response);
  });

  it('answers 503 Service Unavailable in the D3 envelope when the database is gone, and /healthz stays 200', async ({ ctx }) => {
    await ctx.db.destroy();

    const ready = await ctx.request({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.headers['content-type']).toBe(JSON_UTF8);
    expect(ready.json()).toEqual({ error: 'Service Unavailable', message: expect.any(String) });
    expectNoInternals(ready);
    expect(ready.headers['x-ratelimit-limit']).toBeUndefined();
    expect(ready.headers['x-ratelimit-remaining']).toBeUndefined();
    // D38: a database 503 says when to try again.
    expect(ready.headers['retry-after']).toBe('5');

    const health = await ctx.request({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
  });

  it('answers API requests without internals when the database is gone (D3)', async ({ ctx }) => {
    const user = await ctx.given.user();
    await ctx.db.destroy();
    const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
    // A destroyed pool is a test stand-in for an outage: D3 allows 503 (dependency down) or a
    // generic 500 here; either way the envelope must be generic.
    expect([500, 503]).toContain(response.statusCode);
    expect(response.headers['content-type']).toBe(JSON_UTF8);
    expect(Object.keys(response.json()).sort()).toEqual(['error', 'message']);
    expectNoInternals(response);
  });
});

describe('GET /metrics (D1)', () => {
  it('answers Prometheus text with the request counter', async ({ ctx }) => {
    await ctx.request({ method: 'GET', url: '/healthz' });
    await ctx.request({ method: 'GET', url: '/api/v1/tokens' });
    const response = await ctx.request({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toContain('# TYPE http_requests_total counter');
    expect(response.body).toMatch(/^http_requests_total\{[^}]*route="\/healthz"[^}]*\} \d+/m);
    expect(response.body).toMatch(/^http_requests_total\{[^}]*status="401"[^}]*\} \d+/m);
    expectNoRateLimitHeaders(response);
  });

  it('labels requests by route pattern, not by raw URL', async ({ ctx }) => {
    const user = await ctx.given.user();
    const { project } = await ctx.given.project(user);
    await ctx.request({ method: 'GET', url: `/api/v1/projects/${project.id}`, token: user.token });
    const metrics = (await ctx.request({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('route="/api/v1/projects/:project"');
    expect(metrics).not.toContain(project.id);
  });
});

describe('operational endpoints are not rate limited (D1)', () => {
  for (const url of ['/healthz', '/readyz', '/metrics']) {
    it(`answers ${url} 50 times from one IP without a token and never with 429`, async ({ ctx }) => {
      for (let i = 0; i < 50; i++) {
        const response = await ctx.request({ method: 'GET', url, remoteAddress: '198.51.100.4' });
        expect(response.statusCode).toBe(200);
        expectNoRateLimitHeaders(response);
      }
    });
  }

  it('does not use up the IP budget of /api/v1', async ({ ctx }) => {
    for (let i = 0; i < 30; i++) await ctx.request({ method: 'GET', url: '/healthz', remoteAddress: '198.51.100.5' });
    const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', remoteAddress: '198.51.100.5' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['x-ratelimit-remaining']).toBe('9');
  });
});
