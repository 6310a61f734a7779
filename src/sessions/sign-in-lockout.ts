import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../db/database.js';
import { signInLocked } from '../wire/api-error.js';
import { createSessionsRepository } from './sessions.repository.js';

/** E7: five failures for one email within 15 minutes lock sign-in for that email for 15 minutes. */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_MS = 15 * 60 * 1000;

/** One attempt that counts against an email: reserved before its password is hashed, `failed` once judged wrong. */
interface Attempt {
  id: string;
  at: string;
  failed: boolean;
}

/** What `reserve` hands back: settle it exactly once with the password's verdict, or release it when none came. */
export interface Reservation {
  failed(): Promise<void>;
  succeeded(): Promise<void>;
  /** The password was never judged (the hashing lane was full, the database failed): the attempt does not count. */
  release(): Promise<void>;
}

/**
 * D29: E7's lock decided before a password is hashed, in one locked row per email, so it holds for
 * concurrent attempts and across instances (the row is in the database every instance shares).
 *
 * An email keeps a log of the attempts of the last 15 minutes that count against it: those whose
 * password is being judged, and those judged wrong. An attempt is judged only if it finds fewer than
 * five in the log (`reserve`); the rest get 429 with Retry-After, before any hashing. So in any 15
 * minutes at most five attempts that can fail are judged, concurrent ones included. A success is not
 * a guess that needs bounding: it leaves the log, and forgets the failures before it (E7's count
 * starts again) unless they already lock the email: a success cannot unlock what is already over,
 * and never removes the attempts still being judged beside it.
 *
 * Kept for any email, known or not: a lockout says nothing about whether an account exists.
 */
export function createSignInLockout(db: Db, clock: Clock) {
  /** Runs `change` on the email's log, in a transaction of its own that holds the email's row. */
  async function withAttempts<T>(email: string, change: (state: { attempts: Attempt[]; lockedUntil: number | null; now: number }) => T) {
    return inTransaction(db, async (trx) => {
      const repository = createSessionsRepository(trx);
      const nowDate = clock.now();
      const now = nowDate.getTime();
      const row = await repository.lockAttempts(email, nowDate.toISOString());
      const state = {
        attempts: (JSON.parse(row.attempts) as Attempt[]).filter((attempt) => Date.parse(attempt.at) + FAILURE_WINDOW_MS > now),
        lockedUntil: row.locked_until !== null && Date.parse(row.locked_until) > now ? Date.parse(row.locked_until) : null,
        now,
      };
      const result = change(state);
      if (state.attempts.length === 0 && state.lockedUntil === null) {
        await repository.deleteAttempts(email);
      } else {
        await repository.putAttempts({
          email,
          attempts: JSON.stringify(state.attempts),
          updated_at: new Date(now).toISOString(),
          locked_until: state.lockedUntil === null ? null : new Date(state.lockedUntil).toISOString(),
        });
      }
      return result;
    });
  }

  return {
    /**
     * Counts an attempt for `email` before its password is looked at, or throws 429 (with the
     * seconds until the lock ends, or until the oldest attempt of the log leaves it).
     */
    async reserve(email: string): Promise<Reservation> {
      const id = randomUUID();
      const refusal = await withAttempts(email, (state) => {
        if (state.lockedUntil !== null) return state.lockedUntil - state.now;
        if (state.attempts.length >= MAX_FAILURES) {
          const oldest = Math.min(...state.attempts.map((attempt) => Date.parse(attempt.at)));
          return oldest + FAILURE_WINDOW_MS - state.now;
        }
        state.attempts.push({ id, at: new Date(state.now).toISOString(), failed: false });
        return null;
      });
      if (refusal !== null) throw signInLocked(Math.max(1, Math.ceil(refusal / 1000)));

      let settled = false;
      const settle = (change: Parameters<typeof withAttempts>[1]) => {
        if (settled) return Promise.resolve();
        settled = true;
        return withAttempts(email, change);
      };
      const drop = (attempts: Attempt[]) => {
        const index = attempts.findIndex((attempt) => attempt.id === id);
        if (index >= 0) attempts.splice(index, 1);
      };
      return {
        async failed() {
          await settle((state) => {
            const own = state.attempts.find((attempt) => attempt.id === id);
            // Judged after its 15 minutes (a very slow hash): it still counts, from now.
            if (own) own.failed = true;
            else state.attempts.push({ id, at: new Date(state.now).toISOString(), failed: true });
            const failures = state.attempts.filter((attempt) => attempt.failed).length;
            if (failures >= MAX_FAILURES && state.lockedUntil === null) state.lockedUntil = state.now + LOCKOUT_MS;
          });
        },
        async succeeded() {
          await settle((state) => {
            drop(state.attempts);
            if (state.lockedUntil !== null) return;
            state.attempts = state.attempts.filter((attempt) => !attempt.failed);
          });
        },
        async release() {
          await settle((state) => drop(state.attempts));
        },
      };
    },
  };
}
