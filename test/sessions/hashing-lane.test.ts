/**
 * D30: password hashing has its own bounded lane. At most two hashes run at once per instance,
 * outside libuv's pool (which file and network work use), with at most 32 waiting; beyond, 503
 * with Retry-After in D3's envelope. The load it keeps off other requests is measured by the
 * benchmark (`npm run bench -- --scenario sign-in-storm`).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it as plainIt } from 'vitest';
import { buildTestApp } from '../helpers/test-app.js';
import { ApiError } from '../../src/wire/api-error.js';
import { deriveOnLibuv, type DeriveKey, type DeriveRequest } from '../../src/sessions/password-hash.js';
import { createHashingLane, HASHING_QUEUE_MAX, HASHING_THREADS, type HashingLane } from '../../src/sessions/hashing-lane.js';
import { PASSWORD, asSession, postSignIn, signIn } from './session-world.js';
import { HANG_MS } from '../helpers/eventually.js';

/**
 * Real derivations, or, once held, ones that wait for `open()` and answer a wrong key; how many ran
 * at once, at most, and in which order they started.
 */
function heldDerivations() {
  let gate: { promise: Promise<void>; release: () => void } | null = null;
  let faking = false;
  const state = { running: 0, most: 0, started: [] as string[] };
  const derive: DeriveKey = async (request: DeriveRequest) => {
    state.started.push(request.password);
    state.running += 1;
    state.most = Math.max(state.most, state.running);
    try {
      if (!faking) return await deriveOnLibuv(request);
      await gate?.promise;
      // A key no password has: cheap, and always a wrong password.
      return new Uint8Array(request.keyLength);
    } finally {
      state.running -= 1;
    }
  };
  return {
    derive,
    state,
    hold() {
      let release!: () => void;
      const promise = new Promise<void>((resolve) => {
        release = resolve;
      });
      gate = { promise, release };
      faking = true;
    },
    /** Lets the held derivations go; they and the next ones answer a wrong key at once until `real()`. */
    open() {
      gate?.release();
      gate = null;
    },
    real() {
      faking = false;
    },
  };
}

/** Resolves once `check` holds, looking every few milliseconds (the app's requests reach the lane in their own time). */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + HANG_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('the hashing lane (D30)', () => {
  plainIt('runs two derivations at once by default, keeps 32 waiting in order, and refuses the rest with 503 and Retry-After', async () => {
    expect([HASHING_THREADS, HASHING_QUEUE_MAX]).toEqual([2, 32]);
    const held = heldDerivations();
    held.hold();
    const lane = createHashingLane({ derive: held.derive });
    const checks = Array.from({ length: 40 }, (_, i) => lane.verify(`password ${i}`, null).catch((error: unknown) => error));
    await new Promise((resolve) => setImmediate(resolve));
    expect({ running: lane.running, waiting: lane.waiting, started: held.state.started.length }).toEqual({
      running: 2,
      waiting: 32,
      started: 2,
    });
    const refused = (await Promise.all(checks.slice(34))) as ApiError[];
    for (const error of refused) {
      expect(error).toBeInstanceOf(ApiError);
      expect({ status: error.status, title: error.title, retryAfter: error.extra.retryAfter }).toEqual({
        status: 503,
        title: 'Service Unavailable',
        retryAfter: 2,
      });
      expect(error.extra.headers).toEqual({ 'retry-after': '2' });
    }
    held.open();
    expect(await Promise.all(checks.slice(0, 34))).toEqual(Array(34).fill(false));
    expect(held.state.most).toBe(2);
    // First come, first served.
    expect(held.state.started).toEqual(Array.from({ length: 34 }, (_, i) => `password ${i}`));
    expect({ running: lane.running, waiting: lane.waiting }).toEqual({ running: 0, waiting: 0 });
    await lane.close();
  });

  plainIt('hashes and checks passwords on its own threads', async () => {
    const lane = createHashingLane();
    try {
      const hash = await lane.hash(PASSWORD);
      expect(hash).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      expect(await lane.verify(PASSWORD, hash)).toBe(true);
      expect(await lane.verify(`${PASSWORD}!`, hash)).toBe(false);
      expect(await lane.verify(PASSWORD, null)).toBe(false);
    } finally {
      await lane.close();
    }
  });

  /**
   * Whether `lane` checks a password within two seconds while every thread of libuv's pool is held
   * (each blocked opening a FIFO no one writes to: held without using the CPU).
   */
  async function checksWhileLibuvIsHeld(lane: HashingLane): Promise<boolean> {
    await lane.verify(PASSWORD, null); // threads started, so only the derivation is timed below
    const dir = mkdtempSync(join(tmpdir(), 'scoreboard-fifo-'));
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const held = Array.from({ length: Number(process.env.UV_THREADPOOL_SIZE ?? 4) }, () => open(fifo, 'r'));
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const checked = lane.verify(PASSWORD, null).then(() => true);
      return await Promise.race([checked, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000))]);
    } finally {
      // A writer lets every blocked open finish.
      const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      for (const handle of await Promise.all(held)) await handle.close();
      closeSync(writer);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  plainIt(
    "checks a password while libuv's pool is full, which a derivation on that pool cannot",
    async () => {
      const lane = createHashingLane();
      try {
        expect(await checksWhileLibuvIsHeld(lane)).toBe(true);
      } finally {
        await lane.close();
      }
      // The same check with the derivation on libuv's pool waits for a thread of it: the test can fail.
      const onLibuv = createHashingLane({ derive: deriveOnLibuv });
      expect(await checksWhileLibuvIsHeld(onLibuv)).toBe(false);
      await onLibuv.close();
    },
    60_000,
  );
});

describe('the lane behind the routes that hash a password (D30)', () => {
  plainIt(
    'answers sign-in and password change 503 in the envelope, with Retry-After, while 2 run and 32 wait; the refused attempt does not count (D29)',
    async () => {
      const held = heldDerivations();
      const lane = createHashingLane({ derive: held.derive });
      const ctx = await buildTestApp({ deps: { hashingLane: lane } });
      try {
        const user = await ctx.given.user();
        const session = await signIn(ctx, user);
        held.hold();
        const filling = Array.from({ length: 34 }, (_, i) => postSignIn(ctx, `filler${i}@example.com`, 'wrong password!'));
        await until(() => lane.running === 2 && lane.waiting === 32, 'the lane is full');

        const busy = {
          error: 'Service Unavailable',
          message: 'The service is busy checking other passwords. Please try again in a few seconds.',
          retry_after: 2,
        };
        const refused = [
          await postSignIn(ctx, user.email, PASSWORD),
          await asSession(ctx, session, {
            method: 'PUT',
            url: '/api/v1/user/password',
            body: { current_password: PASSWORD, password: 'a brand new passphrase' },
          }),
        ];
        for (const response of refused) {
          expect(response.statusCode, response.body).toBe(503);
          expect(response.headers['retry-after']).toBe('2');
          expect(response.json()).toEqual(busy);
        }
        // Never judged, so not counted against the email.
        expect(await ctx.db.selectFrom('sign_in_attempts').selectAll().where('email', '=', user.email).execute()).toEqual([]);

        held.open();
        expect((await Promise.all(filling)).map((r) => r.statusCode)).toEqual(Array(34).fill(401));
        held.real();
        expect((await postSignIn(ctx, user.email, PASSWORD)).statusCode).toBe(201);
        expect(held.state.most).toBe(2);
      } finally {
        held.open();
        await ctx.close();
        await lane.close();
      }
    },
    60_000,
  );
});
