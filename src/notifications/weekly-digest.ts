import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import { startPeriodicJob } from '../jobs/periodic-job.js';
import type { EmailNotifications } from './email-notifications.js';

/**
 * E11.3's weekly digest: Mondays at 08:00 UTC, about the week that ended then. Every instance
 * looks each minute; the first to find a digest due writes its emails, and `notification_events`
 * keeps any other (or a later look) from writing them again. An instance that was down at 08:00
 * still writes it during the day after; later than that, the week's digest is left out rather
 * than sent days late.
 */

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** How late a digest may still go out. */
const CATCH_UP_MS = DAY_MS;

/** The week whose digest is due at `now`: `[Monday 08:00 a week before, Monday 08:00)`, or null when none is. */
export function digestWeekAt(now: Date): { from: string; to: string } | null {
  const at = now.getTime();
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const daysSinceMonday = (now.getUTCDay() + 6) % 7;
  let end = midnight - daysSinceMonday * DAY_MS + 8 * 3_600_000;
  if (end > at) end -= WEEK_MS;
  if (at - end >= CATCH_UP_MS) return null;
  return { from: new Date(end - WEEK_MS).toISOString(), to: new Date(end).toISOString() };
}

export function createWeeklyDigest(deps: { emails: EmailNotifications; clock: Clock }) {
  return {
    /** Writes the digest due now, if any and not written yet; whether it wrote it. */
    async runDue(): Promise<boolean> {
      const week = digestWeekAt(deps.clock.now());
      return week === null ? false : deps.emails.writeDigest(week);
    },
  };
}

export type WeeklyDigest = ReturnType<typeof createWeeklyDigest>;

/** `serve`'s timer: a look each minute until the returned function is called. */
export function startWeeklyDigest(digest: WeeklyDigest, logger: FastifyBaseLogger): () => void {
  return startPeriodicJob({
    name: 'weekly digest',
    intervalMs: 60_000,
    logger,
    work: async () => {
      if (await digest.runDue()) logger.info('wrote the weekly digest emails');
    },
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** E11.3's weekly digest: `serve` looks each minute; tests call `runDue` at the time they set. */
    weeklyDigest: WeeklyDigest;
  }
}
