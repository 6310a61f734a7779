/**
 * E7: ended sessions are refused at once (session-access.test.ts); the hourly clean-up then removes
 * their rows, and the failed sign-ins whose window and lock are over, so neither table grows forever.
 */
import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { pruneSessions } from '../../src/sessions/session-retention.js';
import { postSignIn, signIn } from './session-world.js';

const it = appTest.extend(
  'sessionIds',
  ({ ctx }) =>
    async () =>
      (await ctx.db.selectFrom('sessions').select('id').orderBy('id').execute()).map((row) => row.id),
);

const HOUR = 60 * 60 * 1000;

describe('pruneSessions (E7)', () => {
  it('deletes sessions past their idle or absolute end and keeps the live ones', async ({ ctx, sessionIds }) => {
    const user = await ctx.given.user();
    await signIn(ctx, user); // idle from now on
    const busy = await signIn(ctx, user, { setPassword: false });
    const [idle, active] = await sessionIds();

    ctx.clock.advance(11 * HOUR);
    await ctx.request({ method: 'GET', url: '/api/v1/user', headers: { cookie: busy.cookie } });
    ctx.clock.advance(HOUR);
    const fresh = await signIn(ctx, user, { setPassword: false });
    expect(await pruneSessions({ db: ctx.db, clock: ctx.clock })).toEqual({ sessions: 1, failures: 0 });
    const left = await sessionIds();
    expect(left).toHaveLength(2);
    expect(left).toContain(active);
    expect(left).not.toContain(idle);

    // Seven days on, even a session in use has ended.
    for (let h = 0; h < 7 * 24; h += 10) {
      ctx.clock.advance(10 * HOUR);
      await ctx.request({ method: 'GET', url: '/api/v1/user', headers: { cookie: busy.cookie } });
      await ctx.request({ method: 'GET', url: '/api/v1/user', headers: { cookie: fresh.cookie } });
    }
    await pruneSessions({ db: ctx.db, clock: ctx.clock });
    expect(await sessionIds()).not.toContain(active);
  });

  it('forgets failed sign-ins once their window and lock are over, never a lock still running', async ({ ctx }) => {
    for (let i = 0; i < 5; i++) await postSignIn(ctx, 'locked@example.com', 'wrong password!');
    await postSignIn(ctx, 'once@example.com', 'wrong password!');
    expect(await pruneSessions({ db: ctx.db, clock: ctx.clock })).toEqual({ sessions: 0, failures: 0 });

    ctx.clock.advance(15 * 60 * 1000);
    // The single failure's window is over; the lock ends just now, and its row is kept a window longer.
    expect((await pruneSessions({ db: ctx.db, clock: ctx.clock })).failures).toBe(1);
    ctx.clock.advance(15 * 60 * 1000);
    expect((await pruneSessions({ db: ctx.db, clock: ctx.clock })).failures).toBe(1);
    expect(await ctx.db.selectFrom('sign_in_attempts').selectAll().execute()).toEqual([]);
  });
});
