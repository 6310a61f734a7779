import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { type TestUser, tokenIdOf } from '../helpers/test-app.js';
import { NOT_FOUND, TOKEN_REVOKED, UNAUTHENTICATED, expectError, missingAbility } from '../helpers/contract.js';

const it = appTest
  /** The id of the owner's token named `name`. */
  .extend(
    'tokenIdOf',
    ({ ctx }) =>
      (owner: TestUser, name: string) =>
        tokenIdOf(ctx, owner, name),
  )
  .extend(
    'revoke',
    ({ ctx, user }) =>
      (id: string | number, token = user.token) =>
        ctx.request({ method: 'DELETE', url: `/api/v1/tokens/${id}`, token }),
  )
  .extend(
    'listAs',
    ({ ctx }) =>
      (token: string) =>
        ctx.request({ method: 'GET', url: '/api/v1/tokens', token }),
  );

// api-v1 4 DELETE /tokens/{token}, D9, D18.
describe('DELETE /api/v1/tokens/{token}', () => {
  it('returns 200 with the D18 message and deletes the token', async ({ ctx, user, tokenIdOf, revoke, listAs }) => {
    const leaked = await ctx.given.token(user, { name: 'leaked' });
    const id = await tokenIdOf(user, 'leaked');

    const response = await revoke(id);

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: TOKEN_REVOKED });
    const row = await ctx.db.selectFrom('personal_access_tokens').select('id').where('id', '=', id).executeTakeFirst();
    expect(row).toBeUndefined();
    expectError(await listAs(leaked), 401, UNAUTHENTICATED);
    expect((await listAs(user.token)).json().data.map((t: { id: number }) => t.id)).not.toContain(id);
  });

  it('lets a token revoke itself; the next request with it gets 401', async ({ ctx, user, tokenIdOf, revoke, listAs }) => {
    const self = await ctx.given.token(user, { name: 'self' });
    const id = await tokenIdOf(user, 'self');

    const response = await revoke(id, self);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: TOKEN_REVOKED });

    expectError(await listAs(self), 401, UNAUTHENTICATED);
    expectError(await revoke(id, self), 401, UNAUTHENTICATED);
    expect((await listAs(user.token)).statusCode).toBe(200);
  });

  it("returns 404 for another user's token, which keeps working", async ({ ctx, tokenIdOf, revoke, listAs }) => {
    const other = await ctx.given.user();
    const otherId = await tokenIdOf(other, 'CLI token');

    expectError(await revoke(otherId), 404, NOT_FOUND);

    const row = await ctx.db.selectFrom('personal_access_tokens').select('id').where('id', '=', otherId).executeTakeFirst();
    expect(row).toEqual({ id: otherId });
    expect((await listAs(other.token)).statusCode).toBe(200);
  });

  it('returns 404 for a token revoked already', async ({ ctx, user, tokenIdOf, revoke }) => {
    await ctx.given.token(user, { name: 'twice' });
    const id = await tokenIdOf(user, 'twice');
    expect((await revoke(id)).statusCode).toBe(200);
    expectError(await revoke(id), 404, NOT_FOUND);
  });

  it.for<[string]>([['abc'], ['0'], ['-1'], ['1.5'], ['99999999'], ['1e3'], ['99999999999999999999']])(
    'returns 404 for {token} = %s (D9)',
    async ([param], { ctx, revoke }) => {
      const before = await ctx.db.selectFrom('personal_access_tokens').select('id').execute();
      expectError(await revoke(param), 404, NOT_FOUND);
      const after = await ctx.db.selectFrom('personal_access_tokens').select('id').execute();
      expect(after).toEqual(before);
    },
  );

  it('requires the admin ability (D6)', async ({ ctx, user, tokenIdOf, revoke, listAs }) => {
    const writer = await ctx.given.token(user, { name: 'writer', abilities: ['write'] });
    const id = await tokenIdOf(user, 'writer');
    expectError(await revoke(id, writer), 403, missingAbility('admin'));
    expect((await listAs(writer)).statusCode).toBe(200);
  });
});
