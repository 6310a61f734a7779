/**
 * D8 (api-v1.md section 8): fixed 60-second windows on the fake clock, per user by plan, per IP
 * without a valid token.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { buildTestApp } from '../helpers/test-app.js';
import { UNAUTHENTICATED, expectError, expectTooManyRequests } from '../helpers/contract.js';

const it = appTest
  /** A fast authenticated request. */
  .extend(
    'listTokens',
    ({ ctx }) =>
      (token: string | undefined, options: { remoteAddress?: string; headers?: Record<string, string> } = {}) =>
        ctx.request({ method: 'GET', url: '/api/v1/tokens', token, ...options }),
  )
  /** Sends `count` requests with `token`, asserting each is 200 and the headers count down from `limit`. */
  .extend(
    'spend',
    ({ listTokens }) =>
      async function spend(token: string, count: number, limit: number, alreadyUsed = 0): Promise<void> {
        for (let i = 1; i <= count; i++) {
          const response = await listTokens(token);
          expect(response.statusCode).toBe(200);
          expect(limitOf(response)).toBe(String(limit));
          expect(remainingOf(response)).toBe(String(limit - alreadyUsed - i));
          expect(response.headers['retry-after']).toBeUndefined();
        }
      },
  );

const limitOf = (r: LightMyRequestResponse) => r.headers['x-ratelimit-limit'];
const remainingOf = (r: LightMyRequestResponse) => r.headers['x-ratelimit-remaining'];

describe('D8: per-user budget by plan', () => {
  const plans = [
    { plan: 'solo', limit: 120 },
    { plan: 'business', limit: 360 },
    { plan: 'enterprise', limit: 1200 },
    { plan: null, limit: 120 },
  ] as const;

  for (const { plan, limit } of plans) {
    it(`gives a user ${plan ? `on plan ${plan}` : 'without a subscription'} ${limit} requests a minute, then 429 with Retry-After`, async ({
      ctx,
      listTokens,
      spend,
    }) => {
      const user = await ctx.given.user({ plan });
      await spend(user.token, limit, limit);
      const over = await listTokens(user.token);
      const retryAfter = expectTooManyRequests(over);
      expect(retryAfter).toBe(60);
      expect(limitOf(over)).toBe(String(limit));
    });
  }

  it('shares one budget across all tokens of a user', async ({ ctx, listTokens, spend }) => {
    const user = await ctx.given.user();
    const second = await ctx.given.token(user, { abilities: ['read'] });
    const third = await ctx.given.token(user);
    await spend(user.token, 40, 120);
    await spend(second, 40, 120, 40);
    await spend(third, 40, 120, 80);
    for (const token of [user.token, second, third]) expectTooManyRequests(await listTokens(token));
  });

  it('does not share a budget between two users, even from one IP', async ({ ctx, listTokens, spend }) => {
    const alice = await ctx.given.user();
    const bob = await ctx.given.user();
    await spend(alice.token, 120, 120);
    expectTooManyRequests(await listTokens(alice.token));
    const response = await listTokens(bob.token);
    expect(response.statusCode).toBe(200);
    expect(remainingOf(response)).toBe('119');
  });

  it('counts an authenticated user against the user, not the IP budget', async ({ ctx, listTokens, spend }) => {
    const user = await ctx.given.user();
    await spend(user.token, 15, 120);
    const anonymous = await listTokens(undefined);
    expect(anonymous.statusCode).toBe(401);
    expect(remainingOf(anonymous)).toBe('9');
  });

  it('counts every status against the user, errors included', async ({ ctx }) => {
    const user = await ctx.given.user();
    const readOnly = await ctx.given.token(user, { abilities: ['read'] });
    const forbidden = await ctx.request({
      method: 'POST',
      url: '/api/v1/tokens',
      token: readOnly,
      body: { name: 'x', abilities: ['read'] },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(remainingOf(forbidden)).toBe('119');
    const missing = await ctx.request({ method: 'GET', url: '/api/v1/nope', token: user.token });
    expect(missing.statusCode).toBe(404);
    expect(remainingOf(missing)).toBe('118');
  });
});

describe('D8: fixed 60-second windows', () => {
  it('restores the budget once the window has passed', async ({ ctx, listTokens, spend }) => {
    const user = await ctx.given.user();
    await spend(user.token, 120, 120);
    expectTooManyRequests(await listTokens(user.token));
    ctx.clock.advance(60_000);
    const response = await listTokens(user.token);
    expect(response.statusCode).toBe(200);
    expect(remainingOf(response)).toBe('119');
  });

  it('shrinks Retry-After as time passes inside the window, never below 1', async ({ ctx, listTokens, spend }) => {
    const user = await ctx.given.user();
    await spend(user.token, 120, 120);
    expect(expectTooManyRequests(await listTokens(user.token))).toBe(60);
    ctx.clock.advance(20_000);
    expect(expectTooManyRequests(await listTokens(user.token))).toBe(40);
    ctx.clock.advance(39_000);
    expect(expectTooManyRequests(await listTokens(user.token))).toBe(1);
    ctx.clock.advance(999);
    expect(expectTooManyRequests(await listTokens(user.token))).toBe(1);
    ctx.clock.advance(1);
    expect((await listTokens(user.token)).statusCode).toBe(200);
  });

  it('never sends Retry-After on answers other than 429 (api-v1.md 8.3)', async ({ ctx, listTokens }) => {
    const user = await ctx.given.user();
    const readOnly = await ctx.given.token(user, { abilities: ['read'] });
    const responses = [
      await listTokens(user.token),
      await listTokens(undefined),
      await ctx.request({ method: 'POST', url: '/api/v1/tokens', token: readOnly, body: { name: 'x', abilities: ['read'] } }),
      await ctx.request({ method: 'GET', url: '/api/v1/projects/0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b', token: user.token }),
      await ctx.request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: {} }),
    ];
    expect(responses.map((r) => r.statusCode)).toEqual([200, 401, 403, 404, 422]);
    for (const response of responses) expect(response.headers['retry-after']).toBeUndefined();
  });
});

