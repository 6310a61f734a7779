import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { startPeriodicJob } from '../jobs/periodic-job.js';
import { daysAgo, deleteInBatches } from '../jobs/retention.js';
import { createAuditRepository } from './audit.repository.js';

/** Rows per delete (jobs/retention.ts). */
const BATCH = 1000;
export const AUDIT_RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/**
 * E5 / AUDIT_RETENTION_DAYS: deletes the events older than the retention, oldest first, in batches,
 * and returns how many went. Safe with several instances running it at once: each batch deletes
 * what is still there and older than the cut, so two runs share the work and none fails.
 */
export async function pruneAuditEvents(deps: { db: Db; clock: Clock; retentionDays: number }): Promise<number> {
  const cutoff = daysAgo(deps.clock, deps.retentionDays);
  const audit = createAuditRepository(deps.db);
  return deleteInBatches(BATCH, (size) => audit.deleteOlderThan(cutoff, size));
}

/** Runs `pruneAuditEvents` shortly after start, then every hour (jobs/periodic-job.ts), until the returned function is called. */
export function startAuditRetention(deps: {
  db: Db;
  clock: Clock;
  retentionDays: number;
  logger: FastifyBaseLogger;
  intervalMs?: number;
}): () => void {
  return startPeriodicJob({
    name: 'audit retention run',
    intervalMs: deps.intervalMs ?? AUDIT_RETENTION_INTERVAL_MS,
    logger: deps.logger,
    work: async () => {
      const deleted = await pruneAuditEvents(deps);
      if (deleted > 0) deps.logger.info({ deleted, retentionDays: deps.retentionDays }, 'deleted audit events past their retention');
    },
  });
}
