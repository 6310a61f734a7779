/**
 * D29: sign-in cannot be raced or outsourced (the attacks themselves are replayed in
 * test/owasp/api2-broken-authentication.test.ts).
 * - E7's lock is decided before a password is hashed, atomically, on every instance: in any 15
 *   minutes at most five attempts per email are judged (concurrent ones included); the rest get 429
 *   with Retry-After, and a success cannot unlock what is already over.
 * - `POST /api/v1/session` counts against D8's per-address budget for unidentified requests (10 a
 *   minute), whatever bearer token or session cookie it carries.
 * - A wrong `current_password` on `PUT /api/v1/user/password` is a failure of the user's email.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';
import { createApp } from '../../src/app.js';
import { freshAddress } from '../helpers/contract.js';
import { send } from '../helpers/test-app.js';
import { PASSWORD, asSession, expectRefusedByLock, judged, postSignIn, signIn } from './session-world.js';

const MINUTE = 60_000;
describe('D29 at most five sign-in attempts per email are judged in 15 minutes, concurrent ones included', () => {
  it('answers an unknown email exactly like a known one, through the lock', async ({ ctx }) => {
    const user = await ctx.given.user();
    await ctx.given.password(user, PASSWORD);
    const known = await Promise.all(Array.from({ length: 8 }, (_, i) => postSignIn(ctx, user.email, `wrong password ${i}`)));
    const unknown = await Promise.all(Array.from({ length: 8 }, (_, i) => postSignIn(ctx, 'nobody@example.com', `wrong password ${i}`)));
    const shape = (answers: LightMyRequestResponse[]) =>
      answers.map((r) => `${r.statusCode} ${r.body.replace(/"retry_after":\d+/, '').replace(/\d+ minutes?/, 'N minutes')}`).sort();
    expect(shape(unknown)).toEqual(shape(known));
    expect(judged(known)).toHaveLength(5);
  });

  it('judges at most five in total when the attempts are split across two instances on one store', async ({ ctx }) => {
    const user = await ctx.given.user();
    await ctx.given.password(user, PASSWORD);
    const db = ctx.store.open();
    const second = await createApp(ctx.config, { db, clock: ctx.clock });
    try {
      await second.ready();
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 2 === 0
            ? postSignIn(ctx, user.email, `wrong password ${i}`)
            : send(second, {
                method: 'POST',
                url: '/api/v1/session',
                body: { email: user.email, password: `wrong password ${i}` },
                remoteAddress: freshAddress(),
              }),
        ),
      );
      expect(judged(answers)).toHaveLength(5);
      expectRefusedByLock(answers.filter((r) => r.statusCode !== 401));
    } finally {
      await second.close();
      await db.destroy();
    }
  });
});

describe('D29 a wrong current password is a failed sign-in of the user', () => {
  it('answers five wrong current passwords 422, then 429 with Retry-After, the right one too, and locks sign-in', async ({ ctx, user }) => {
    const session = await signIn(ctx, user);
    const change = (current: string) =>
      asSession(ctx, session, {
        method: 'PUT',
        url: '/api/v1/user/password',
        body: { current_password: current, password: 'a brand new passphrase' },
      });
    for (let i = 0; i < 5; i++) {
      const wrong = await change(`not it ${i} at all`);
      expect(wrong.statusCode).toBe(422);
      expect(wrong.json().errors).toEqual({ current_password: ['The current password is incorrect.'] });
    }
    expectRefusedByLock([await change(PASSWORD)]);
    expectRefusedByLock([await postSignIn(ctx, user.email, PASSWORD)]);
    ctx.clock.advance(15 * MINUTE);
    expect((await change(PASSWORD)).statusCode).toBe(200);
  });
});
