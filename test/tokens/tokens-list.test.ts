import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';
import { JSON_UTF8 } from '../helpers/contract.js';

const METADATA_KEYS = ['abilities', 'created_at', 'expires_at', 'id', 'last_used_at', 'name'];

describe('GET /api/v1/tokens', () => {
  it("lists the caller's tokens in the metadata shape of api-v1 2.5, with no secret", async ({ ctx }) => {
    const user = await ctx.given.user();
    ctx.clock.advance(1_000);
    await ctx.given.token(user, { name: 'CI', abilities: ['read', 'write'], expiresAt: new Date('2027-03-01T00:00:00.000Z') });

    const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });

    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_UTF8);
    const body = response.json();
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data).toHaveLength(2);
    for (const token of body.data) expect(Object.keys(token).sort()).toEqual(METADATA_KEYS);
    expect(body.data[0]).toEqual({
      id: expect.any(Number),
      name: 'CI',
      abilities: ['read', 'write'],
      last_used_at: null,
      expires_at: '2027-03-01T00:00:00.000Z',
      created_at: '2026-11-21T10:00:01.000Z',
    });
    // The CLI token authenticated this very request, so its last_used_at is now (D9).
    expect(body.data[1]).toEqual({
      id: expect.any(Number),
      name: 'CLI token',
      abilities: ['read', 'write', 'admin'],
      last_used_at: '2026-11-21T10:00:01.000Z',
      expires_at: null,
      created_at: '2026-11-21T10:00:00.000Z',
    });
  });

  it('never contains the plain text, the token or any hash', async ({ ctx }) => {
    const user = await ctx.given.user();
    const plain = await ctx.given.token(user);
    const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });

    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain(plain);
    expect(response.body).not.toContain(user.token);
    expect(response.body).not.toContain('service_');
    for (const token of response.json().data) {
      expect(token).not.toHaveProperty('plain_text_token');
      expect(token).not.toHaveProperty('token');
      expect(token).not.toHaveProperty('token_hash');
      expect(token).not.toHaveProperty('hash');
    }
    const hashes = await ctx.db.selectFrom('personal_access_tokens').select('token_hash').execute();
    for (const { token_hash } of hashes) expect(response.body).not.toContain(token_hash);
  });

  it('orders newest first by created_at, ties by id descending', async ({ ctx }) => {
    const user = await ctx.given.user(); // CLI token at t0
    ctx.clock.advance(60_000);
    await ctx.given.token(user, { name: 'same-time-a' });
    await ctx.given.token(user, { name: 'same-time-b' });
    ctx.clock.advance(60_000);
    await ctx.given.token(user, { name: 'newest' });
    // An older created_at inserted last: order must follow created_at, not insertion.
    ctx.clock.set('2026-11-21T09:00:00.000Z');
    await ctx.given.token(user, { name: 'oldest' });
    ctx.clock.set('2026-11-21T10:05:00.000Z');

    const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });

    expect(response.statusCode).toBe(200);
    const data = response.json().data as { id: number; name: string }[];
    expect(data.map((t) => t.name)).toEqual(['newest', 'same-time-b', 'same-time-a', 'CLI token', 'oldest']);
    expect(data[1]!.id).toBeGreaterThan(data[2]!.id);
  });

  it("lists only the caller's own tokens", async ({ ctx }) => {
    const alice = await ctx.given.user();
    const bob = await ctx.given.user();
    await ctx.given.token(bob, { name: 'bob-secondary' });
    await ctx.given.token(alice, { name: 'alice-secondary' });

    const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: alice.token });

    expect(response.statusCode).toBe(200);
    const names = (response.json().data as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(['alice-secondary', 'CLI token']);
    const aliceIds = (await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', alice.id).execute()).map(
      (r) => r.id,
    );
    expect((response.json().data as { id: number }[]).map((t) => t.id).sort()).toEqual(aliceIds.sort());
  });

  it('works with a read-only token (ability read, D6)', async ({ ctx }) => {
    const user = await ctx.given.user({ abilities: ['read'] });
    const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toHaveLength(1);
  });
});
