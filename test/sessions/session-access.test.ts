/**
 * E7 sessions as the third way into the API: the cookie authenticates `/api/v1` with the user's full
 * rights through D4's identify step, so every rule holds for the pages too; a bearer token wins; every
 * non-GET request of a session needs its CSRF token; sessions end idle (12 h), absolutely (7 d), at
 * sign-out and at a password change, at once (they live in the database).
 */
import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';
import { SUBSCRIPTION_REQUIRED, UNAUTHENTICATED, expectError } from '../helpers/contract.js';
import { PASSWORD, asSession, postSignIn, signIn } from './session-world.js';

const HOUR = 60 * 60 * 1000;
const CSRF_REFUSED = {
  error: 'Forbidden',
  message: 'The X-CSRF-Token header is missing or does not match this session. Reload the page and try again.',
};
const NEW_PROJECT = { name: 'From the dashboard', framework_version: '12' };

describe('a dashboard session on /api/v1', () => {
  it("reads and writes with the user's full rights, and a write needs the CSRF token", async ({ ctx }) => {
    const user = await ctx.given.user({ abilities: ['read'] });
    const session = await signIn(ctx, user);

    const list = await asSession(ctx, session, { method: 'GET', url: '/api/v1/projects', csrf: null });
    expect(list.statusCode).toBe(200);
    expectError(
      await asSession(ctx, session, { method: 'POST', url: '/api/v1/projects', body: NEW_PROJECT, csrf: null }),
      403,
      CSRF_REFUSED,
    );
    expectError(
      await asSession(ctx, session, {
        method: 'POST',
        url: '/api/v1/projects',
        body: NEW_PROJECT,
        csrf: `${session.csrf.slice(0, -1)}${session.csrf.endsWith('A') ? 'B' : 'A'}`,
      }),
      403,
      CSRF_REFUSED,
    );
    expect(await ctx.db.selectFrom('projects').selectAll().execute()).toEqual([]);

    // The user's only token reads; the session still acts as admin would (E7: full rights).
    const created = await asSession(ctx, session, { method: 'POST', url: '/api/v1/projects', body: NEW_PROJECT });
    expect(created.statusCode).toBe(201);
    const token = await asSession(ctx, session, {
      method: 'POST',
      url: '/api/v1/tokens',
      body: { name: 'made in the page', abilities: ['read'] },
    });
    expect(token.statusCode).toBe(201);

    // The audit trail names the user, and no token.
    const event = await ctx.db.selectFrom('audit_events').selectAll().where('action', '=', 'project.created').executeTakeFirstOrThrow();
    expect(event).toMatchObject({ actor_id: user.id, actor_token_id: null });
  });

  it('refuses a CSRF token of another session', async ({ ctx }) => {
    const user = await ctx.given.user();
    const first = await signIn(ctx, user);
    const second = await signIn(ctx, user, { setPassword: false });
    expectError(
      await asSession(ctx, first, { method: 'POST', url: '/api/v1/projects', body: NEW_PROJECT, csrf: second.csrf }),
      403,
      CSRF_REFUSED,
    );
  });

  it('keeps every rule of the API: D7 subscription, D15 roles and D4 order (401 before CSRF)', async ({ ctx }) => {
    const lapsed = await ctx.given.user({ plan: null });
    const session = await signIn(ctx, lapsed);
    expectError(await asSession(ctx, session, { method: 'GET', url: '/api/v1/projects' }), 403, SUBSCRIPTION_REQUIRED);
    // Tokens need no subscription (D7), so neither does the page that manages them.
    expect((await asSession(ctx, session, { method: 'GET', url: '/api/v1/tokens' })).statusCode).toBe(200);

    const owner = await ctx.given.user();
    const { project } = await ctx.given.project(owner);
    const reader = await ctx.given.user();
    await ctx.given.member(owner.teamId!, reader, 'readonly');
    const readerSession = await signIn(ctx, reader);
    expect((await asSession(ctx, readerSession, { method: 'GET', url: `/api/v1/projects/${project.id}` })).statusCode).toBe(200);
    expect(
      (await asSession(ctx, readerSession, { method: 'PUT', url: `/api/v1/projects/${project.id}`, body: { name: 'Renamed' } })).statusCode,
    ).toBe(404);

    // Without a session, a write is 401 whatever its CSRF header says.
    expectError(
      await ctx.request({ method: 'POST', url: '/api/v1/projects', body: NEW_PROJECT, headers: { 'x-csrf-token': session.csrf } }),
      401,
      UNAUTHENTICATED,
    );
  });

  it('lets a bearer token win over the cookie, even a token that is no good', async ({ ctx }) => {
    const user = await ctx.given.user();
    const other = await ctx.given.user();
    const session = await signIn(ctx, user);
    const asOther = await asSession(ctx, session, { method: 'GET', url: '/api/v1/user', token: other.token });
    expect(asOther.json().data.id).toBe(other.id);
    const badToken = await asSession(ctx, session, { method: 'GET', url: '/api/v1/user', token: 'service_not-a-real-token' });
    expectError(badToken, 401, UNAUTHENTICATED);
    // A token's write needs no CSRF token, cookie or not.
    expect(
      (await asSession(ctx, session, { method: 'POST', url: '/api/v1/projects', body: NEW_PROJECT, token: user.token, csrf: null }))
        .statusCode,
    ).toBe(201);
  });

  it("counts a session's requests against the user's rate limit, shared with their tokens (D8)", async ({ ctx }) => {
    const user = await ctx.given.user();
    const session = await signIn(ctx, user);
    const byToken = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
    const bySession = await asSession(ctx, session, { method: 'GET', url: '/api/v1/tokens' });
    expect(bySession.headers['x-ratelimit-limit']).toBe(byToken.headers['x-ratelimit-limit']);
    expect(Number(bySession.headers['x-ratelimit-remaining'])).toBe(Number(byToken.headers['x-ratelimit-remaining']) - 1);
  });

  describe('GET /api/v1/session', () => {
    it('shows the session and its CSRF token; a token or no credential has none (401)', async ({ ctx }) => {
      const user = await ctx.given.user({ name: 'Grace' });
      const session = await signIn(ctx, user);
      const shown = await asSession(ctx, session, { method: 'GET', url: '/api/v1/session', csrf: null });
      expect(shown.statusCode).toBe(200);
      expect(shown.json()).toEqual(session.response.json());
      expectError(await ctx.request({ method: 'GET', url: '/api/v1/session', token: user.token }), 401, UNAUTHENTICATED);
      expectError(await ctx.request({ method: 'GET', url: '/api/v1/session' }), 401, UNAUTHENTICATED);
      expectError(
        await ctx.request({ method: 'GET', url: '/api/v1/session', headers: { cookie: 'scoreboard_session=x' } }),
        401,
        UNAUTHENTICATED,
      );
    });
  });

  describe('how a session ends', () => {
    it('ends 12 hours after its last request, and requests keep it alive until then', async ({ ctx }) => {
      const user = await ctx.given.user();
      const session = await signIn(ctx, user);
      for (let i = 0; i < 3; i++) {
        ctx.clock.advance(11 * HOUR);
        const shown = await asSession(ctx, session, { method: 'GET', url: '/api/v1/session' });
        expect(shown.statusCode).toBe(200);
        expect(shown.json().data.idle_expires_at).toBe(new Date(ctx.clock.now().getTime() + 12 * HOUR).toISOString());
      }
      ctx.clock.advance(12 * HOUR);
      expectError(await asSession(ctx, session, { method: 'GET', url: '/api/v1/user' }), 401, UNAUTHENTICATED);
    });

    it('ends 7 days after sign-in however active it is', async ({ ctx }) => {
      const user = await ctx.given.user();
      const session = await signIn(ctx, user);
      for (let hours = 0; hours < 7 * 24 - 6; hours += 6) {
        ctx.clock.advance(6 * HOUR);
        expect((await asSession(ctx, session, { method: 'GET', url: '/api/v1/user' })).statusCode, `after ${hours + 6} h`).toBe(200);
      }
      ctx.clock.advance(6 * HOUR);
      expectError(await asSession(ctx, session, { method: 'GET', url: '/api/v1/user' }), 401, UNAUTHENTICATED);
    });

    it('signs out: 204, the cookie cleared, the session refused at once; sign-out needs the CSRF token', async ({ ctx }) => {
      const user = await ctx.given.user();
      const session = await signIn(ctx, user);
      const other = await signIn(ctx, user, { setPassword: false });
      expectError(await asSession(ctx, session, { method: 'DELETE', url: '/api/v1/session', csrf: null }), 403, CSRF_REFUSED);

      const out = await asSession(ctx, session, { method: 'DELETE', url: '/api/v1/session' });
      expect(out.statusCode).toBe(204);
      expect(String(out.headers['set-cookie'])).toMatch(/^scoreboard_session=; Max-Age=0; /);
      expectError(await asSession(ctx, session, { method: 'GET', url: '/api/v1/user' }), 401, UNAUTHENTICATED);
      // Only that session: the user's other one goes on.
      expect((await asSession(ctx, other, { method: 'GET', url: '/api/v1/user' })).statusCode).toBe(200);
      // A token cannot sign out (it has no session).
      expectError(await ctx.request({ method: 'DELETE', url: '/api/v1/session', token: user.token }), 401, UNAUTHENTICATED);
    });

    it('changes the password: the current one must match, the new one has 12 characters, the other sessions end', async ({ ctx }) => {
      const user = await ctx.given.user();
      const session = await signIn(ctx, user);
      const elsewhere = await signIn(ctx, user, { setPassword: false });
      const change = (body: object, csrf?: string | null) =>
        asSession(ctx, session, { method: 'PUT', url: '/api/v1/user/password', body, csrf });

      const wrong = await change({ current_password: 'not my password', password: 'a brand new passphrase' });
      expect(wrong.statusCode).toBe(422);
      expect(wrong.json().errors).toEqual({ current_password: ['The current password is incorrect.'] });
      const short = await change({ current_password: PASSWORD, password: 'too short' });
      expect(short.statusCode).toBe(422);
      expect(short.json().errors).toEqual({ password: ['The password must be at least 12 characters.'] });
      expectError(await change({ current_password: PASSWORD, password: 'a brand new passphrase' }, null), 403, CSRF_REFUSED);

      const changed = await change({ current_password: PASSWORD, password: 'a brand new passphrase' });
      expect(changed.statusCode).toBe(200);
      expect(changed.json()).toEqual({ message: 'Password changed. Your other sessions have been signed out.' });
      expect((await asSession(ctx, session, { method: 'GET', url: '/api/v1/user' })).statusCode).toBe(200);
      expectError(await asSession(ctx, elsewhere, { method: 'GET', url: '/api/v1/user' }), 401, UNAUTHENTICATED);
      expect((await postSignIn(ctx, user.email, PASSWORD)).statusCode).toBe(401);
      expect((await postSignIn(ctx, user.email, 'a brand new passphrase')).statusCode).toBe(201);

      const event = await ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('action', '=', 'user.updated')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(event.details)).toEqual({ password: 'changed' });
      expect(event.details).not.toContain('passphrase');
    });

    it('ends with its user: a deleted user’s session is refused and its rows are gone', async ({ ctx }) => {
      const user = await ctx.given.user();
      const session = await signIn(ctx, user);
      await ctx.db.deleteFrom('users').where('id', '=', user.id).execute();
      expectError(await asSession(ctx, session, { method: 'GET', url: '/api/v1/user' }), 401, UNAUTHENTICATED);
      expect(await ctx.db.selectFrom('sessions').selectAll().execute()).toEqual([]);
    });
  });
});
