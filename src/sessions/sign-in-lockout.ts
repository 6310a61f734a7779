import { inTransaction, type Db } from '../db/database.js';
import { createSessionsRepository } from './sessions.repository.js';

/** E7: five failures for one email within 15 minutes lock sign-in for that email for 15 minutes. */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_MS = 15 * 60 * 1000;

/**
 * Kept in the database, so every instance counts the same failures and honours the same lock.
 * Counted for any email, known or not: a lockout says nothing about whether an account exists.
 */
export function createSignInLockout(db: Db) {
  return {
    /** Seconds until the email may try again, or null when it is not locked. */
    async lockedFor(email: string, now: Date): Promise<number | null> {
      const row = await createSessionsRepository(db).findFailures(email);
      if (!row?.locked_until) return null;
      const remaining = Date.parse(row.locked_until) - now.getTime();
      return remaining > 0 ? Math.ceil(remaining / 1000) : null;
    },

    /** Counts a failure, in a transaction of its own: concurrent failures of one email each count (D26). */
    async recordFailure(email: string, now: Date): Promise<void> {
      await inTransaction(db, async (trx) => {
        const sessions = createSessionsRepository(trx);
        const row = await sessions.lockFailures(email, now.toISOString());
        const windowOver = Date.parse(row.window_started_at) + FAILURE_WINDOW_MS <= now.getTime();
        const lockOver = row.locked_until !== null && Date.parse(row.locked_until) <= now.getTime();
        const fresh = windowOver || lockOver || row.failures === 0;
        const failures = fresh ? 1 : row.failures + 1;
        await sessions.putFailures({
          email,
          failures,
          window_started_at: fresh ? now.toISOString() : row.window_started_at,
          locked_until: failures >= MAX_FAILURES ? new Date(now.getTime() + LOCKOUT_MS).toISOString() : null,
        });
      });
    },
  };
}
