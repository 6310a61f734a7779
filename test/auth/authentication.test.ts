import { crc32 } from 'node:zlib';
import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { UNAUTHENTICATED, expectError, freshAddress, sha256 } from '../helpers/contract.js';

const it = appTest
  /** Sends to a tokens and a projects endpoint, each from a fresh IP so the D8 IP limit never answers. */
  .extend('expectUnauthenticated', ({ ctx }) => async (headers: Record<string, string>) => {
    for (const url of ['/api/v1/tokens', '/api/v1/projects']) {
      const response = await ctx.request({ method: 'GET', url, headers, remoteAddress: freshAddress() });
      expectError(response, 401, UNAUTHENTICATED);
    }
  });

const checksum = (body: string) => crc32(body).toString(16).padStart(8, '0');
const BODY = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd'; // 40 characters of [A-Za-z0-9]

// api-v1 5.5, D3, D4 step 3, D9: every credential that does not identify a live token gets 401.
describe('authentication', () => {
  it('accepts the valid CLI token (control)', async ({ ctx, user }) => {
    const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
    expect(response.statusCode).toBe(200);
  });

  it('returns 401 without an Authorization header', async ({ expectUnauthenticated }) => {
    await expectUnauthenticated({});
  });

  it.for(['Bearer', 'Bearer ', 'Bearer    ', ''])(
    'returns 401 for Authorization %j with no token',
    async (value, { expectUnauthenticated }) => {
      await expectUnauthenticated({ authorization: value });
    },
  );

  it('returns 401 for another scheme, even carrying a valid token', async ({ user, expectUnauthenticated }) => {
    await expectUnauthenticated({ authorization: 'Basic dXNlcjpwYXNzd29yZA==' });
    await expectUnauthenticated({ authorization: `Basic ${user.token}` });
    await expectUnauthenticated({ authorization: `Token ${user.token}` });
    await expectUnauthenticated({ authorization: user.token });
  });

  it.for([
    ['no prefix', `${BODY}${checksum(BODY)}`],
    ['wrong prefix', `servic_${BODY}${checksum(BODY)}`],
    ['uppercase prefix', `SERVICE_${BODY}${checksum(BODY)}`],
    ['short body', `service_${BODY.slice(1)}${checksum(BODY.slice(1))}`],
    ['long body', `service_${BODY}x${checksum(`${BODY}x`)}`],
    ['non-alphanumeric body', `service_${BODY.slice(0, 39)}-${checksum(`${BODY.slice(0, 39)}-`)}`],
    ['uppercase checksum', `service_${BODY}${checksum(BODY).toUpperCase()}`],
    ['garbage', 'not-a-token'],
    ['prefix only', 'service_'],
  ])('returns 401 for a malformed token (%s)', async ([_label, token], { expectUnauthenticated }) => {
    await expectUnauthenticated({ authorization: `Bearer ${token}` });
  });

  it('returns 401 for a well-formed token with a wrong checksum', async ({ user, expectUnauthenticated }) => {
    const body = user.token.slice(8, 48);
    const good = checksum(body);
    const bad = good.slice(0, 7) + (good[7] === '0' ? '1' : '0');
    await expectUnauthenticated({ authorization: `Bearer service_${body}${bad}` });
  });

  it('rejects a wrong checksum before any lookup, even if such a hash were stored (D9)', async ({ ctx, user, expectUnauthenticated }) => {
    const body = BODY;
    const good = checksum(body);
    const badToken = `service_${body}${good.slice(0, 7)}${good[7] === 'f' ? 'e' : 'f'}`;
    await ctx.db
      .insertInto('personal_access_tokens')
      .values({
        user_id: user.id,
        name: 'planted',
        token_hash: sha256(badToken),
        abilities: '["read","write","admin"]',
        last_used_at: null,
        expires_at: null,
        created_at: ctx.clock.now().toISOString(),
      })
      .execute();
    await expectUnauthenticated({ authorization: `Bearer ${badToken}` });
  });

  it('returns 401 for a well-formed token that was never issued', async ({ expectUnauthenticated }) => {
    await expectUnauthenticated({ authorization: `Bearer service_${BODY}${checksum(BODY)}` });
  });

  it('returns 401 for a revoked token', async ({ ctx, user, expectUnauthenticated }) => {
    const token = await ctx.given.token(user, { name: 'to revoke' });
    const { id } = await ctx.db.selectFrom('personal_access_tokens').select('id').where('name', '=', 'to revoke').executeTakeFirstOrThrow();
    const revoke = await ctx.request({ method: 'DELETE', url: `/api/v1/tokens/${id}`, token: user.token });
    expect(revoke.statusCode).toBe(200);
    await expectUnauthenticated({ authorization: `Bearer ${token}` });
  });

  it('returns 401 for the token of a deleted user', async ({ ctx, user, expectUnauthenticated }) => {
    await ctx.db.deleteFrom('users').where('id', '=', user.id).execute();
    await expectUnauthenticated({ authorization: `Bearer ${user.token}` });
  });

  describe('expiry (D9)', () => {
    const expiresAt = new Date('2026-11-21T11:00:00.000Z'); // clock starts at 10:00

    it('works before expiry and returns 401 once it has passed', async ({ ctx, user, expectUnauthenticated }) => {
      const token = await ctx.given.token(user, { expiresAt });
      const before = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token });
      expect(before.statusCode).toBe(200);

      ctx.clock.set('2026-11-21T10:59:59.999Z');
      expect((await ctx.request({ method: 'GET', url: '/api/v1/projects', token })).statusCode).toBe(200);

      ctx.clock.set('2026-11-21T11:00:01.000Z');
      await expectUnauthenticated({ authorization: `Bearer ${token}` });
    });

    it('returns 401 exactly at the expiry instant', async ({ ctx, user, expectUnauthenticated }) => {
      const token = await ctx.given.token(user, { expiresAt });
      ctx.clock.set(expiresAt);
      await expectUnauthenticated({ authorization: `Bearer ${token}` });
    });

    it('does not let an expired token revoke anything', async ({ ctx, user }) => {
      const token = await ctx.given.token(user, { expiresAt, name: 'expiring' });
      ctx.clock.advance(2 * 60 * 60 * 1000);
      const { id } = await ctx.db
        .selectFrom('personal_access_tokens')
        .select('id')
        .where('name', '=', 'expiring')
        .executeTakeFirstOrThrow();
      const response = await ctx.request({ method: 'DELETE', url: `/api/v1/tokens/${id}`, token, remoteAddress: freshAddress() });
      expectError(response, 401, UNAUTHENTICATED);
      expect(await ctx.db.selectFrom('personal_access_tokens').select('id').where('id', '=', id).executeTakeFirst()).toEqual({ id });
    });
  });
});