describe('D8: 10 requests per IP without a valid token', () => {
  async function expectTenThen429(send: (i: number) => Promise<LightMyRequestResponse>): Promise<void> {
    for (let i = 1; i <= 10; i++) {
      const response = await send(i);
      expectError(response, 401, UNAUTHENTICATED);
      expect(limitOf(response)).toBe('10');
      expect(remainingOf(response)).toBe(String(10 - i));
    }
    const eleventh = await send(11);
    expectTooManyRequests(eleventh);
    expect(limitOf(eleventh)).toBe('10');
  }

  it('shares one IP budget across missing, malformed, unknown, revoked and expired tokens', async ({ ctx, listTokens }) => {
    const user = await ctx.given.user();
    const revoked = await ctx.given.token(user, { name: 'to revoke' });
    const revokedRow = await ctx.db
      .selectFrom('personal_access_tokens')
      .select('id')
      .where('name', '=', 'to revoke')
      .executeTakeFirstOrThrow();
    expect((await ctx.request({ method: 'DELETE', url: `/api/v1/tokens/${revokedRow.id}`, token: user.token })).statusCode).toBe(200);
    const expired = await ctx.given.token(user, { expiresAt: new Date(ctx.clock.now().getTime() + 1_000) });
    ctx.clock.advance(1_000);
    // Well-formed (right shape and checksum) but never issued: take a real one and revoke it too.
    const unknown = await ctx.given.token(user, { name: 'unknown' });
    await ctx.db.deleteFrom('personal_access_tokens').where('name', '=', 'unknown').execute();

    const credentials = [undefined, 'garbage', 'service_short', unknown, revoked, expired];
    await expectTenThen429((i) => listTokens(credentials[i % credentials.length], { remoteAddress: '192.0.2.10' }));
    // ...and the owner of those tokens is not affected.
    expect((await listTokens(user.token, { remoteAddress: '192.0.2.10' })).statusCode).toBe(200);
  });

  it('gives each IP its own budget', async ({ listTokens }) => {
    await expectTenThen429(() => listTokens(undefined, { remoteAddress: '192.0.2.20' }));
    const other = await listTokens(undefined, { remoteAddress: '192.0.2.21' });
    expectError(other, 401, UNAUTHENTICATED);
    expect(remainingOf(other)).toBe('9');
  });

  it('restores the IP budget after 60 seconds', async ({ ctx, listTokens }) => {
    await expectTenThen429(() => listTokens(undefined, { remoteAddress: '192.0.2.30' }));
    ctx.clock.advance(60_000);
    const response = await listTokens(undefined, { remoteAddress: '192.0.2.30' });
    expectError(response, 401, UNAUTHENTICATED);
    expect(remainingOf(response)).toBe('9');
  });

  it('ignores X-Forwarded-For when TRUST_PROXY is unset', async ({ listTokens }) => {
    await expectTenThen429((i) => listTokens(undefined, { remoteAddress: '192.0.2.40', headers: { 'x-forwarded-for': `203.0.113.${i}` } }));
  });

  it('honours X-Forwarded-For when TRUST_PROXY is true', async () => {
    const proxied = await buildTestApp({ env: { TRUST_PROXY: 'true' } });
    try {
      const viaProxy = (client: string) =>
        proxied.request({ method: 'GET', url: '/api/v1/tokens', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': client } });
      for (let i = 1; i <= 10; i++) expect((await viaProxy('203.0.113.50')).statusCode).toBe(401);
      expectTooManyRequests(await viaProxy('203.0.113.50'));
      // Another client behind the same proxy has its own budget.
      const other = await viaProxy('203.0.113.51');
      expectError(other, 401, UNAUTHENTICATED);
      expect(remainingOf(other)).toBe('9');
    } finally {
      await proxied.close();
    }
  });
});
