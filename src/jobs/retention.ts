import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { startPeriodicJob } from './periodic-job.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The instant `days` days before the clock's now, as stored timestamps are written (D2): the retention jobs' cut. */
export function daysAgo(clock: Clock, days: number): string {
  return new Date(clock.now().getTime() - days * DAY_MS).toISOString();
}

/**
 * Calls `deleteBatch(size)` until a batch deletes fewer than `size` rows, and returns how many went
 * in all. Each batch is its own short statement, so writers never wait long behind it; and several
 * instances running it at once share the work (each batch deletes what is still there).
 */
export async function deleteInBatches(size: number, deleteBatch: (size: number) => Promise<number>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const count = await deleteBatch(size);
    deleted += count;
    if (count < size) return deleted;
  }
}

/** Rows per delete in the jobs that delete rows in batches: writers never wait long behind one. */
export const DELETE_BATCH = 1000;

/** What a retention job's `start…` function takes: the database, the clock for the cut, where to log. */
export interface RetentionJobDeps {
  db: Db;
  clock: Clock;
  logger: FastifyBaseLogger;
  /** Every hour unless given. */
  intervalMs?: number;
}

/**
 * Runs `prune` shortly after start, then every hour (periodic-job.ts), until the returned function
 * is called. After a run that deleted rows it logs `message` at info with how many went: `deleted`
 * when `prune` returns a count, else the counts it returns by table; then `fields`.
 */
export function startRetentionJob(
  deps: RetentionJobDeps,
  job: { name: string; prune: () => Promise<number | Record<string, number>>; message: string; fields?: object },
): () => void {
  return startPeriodicJob({
    name: job.name,
    intervalMs: deps.intervalMs ?? 60 * 60 * 1000,
    logger: deps.logger,
    work: async () => {
      const result = await job.prune();
      const counts = typeof result === 'number' ? { deleted: result } : result;
      const deleted = Object.values(counts).reduce((sum, count) => sum + count, 0);
      if (deleted > 0) deps.logger.info({ ...counts, ...job.fields }, job.message);
    },
  });
}

/**
 * A retention job over one table whose rows go once they are `retentionDays` old: `deleteBatch`
 * deletes up to `size` of those created before `cutoff` and returns how many went. Its `prune`
 * deletes them all in batches and returns how many went; its `start` runs that periodically and
 * logs `message` with `deleted` and `retentionDays`.
 */
export function retentionByAge(job: {
  name: string;
  message: string;
  deleteBatch: (db: Db, cutoff: string, size: number) => Promise<number>;
}): {
  prune: (deps: { db: Db; clock: Clock; retentionDays: number }) => Promise<number>;
  start: (deps: RetentionJobDeps & { retentionDays: number }) => () => void;
} {
  const prune = (deps: { db: Db; clock: Clock; retentionDays: number }) => {
    const cutoff = daysAgo(deps.clock, deps.retentionDays);
    return deleteInBatches(DELETE_BATCH, (size) => job.deleteBatch(deps.db, cutoff, size));
  };
  return {
    prune,
    start: (deps) =>
      startRetentionJob(deps, {
        name: job.name,
        prune: () => prune(deps),
        message: job.message,
        fields: { retentionDays: deps.retentionDays },
      }),
  };
}
