/**
 * E7 sign-in, over the API the dashboard calls: `POST /api/v1/session` with email and password sets
 * the session cookie and returns the CSRF token; a wrong email and a wrong password answer alike;
 * five failures for one email within 15 minutes lock it for 15 minutes; `session.created` is audited.
 */
import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';
import { hashToken } from '../../src/auth/token-hash.js';
import { ISO_UTC, expectError } from '../helpers/contract.js';
import { buildTestApp } from '../helpers/test-app.js';
import { INVALID_CREDENTIALS, PASSWORD, postSignIn } from './session-world.js';

const MINUTE = 60_000;

describe('POST /api/v1/session (E7 sign-in)', () => {
  it('signs in with email and password: 201, the session, an HttpOnly SameSite=Lax cookie, and session.created audited', async ({
    ctx,
  }) => {
    const user = await ctx.given.user({ name: 'Ada' });
    await ctx.given.password(user, PASSWORD);
    const response = await postSignIn(ctx, `  ${user.email.toUpperCase()} `, PASSWORD, { headers: { 'user-agent': 'Browser/1.0' } });

    expect(response.statusCode).toBe(201);
    const { data } = response.json();
    expect(data).toEqual({
      user: { id: user.id, email: user.email, name: 'Ada' },
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expires_at: new Date(ctx.clock.now().getTime() + 7 * 24 * 60 * MINUTE).toISOString(),
      idle_expires_at: new Date(ctx.clock.now().getTime() + 12 * 60 * MINUTE).toISOString(),
    });
    expect(data.expires_at).toMatch(ISO_UTC);

    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(/^scoreboard_session=[A-Za-z0-9_-]{43}; /);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).not.toMatch(/Secure/);
    // The CSRF token is not the cookie's value (the page never sees the cookie).
    const secret = response.cookies[0]!.value;
    expect(data.csrf_token).not.toBe(secret);

    // Stored hashed, never as sent.
    const rows = await ctx.db.selectFrom('sessions').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ user_id: user.id, token_hash: hashToken(secret), user_agent: 'Browser/1.0' });
    expect(JSON.stringify(rows)).not.toContain(secret);

    const event = await ctx.db.selectFrom('audit_events').selectAll().where('action', '=', 'session.created').executeTakeFirstOrThrow();
    expect(event).toMatchObject({
      actor_type: 'user',
      actor_id: user.id,
      actor_email: user.email,
      actor_token_id: null,
      target_type: 'session',
      target_id: String(rows[0]!.id),
      user_id: user.id,
      user_agent: 'Browser/1.0',
    });
    expect(event.details).not.toContain(secret);
  });

  it('gives a wrong password, an unknown email and a user without a password the same answer', async ({ ctx }) => {
    const user = await ctx.given.user();
    await ctx.given.password(user, PASSWORD);
    const withoutPassword = await ctx.given.user();
    const answers = [
      await postSignIn(ctx, user.email, 'not the password at all'),
      await postSignIn(ctx, 'nobody@example.com', PASSWORD),
      await postSignIn(ctx, withoutPassword.email, PASSWORD),
    ];
    for (const response of answers) {
      expectError(response, 401, INVALID_CREDENTIALS);
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    expect(await ctx.db.selectFrom('sessions').selectAll().execute()).toEqual([]);
  });

  it('refuses a body without email or password with 422, and a token is not a password', async ({ ctx }) => {
    const user = await ctx.given.user();
    await ctx.given.password(user, PASSWORD);
    const missing = await ctx.request({ method: 'POST', url: '/api/v1/session', body: { email: user.email } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors).toEqual({ password: ['The password field is required.'] });
    expectError(await postSignIn(ctx, user.email, user.token), 401, INVALID_CREDENTIALS);
  });

  it('trims a password like every string it reads (D12): spaces around it do not count', async ({ ctx }) => {
    const user = await ctx.given.user();
    await ctx.given.password(user, 'spaced out passphrase');
    expect((await postSignIn(ctx, user.email, '  spaced out passphrase \u200b')).statusCode).toBe(201);
    expect((await postSignIn(ctx, user.email, 'spaced  out passphrase')).statusCode).toBe(401);
    // Twelve characters once trimmed.
    const session = await postSignIn(ctx, user.email, 'spaced out passphrase');
    const change = await ctx.request({
      method: 'PUT',
      url: '/api/v1/user/password',
      headers: { cookie: `scoreboard_session=${session.cookies[0]!.value}`, 'x-csrf-token': session.json().data.csrf_token },
      body: { current_password: 'spaced out passphrase', password: `   ${'x'.repeat(11)}   ` },
    });
    expect(change.statusCode).toBe(422);
    expect(change.json().errors).toEqual({ password: ['The password must be at least 12 characters.'] });
  });

  it('uses the __Host- cookie with Secure when served over HTTPS (PUBLIC_URL)', async () => {
    const https = await buildTestApp({ env: { PUBLIC_URL: 'https://scoreboard.example.com' } });
    try {
      const user = await https.given.user();
      await https.given.password(user, PASSWORD);
      const response = await postSignIn(https, user.email, PASSWORD);
      expect(response.statusCode).toBe(201);
      const setCookie = String(response.headers['set-cookie']);
      expect(setCookie).toMatch(/^__Host-scoreboard_session=[A-Za-z0-9_-]{43}; /);
      expect(setCookie).toMatch(/; Secure/);
      expect(setCookie).toMatch(/; Path=\//);
      expect(setCookie).not.toMatch(/Domain=/);
      const secret = response.cookies[0]!.value;
      const withPrefix = await https.request({
        method: 'GET',
        url: '/api/v1/session',
        headers: { cookie: `__Host-scoreboard_session=${secret}` },
      });
      expect(withPrefix.statusCode).toBe(200);
      // Over HTTPS only the prefixed cookie counts: a plain one could have been set over HTTP by someone else.
      const plain = await https.request({ method: 'GET', url: '/api/v1/session', headers: { cookie: `scoreboard_session=${secret}` } });
      expect(plain.statusCode).toBe(401);
    } finally {
      await https.close();
    }
  });

  describe('lockout', () => {
    it('locks an email for 15 minutes after five failures within 15 minutes, even for the right password, then lets it in', async ({
      ctx,
    }) => {
      const user = await ctx.given.user();
      await ctx.given.password(user, PASSWORD);
      for (let i = 0; i < 5; i++) {
        ctx.clock.advance(MINUTE);
        expectError(await postSignIn(ctx, user.email, `wrong password ${i}`), 401, INVALID_CREDENTIALS);
      }
      const locked = await postSignIn(ctx, user.email, PASSWORD);
      expect(locked.statusCode).toBe(429);
      expect(locked.headers['retry-after']).toBe('900');
      expect(locked.json()).toEqual({
        error: 'Too Many Requests',
        message: 'Too many failed sign-in attempts for this email. Try again in 15 minutes.',
        retry_after: 900,
      });
      expect(await ctx.db.selectFrom('sessions').selectAll().execute()).toEqual([]);

      ctx.clock.advance(15 * MINUTE - 1_000);
      const almost = await postSignIn(ctx, user.email, PASSWORD);
      expect(almost.statusCode).toBe(429);
      expect(almost.headers['retry-after']).toBe('1');
      ctx.clock.advance(1_000);
      expect((await postSignIn(ctx, user.email, PASSWORD)).statusCode).toBe(201);
    });

    it('counts failures per email, not per address, for unknown emails too, and forgets them after 15 minutes or a success', async ({
      ctx,
    }) => {
      const user = await ctx.given.user();
      await ctx.given.password(user, PASSWORD);
      // Four failures, a success: the count starts again.
      for (let i = 0; i < 4; i++) await postSignIn(ctx, user.email, 'wrong password!');
      expect((await postSignIn(ctx, user.email, PASSWORD)).statusCode).toBe(201);
      for (let i = 0; i < 4; i++) await postSignIn(ctx, user.email, 'wrong password!');
      expect((await postSignIn(ctx, user.email, PASSWORD)).statusCode).toBe(201);
      // Four failures, 15 minutes, four more: never five within one window.
      for (let i = 0; i < 4; i++) await postSignIn(ctx, user.email, 'wrong password!');
      ctx.clock.advance(15 * MINUTE);
      for (let i = 0; i < 4; i++) await postSignIn(ctx, user.email, 'wrong password!');
      expect((await postSignIn(ctx, user.email, PASSWORD)).statusCode).toBe(201);

      // An unknown email locks like a known one: the answer does not tell which it is.
      for (let i = 0; i < 5; i++) expectError(await postSignIn(ctx, 'ghost@example.com', 'wrong password!'), 401, INVALID_CREDENTIALS);
      expect((await postSignIn(ctx, 'ghost@example.com', 'wrong password!')).statusCode).toBe(429);
      // Another email is not locked by it.
      expect((await postSignIn(ctx, user.email, PASSWORD)).statusCode).toBe(201);
      // 27 scrypt derivations one after another: seconds alone, more beside the rest of the suite.
    });

    it('counts every one of concurrent failures', async ({ ctx }) => {
      const user = await ctx.given.user();
      await ctx.given.password(user, PASSWORD);
      await Promise.all(Array.from({ length: 5 }, () => postSignIn(ctx, user.email, 'wrong password!')));
      expect((await postSignIn(ctx, user.email, PASSWORD)).statusCode).toBe(429);
    });
  });

  it('counts sign-ins against the client address (D8 anonymous budget)', async ({ ctx }) => {
    const user = await ctx.given.user();
    await ctx.given.password(user, PASSWORD);
    const remoteAddress = '203.0.113.77';
    const first = await postSignIn(ctx, user.email, PASSWORD, { remoteAddress });
    const limit = Number(first.headers['x-ratelimit-limit']);
    expect(limit).toBeGreaterThan(0);
    for (let i = 1; i < limit; i++) await postSignIn(ctx, `other${i}@example.com`, 'wrong password!', { remoteAddress });
    const over = await postSignIn(ctx, user.email, PASSWORD, { remoteAddress });
    expect(over.statusCode).toBe(429);
    expect(over.json().error).toBe('Too Many Requests');
  });
});
