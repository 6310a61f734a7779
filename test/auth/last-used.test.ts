import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';

// The app: 2026-11-21T10:00:00.000Z
const it = appTest
  .extend(
    'lastUsedOf',
    ({ ctx }) =>
      async (id: number) =>
        (await ctx.db.selectFrom('personal_access_tokens').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow())
          .last_used_at,
  )
  .extend('use', ({ ctx }) => async (token: string) => {
    const response = await ctx.request({ method: 'GET', url: '/api/v1/projects', token });
    expect(response.statusCode).toBe(200);
  });

// D9: last_used_at is written when the token authenticates a request, at most once a minute per token.
describe('last_used_at (D9)', () => {
  it('is null at creation, then the clock time of the first use', async ({ ctx, user, lastUsedOf, use }) => {
    const created = await ctx.request({
      method: 'POST',
      url: '/api/v1/tokens',
      token: user.token,
      body: { name: 'fresh', abilities: ['read'] },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().token.last_used_at).toBeNull();
    const { id } = created.json().token as { id: number };
    expect(await lastUsedOf(id)).toBeNull();

    ctx.clock.advance(12_345);
    await use(created.json().plain_text_token);
    expect(await lastUsedOf(id)).toBe('2026-11-21T10:00:12.345Z');

    const list = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
    const listed = list.json().data.find((t: { id: number }) => t.id === id);
    expect(listed.last_used_at).toBe('2026-11-21T10:00:12.345Z');
  });

  it('is not rewritten within 60 seconds, and is rewritten after 60 seconds', async ({ ctx, user, lastUsedOf, use }) => {
    const token = await ctx.given.token(user, { name: 'tracked' });
    const { id } = await ctx.db.selectFrom('personal_access_tokens').select('id').where('name', '=', 'tracked').executeTakeFirstOrThrow();

    await use(token);
    expect(await lastUsedOf(id)).toBe('2026-11-21T10:00:00.000Z');

    ctx.clock.advance(30_000);
    await use(token);
    expect(await lastUsedOf(id)).toBe('2026-11-21T10:00:00.000Z');

    ctx.clock.advance(29_999);
    await use(token);
    expect(await lastUsedOf(id)).toBe('2026-11-21T10:00:00.000Z');

    ctx.clock.advance(1); // exactly 60 s after the stored value
    await use(token);
    expect(await lastUsedOf(id)).toBe('2026-11-21T10:01:00.000Z');

    ctx.clock.advance(90_000);
    await use(token);
    expect(await lastUsedOf(id)).toBe('2026-11-21T10:02:30.000Z');
  });

  it('is tracked per token: using one token leaves the others untouched', async ({ ctx, user, lastUsedOf, use }) => {
    const other = await ctx.given.token(user, { name: 'idle' });
    const { id: idleId } = await ctx.db
      .selectFrom('personal_access_tokens')
      .select('id')
      .where('name', '=', 'idle')
      .executeTakeFirstOrThrow();
    await use(user.token);
    expect(await lastUsedOf(idleId)).toBeNull();
    ctx.clock.advance(10_000);
    await use(other);
    expect(await lastUsedOf(idleId)).toBe('2026-11-21T10:00:10.000Z');
  });

  it('is not set by a request with an invalid token', async ({ ctx, user, lastUsedOf }) => {
    const token = await ctx.given.token(user, { name: 'expiring', expiresAt: new Date('2026-11-21T10:00:30.000Z') });
    const { id } = await ctx.db.selectFrom('personal_access_tokens').select('id').where('name', '=', 'expiring').executeTakeFirstOrThrow();
    ctx.clock.advance(60_000);
    const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token });
    expect(response.statusCode).toBe(401);
    expect(await lastUsedOf(id)).toBeNull();
  });
});
