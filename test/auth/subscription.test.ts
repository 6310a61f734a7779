import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { SUBSCRIPTION_REQUIRED, UNAUTHENTICATED, expectError, freshAddress } from '../helpers/contract.js';
import { ENDPOINTS, snapshot } from '../helpers/endpoints.js';

const PROJECT_ENDPOINTS = ENDPOINTS.filter((e) => e.subscription);

// api-v1 5.4 and D7: every /api/v1/projects* endpoint needs an active subscription.
describe('subscription required on project endpoints (D7)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await buildTestApp(); // 2026-11-21T10:00:00.000Z, never moved in this file
  });
  afterAll(async () => ctx.close());

  const setSubscription = async (user: TestUser, values: { status: 'active' | 'canceled'; ends_at: string | null }) => {
    await ctx.db.updateTable('subscriptions').set(values).where('user_id', '=', user.id).execute();
  };

  const inactive: [string, () => Promise<TestUser>][] = [
    ['no subscription (plan null)', () => ctx.given.user({ plan: null })],
    [
      'a canceled subscription',
      async () => {
        const user = await ctx.given.user({ plan: 'enterprise' });
        await ctx.given.plan(user, null);
        return user;
      },
    ],
    [
      'an active subscription whose ends_at has passed',
      async () => {
        const user = await ctx.given.user({ plan: 'business' });
        await setSubscription(user, { status: 'active', ends_at: '2026-11-21T09:59:59.000Z' });
        return user;
      },
    ],
    [
      'an active subscription ending exactly now',
      async () => {
        const user = await ctx.given.user({ plan: 'solo' });
        await setSubscription(user, { status: 'active', ends_at: '2026-11-21T10:00:00.000Z' });
        return user;
      },
    ],
    [
      'a canceled subscription whose ends_at is still in the future',
      async () => {
        const user = await ctx.given.user({ plan: 'solo' });
        await setSubscription(user, { status: 'canceled', ends_at: '2027-01-01T00:00:00.000Z' });
        return user;
      },
    ],
  ];

  for (const [label, makeUser] of inactive) {
    for (const endpoint of PROJECT_ENDPOINTS) {
      it(`${endpoint.name} returns 403 Subscription Required for ${label}`, async () => {
        const user = await makeUser();
        const request = await endpoint.prepare(ctx, user);
        const before = await snapshot(ctx);
        expectError(await ctx.request({ ...request, token: user.token }), 403, SUBSCRIPTION_REQUIRED);
        expect(await snapshot(ctx)).toEqual(before);
      });
    }
  }

  it('accepts an active subscription whose ends_at is in the future', async () => {
    const user = await ctx.given.user({ plan: 'solo' });
    await setSubscription(user, { status: 'active', ends_at: '2026-11-21T10:00:01.000Z' });
    const response = await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token });
    expect(response.statusCode).toBe(200);
  });

  it('stops answering once a plan is removed, and answers again when one is set', async () => {
    const user = await ctx.given.user({ plan: 'solo' });
    const list = () => ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token });
    expect((await list()).statusCode).toBe(200);
    await ctx.given.plan(user, null);
    expectError(await list(), 403, SUBSCRIPTION_REQUIRED);
    await ctx.given.plan(user, 'business');
    expect((await list()).statusCode).toBe(200);
  });

  describe('order of checks (D4)', () => {
    it('answers Subscription Required before the ability 403 (read-only token on POST /projects)', async () => {
      const user = await ctx.given.user({ plan: null, abilities: ['read'] });
      const response = await ctx.request({
        method: 'POST',
        url: '/api/v1/projects',
        token: user.token,
        body: { name: 'x', framework_version: '11' },
      });
      expectError(response, 403, SUBSCRIPTION_REQUIRED);
    });

    it('answers Subscription Required before 404 and 422', async () => {
      const user = await ctx.given.user({ plan: null });
      const unknown = await ctx.request({
        method: 'GET',
        url: '/api/v1/projects/00000000-0000-7000-8000-000000000000',
        token: user.token,
      });
      expectError(unknown, 403, SUBSCRIPTION_REQUIRED);
      const invalid = await ctx.request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: { name: '' } });
      expectError(invalid, 403, SUBSCRIPTION_REQUIRED);
    });

    it('answers 401 before the subscription and ability checks', async () => {
      const user = await ctx.given.user({ plan: null, abilities: ['read'] });
      const expired = await ctx.given.token(user, { abilities: ['read'], expiresAt: new Date('2026-11-21T09:00:00.000Z') });
      for (const endpoint of PROJECT_ENDPOINTS) {
        const request = await endpoint.prepare(ctx, user);
        for (const token of [expired, undefined]) {
          const response = await ctx.request({ ...request, token, remoteAddress: freshAddress() });
          expectError(response, 401, UNAUTHENTICATED);
        }
      }
    });
  });
});
