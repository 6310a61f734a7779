import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { TOKEN_LIMIT, expectError } from '../helpers/contract.js';

const it = appTest
  .extend(
    'create',
    ({ ctx, user }) =>
      (body: unknown = { name: 'extra', abilities: ['read'] }) =>
        ctx.request({ method: 'POST', url: '/api/v1/tokens', token: user.token, body }),
  )
  .extend(
    'countTokens',
    ({ ctx, user }) =>
      async () =>
        (await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', user.id).execute()).length,
  );

// api-v1 section 8 rule 4 and D9: at most 10 personal access tokens per user, expired ones included.
describe('POST /api/v1/tokens: the 10-token limit', () => {
  it('creates up to 10 tokens and answers the 11th with 403', async ({ create, countTokens }) => {
    for (let i = 2; i <= 10; i++) {
      const response = await create({ name: `token ${i}`, abilities: ['read'] });
      expect(response.statusCode, `token ${i}`).toBe(201);
    }
    expect(await countTokens()).toBe(10);

    const eleventh = await create();
    expectError(eleventh, 403, TOKEN_LIMIT);
    expect(await countTokens()).toBe(10);
  });

  it('counts expired tokens too (D9)', async ({ ctx, user, create }) => {
    for (let i = 0; i < 9; i++) await ctx.given.token(user, { expiresAt: new Date('2026-11-21T10:00:30.000Z') });
    ctx.clock.advance(60_000); // all nine have expired now
    expectError(await create(), 403, TOKEN_LIMIT);
  });

  it('creates again after a token is revoked', async ({ ctx, user, create, countTokens }) => {
    const ids: number[] = [];
    for (let i = 0; i < 9; i++) ids.push((await create()).json().token.id);
    expectError(await create(), 403, TOKEN_LIMIT);

    const revoke = await ctx.request({ method: 'DELETE', url: `/api/v1/tokens/${ids[3]}`, token: user.token });
    expect(revoke.statusCode).toBe(200);

    const again = await create({ name: 'replacement', abilities: ['read'] });
    expect(again.statusCode).toBe(201);
    expect(await countTokens()).toBe(10);
    expectError(await create(), 403, TOKEN_LIMIT);
  });

  it('answers the limit 403 before validating the body (D4 step 8 before step 9)', async ({ ctx, user, create }) => {
    for (let i = 0; i < 9; i++) await ctx.given.token(user);
    expectError(await create({ name: '', abilities: ['root'] }), 403, TOKEN_LIMIT);
    expectError(await create({}), 403, TOKEN_LIMIT);
    expectError(await create({ name: 'x', abilities: ['read'], expires_at: 'tomorrow' }), 403, TOKEN_LIMIT);
  });

  it('never ends with more than 10 tokens under concurrent creation', async ({ ctx, user, create, countTokens }) => {
    for (let i = 0; i < 7; i++) await ctx.given.token(user); // 8 in all
    expect(await countTokens()).toBe(8);

    const responses = await Promise.all(Array.from({ length: 5 }, (_, i) => create({ name: `concurrent ${i}`, abilities: ['read'] })));

    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, 201, 403, 403, 403]);
    for (const response of responses.filter((r) => r.statusCode === 403)) expectError(response, 403, TOKEN_LIMIT);
    expect(await countTokens()).toBe(10);
  });

  it('counts per user: another user at the limit does not block this one', async ({ ctx, create }) => {
    const other = await ctx.given.user();
    for (let i = 0; i < 9; i++) await ctx.given.token(other);
    expectError(
      await ctx.request({ method: 'POST', url: '/api/v1/tokens', token: other.token, body: { name: 'x', abilities: ['read'] } }),
      403,
      TOKEN_LIMIT,
    );
    expect((await create()).statusCode).toBe(201);
  });
});
