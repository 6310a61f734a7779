import type { Clock } from '../clock.js';
import { type DatabaseFailure, type DatabaseFailureCause, WRITE_SIDE_CAUSES } from './errors.js';

/** What the outage log writes with (pino's, and so Fastify's, logger has these). */
export interface OutageLogger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** At most one count line per this many milliseconds of an outage (D38). */
export const OUTAGE_SUMMARY_INTERVAL_MS = 10_000;

/**
 * An outage is over once the database has worked this long without failing a request. Without it
 * an outage that lets some statements through (a full disk still takes an update in place; a slow
 * link answers some statements in time) would start and end with nearly every request.
 */
export const OUTAGE_QUIET_MS = 10_000;

/**
 * A statement that shows writes work. Not `commit`: a transaction that only read commits as well
 * (and on SQLite the driver's commit is not reported at all).
 */
const WRITE_STATEMENT = /^\s*(insert|update|delete)\b/i;

interface Outage {
  cause: DatabaseFailureCause;
  startedAt: number;
  failed: number;
  failedSinceSummary: number;
  summarisedAt: number;
  /** When the database first worked again with no failure since; null while failures go on. */
  workingSince: number | null;
}

/**
 * D38: an outage of the database is told in the log by a few lines, however many requests it fails:
 * - the first failed request logs one error line naming the cause, with the original error;
 * - the failures after it are counted, and the count logged at most once every 10 s;
 * - the end is logged once the database has worked for `OUTAGE_QUIET_MS` without failing a
 *   request, with how long the outage lasted (to the first statement that worked) and how many
 *   requests it failed; a failure within that time goes on counting in the same outage. A cause
 *   that stops only writes (a full disk, a read-only database, a held lock) works again when a write
 *   succeeds, not a read.
 * Time is the clock's, so a test moves it instead of waiting; no timer runs: the count line is
 * written by the failure that comes 10 s or more after the last one, the end line by the statement
 * that succeeds 10 s or more after the database began working again.
 */
export class OutageLog {
  private outage: Outage | null = null;

  constructor(
    private readonly logger: OutageLogger,
    private readonly clock: Clock,
  ) {}

  /** Whether an outage is going on, and its cause (for tests and /readyz's words). */
  get current(): { cause: DatabaseFailureCause; failed: number } | null {
    return this.outage && { cause: this.outage.cause, failed: this.outage.failed };
  }

  /** A request failed because of the database (`failure`, from `error`). */
  requestFailed(failure: DatabaseFailure, error: unknown): void {
    const now = this.clock.now().getTime();
    const outage = this.outage;
    if (outage === null) {
      this.outage = { cause: failure.cause, startedAt: now, failed: 1, failedSinceSummary: 0, summarisedAt: now, workingSince: null };
      this.logger.error({ err: error, cause: failure.cause }, `database unavailable (${failure.cause}): ${failure.summary}`);
      return;
    }
    outage.failed += 1;
    outage.failedSinceSummary += 1;
    outage.workingSince = null;
    // A cause that stops everything outranks one that stops only writes (a lost connection during a lock wait).
    if (WRITE_SIDE_CAUSES.has(outage.cause) && !WRITE_SIDE_CAUSES.has(failure.cause)) outage.cause = failure.cause;
    const sinceSummary = now - outage.summarisedAt;
    if (sinceSummary >= OUTAGE_SUMMARY_INTERVAL_MS) {
      const seconds = Math.round(sinceSummary / 1000);
      this.logger.warn(
        { cause: failure.cause, failed: outage.failedSinceSummary },
        `database unavailable: ${outage.failedSinceSummary} request${outage.failedSinceSummary === 1 ? '' : 's'} failed in the last ${seconds} s`,
      );
      outage.failedSinceSummary = 0;
      outage.summarisedAt = now;
    }
  }

  /** A statement succeeded (database.ts `onStatementOutcome`): the end of an outage it shows is over. */
  statementSucceeded(sql: string): void {
    const outage = this.outage;
    if (outage === null) return;
    if (WRITE_SIDE_CAUSES.has(outage.cause) && !WRITE_STATEMENT.test(sql)) return;
    const now = this.clock.now().getTime();
    outage.workingSince ??= now;
    if (now - outage.workingSince < OUTAGE_QUIET_MS) return;
    this.outage = null;
    const seconds = Math.round((outage.workingSince - outage.startedAt) / 100) / 10;
    this.logger.info(
      { cause: outage.cause, failed: outage.failed, duration_s: seconds },
      `database available again after ${seconds} s, ${outage.failed} request${outage.failed === 1 ? '' : 's'} failed`,
    );
  }
}
