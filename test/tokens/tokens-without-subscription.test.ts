import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';
import type { TestContext, TestUser } from '../helpers/test-app.js';
import { SUBSCRIPTION_REQUIRED, TOKEN_REVOKED, expectError } from '../helpers/contract.js';

// D7: /api/v1/tokens needs no subscription, so a lapsed user can still see and revoke a leaked token.
describe('token endpoints without an active subscription (D7)', () => {
  const scenarios: [string, (ctx: TestContext) => Promise<TestUser>][] = [
    ['a user who never had a subscription (plan null)', (ctx) => ctx.given.user({ plan: null })],
    [
      'a user whose subscription was canceled',
      async (ctx) => {
        const user = await ctx.given.user({ plan: 'business' });
        await ctx.given.plan(user, null);
        return user;
      },
    ],
  ];

  for (const [label, makeUser] of scenarios) {
    it(`lists, creates and revokes tokens for ${label}`, async ({ ctx }) => {
      const user = await makeUser(ctx);

      // The project API is closed to this user, which proves the subscription is really inactive.
      expectError(await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token }), 403, SUBSCRIPTION_REQUIRED);

      const list = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
      expect(list.statusCode).toBe(200);
      expect(list.json().data).toHaveLength(1);

      const created = await ctx.request({
        method: 'POST',
        url: '/api/v1/tokens',
        token: user.token,
        body: { name: 'new', abilities: ['read'] },
      });
      expect(created.statusCode).toBe(201);

      const revoked = await ctx.request({ method: 'DELETE', url: `/api/v1/tokens/${created.json().token.id}`, token: user.token });
      expect(revoked.statusCode).toBe(200);
      expect(revoked.json()).toEqual({ message: TOKEN_REVOKED });
    });
  }
});
