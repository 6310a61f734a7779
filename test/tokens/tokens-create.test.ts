import { crc32 } from 'node:zlib';
import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { JSON_UTF8, PERSONAL_ACCESS_TOKEN, TOKEN_CREATED, expectValidationError, sha256 } from '../helpers/contract.js';

const it = appTest.extend(
  'create',
  ({ ctx, user }) =>
    (body: unknown, token = user.token) =>
      ctx.request({ method: 'POST', url: '/api/v1/tokens', token, body }),
);

describe('POST /api/v1/tokens', () => {
  it('returns 201 with the metadata, the plain text and the D18 message', async ({ ctx, user, create }) => {
    ctx.clock.advance(5_000);
    const response = await create({ name: 'Deploy bot', abilities: ['read', 'write'] });

    expect(response.statusCode).toBe(201);
    expect(response.headers['content-type']).toBe(JSON_UTF8);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['message', 'plain_text_token', 'token']);
    expect(body.message).toBe(TOKEN_CREATED);
    expect(body.token).toEqual({
      id: expect.any(Number),
      name: 'Deploy bot',
      abilities: ['read', 'write'],
      last_used_at: null,
      expires_at: null,
      created_at: '2026-11-21T10:00:05.000Z',
    });
    const row = await ctx.db.selectFrom('personal_access_tokens').selectAll().where('id', '=', body.token.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ user_id: user.id, name: 'Deploy bot', expires_at: null, last_used_at: null });
    expect(row.token_hash).toBe(sha256(body.plain_text_token));
  });

  it('issues a plain text of the D9 shape whose last 8 characters are the CRC32 of the body', async ({ create }) => {
    const response = await create({ name: 'x', abilities: ['read'] });
    expect(response.statusCode).toBe(201);
    const plain: string = response.json().plain_text_token;
    expect(plain).toHaveLength(56);
    const match = PERSONAL_ACCESS_TOKEN.exec(plain);
    expect(match).not.toBeNull();
    expect(match![2]).toBe(crc32(match![1]!).toString(16).padStart(8, '0'));
  });

  it('issues a token that authenticates the next request', async ({ ctx, create }) => {
    const created = await create({ name: 'reader', abilities: ['read'] });
    const plain: string = created.json().plain_text_token;
    const list = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: plain });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((t: { name: string }) => t.name)).toEqual(['reader', 'CLI token']);
  });

  it('deduplicates abilities and orders them read, write, admin (D6)', async ({ ctx, create }) => {
    const response = await create({ name: 'x', abilities: ['admin', 'read', 'read'] });
    expect(response.statusCode).toBe(201);
    expect(response.json().token.abilities).toEqual(['read', 'admin']);
    const row = await ctx.db
      .selectFrom('personal_access_tokens')
      .select('abilities')
      .where('id', '=', response.json().token.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.abilities)).toEqual(['read', 'admin']);

    const all = await create({ name: 'y', abilities: ['admin', 'write', 'read', 'write'] });
    expect(all.json().token.abilities).toEqual(['read', 'write', 'admin']);
  });

  it('trims the name (D12)', async ({ create }) => {
    const response = await create({ name: '  CI  ', abilities: ['read'] });
    expect(response.statusCode).toBe(201);
    expect(response.json().token.name).toBe('CI');
  });

  it('accepts a name of exactly 255 characters', async ({ create }) => {
    const response = await create({ name: 'n'.repeat(255), abilities: ['read'] });
    expect(response.statusCode).toBe(201);
    expect(response.json().token.name).toBe('n'.repeat(255));
  });

  describe('expires_at (D9)', () => {
    it('reads YYYY-MM-DD as 00:00:00 UTC of that day', async ({ ctx, create }) => {
      const response = await create({ name: 'x', abilities: ['read'], expires_at: '2027-01-01' });
      expect(response.statusCode).toBe(201);
      expect(response.json().token.expires_at).toBe('2027-01-01T00:00:00.000Z');
      const row = await ctx.db
        .selectFrom('personal_access_tokens')
        .select('expires_at')
        .where('id', '=', response.json().token.id)
        .executeTakeFirstOrThrow();
      expect(row.expires_at).toBe('2027-01-01T00:00:00.000Z');
    });

    it('normalises a date-time with an offset to UTC', async ({ create }) => {
      const response = await create({ name: 'x', abilities: ['read'], expires_at: '2027-01-01T10:00:00+02:00' });
      expect(response.statusCode).toBe(201);
      expect(response.json().token.expires_at).toBe('2027-01-01T08:00:00.000Z');
    });

    it('accepts a UTC date-time one millisecond after now', async ({ create }) => {
      const response = await create({ name: 'x', abilities: ['read'], expires_at: '2026-11-21T10:00:00.001Z' });
      expect(response.statusCode).toBe(201);
      expect(response.json().token.expires_at).toBe('2026-11-21T10:00:00.001Z');
    });

    it('accepts null as no expiry', async ({ create }) => {
      const response = await create({ name: 'x', abilities: ['read'], expires_at: null });
      expect(response.statusCode).toBe(201);
      expect(response.json().token.expires_at).toBeNull();
    });

    it.for([
      ['equal to now', '2026-11-21T10:00:00.000Z'],
      ['equal to now with an offset', '2026-11-21T12:00:00+02:00'],
      ['one second in the past', '2026-11-21T09:59:59Z'],
      ['today as a date (already past midnight)', '2026-11-21'],
      ['long past', '2020-01-01'],
    ])('returns 422 on expires_at for a date %s', async ([_label, value], { create }) => {
      const response = await create({ name: 'x', abilities: ['read'], expires_at: value });
      expectValidationError(response, ['expires_at']);
    });

    it.for([['tomorrow'], ['2027-02-30'], ['2027-13-01'], ['01/02/2027'], ['2027-01-01T25:00:00Z'], ['not a date']])(
      'returns 422 on expires_at for %j',
      async ([value], { create }) => {
        const response = await create({ name: 'x', abilities: ['read'], expires_at: value });
        expectValidationError(response, ['expires_at']);
      },
    );

    it('returns 422 on expires_at when it is not a string', async ({ create }) => {
      const response = await create({ name: 'x', abilities: ['read'], expires_at: 1798761600 });
      expectValidationError(response, ['expires_at']);
    });

    it('stores nothing when expires_at is rejected', async ({ ctx, user, create }) => {
      await create({ name: 'x', abilities: ['read'], expires_at: '2020-01-01' });
      const count = await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', user.id).execute();
      expect(count).toHaveLength(1);
    });
  });
});
