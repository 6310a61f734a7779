/**
 * E2.3: D8's per-IP budget does not apply to the public badges (README images reach us through a
 * few shared proxy addresses); each badge key has its own budget of 600 requests a minute, counted
 * in the same store as every other limit (Redis on the postgres backend), with D8's headers and
 * 429 + Retry-After. The fake clock moves the window; nothing sleeps.
 */
import { describe, expect } from 'vitest';
import { type AppOptions, appTest } from '../helpers/app-fixture.js';
import { expectTooManyRequests } from '../helpers/contract.js';

const BUDGET = 600;
/** One proxy address for every request below: were the badges limited per IP, it would be spent at once. */
const PROXY = '140.82.112.21';

/** A fresh app (built with `options`) per test with two projects of one user, `key` and `otherKey` their badge keys. */
const badgeTest = (options: AppOptions = {}) =>
  appTest({ ...options, user: { plan: 'business' } })
    .extend('keys', async ({ ctx, user }) => {
      const keys = [];
      for (const name of ['First', 'Second']) {
        const { project } = await ctx.given.project(user, { name });
        keys.push(
          (await ctx.db.selectFrom('projects').select('badge_key').where('id', '=', project.id).executeTakeFirstOrThrow()).badge_key,
        );
      }
      return keys as [string, string];
    })
    .extend('key', ({ keys }) => keys[0])
    .extend('otherKey', ({ keys }) => keys[1])
    .extend(
      'badge',
      ({ ctx }) =>
        (badgeKey: string, file = 'score.svg') =>
          ctx.request({ method: 'GET', url: `/badges/${badgeKey}/${file}`, remoteAddress: PROXY }),
    );
const it = badgeTest();

describe('the badge rate limit: 600 a minute per key (E2.3)', () => {
  it('serves 600 requests of one key in a window, from one address, then 429 with Retry-After; another key is unaffected', async ({
    ctx,
    key,
    otherKey,
    badge,
  }) => {
    const files = ['score.svg', 'gate.svg', 'score.json'];
    for (let i = 1; i <= BUDGET; i++) {
      // The three files of a key share its budget.
      const response = await badge(key, files[i % 3]);
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe(String(BUDGET));
      expect(response.headers['x-ratelimit-remaining']).toBe(String(BUDGET - i));
    }
    const refused = await badge(key);
    expectTooManyRequests(refused);
    expect(refused.headers['x-ratelimit-limit']).toBe(String(BUDGET));
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');

    // Another key, from the same address, has its own budget.
    const other = await badge(otherKey);
    expect(other.statusCode).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe(String(BUDGET - 1));

    // The badges did not spend D8's anonymous budget of that address on /api/v1, nor it theirs.
    const api = await ctx.request({ method: 'GET', url: '/api/v1/projects', remoteAddress: PROXY });
    expect(api.statusCode).toBe(401);
    expect(api.headers['x-ratelimit-limit']).toBe('10');
    expect(api.headers['x-ratelimit-remaining']).toBe('9');

    // The window is D8's fixed 60 seconds: Retry-After later, the key is served again.
    ctx.clock.advance(expectTooManyRequests(await badge(key)) * 1000);
    const again = await badge(key);
    expect(again.statusCode).toBe(200);
    expect(again.headers['x-ratelimit-remaining']).toBe(String(BUDGET - 1));
  });

  it('counts 304s and unknown keys too, each unknown key in its own bucket', async ({ ctx, key, badge }) => {
    const first = await badge(key);
    const revalidated = await ctx.request({
      method: 'GET',
      url: `/badges/${key}/score.svg`,
      headers: { 'if-none-match': String(first.headers.etag) },
      remoteAddress: PROXY,
    });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.headers['x-ratelimit-remaining']).toBe(String(BUDGET - 2));

    const unknown = await badge('Z'.repeat(32));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['x-ratelimit-remaining']).toBe(String(BUDGET - 1));
  });

  it('counts keys without the badge-key shape in one shared bucket, never one per arbitrary path segment', async ({ key, badge }) => {
    const first = await badge('x'.repeat(5000));
    const second = await badge('not-a-key');
    expect([first.statusCode, second.statusCode]).toEqual([404, 404]);
    expect(first.headers['x-ratelimit-remaining']).toBe(String(BUDGET - 1));
    expect(second.headers['x-ratelimit-remaining']).toBe(String(BUDGET - 2));
    // A real key is not in that bucket.
    expect((await badge(key)).headers['x-ratelimit-remaining']).toBe(String(BUDGET - 1));
  });
});

describe('BADGE_RATE_LIMIT', () => {
  const limitedIt = badgeTest({ env: { BADGE_RATE_LIMIT: '3' } });
  limitedIt('sets the per-key budget (load tests), still with 429 beyond it', async ({ key, badge }) => {
    for (let i = 1; i <= 3; i++) {
      const response = await badge(key, 'score.json');
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('3');
    }
    expectTooManyRequests(await badge(key, 'score.json'));
  });
});
