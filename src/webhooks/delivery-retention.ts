import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { startPeriodicJob } from '../jobs/periodic-job.js';
import { daysAgo, deleteInBatches } from '../jobs/retention.js';
import { createWebhooksRepository } from './webhooks.repository.js';

/** Rows per delete (jobs/retention.ts): the delivery worker's claims never wait long behind one. */
const BATCH = 1000;
export const DELIVERY_RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/**
 * WEBHOOK_DELIVERY_RETENTION_DAYS: deletes the deliveries created before the retention that are
 * done (succeeded or failed), oldest first, in batches, and returns how many went. A pending one is
 * kept whatever its age (it is still to be attempted), and so is each webhook's newest delivery,
 * which its `last_delivery` shows. Safe with several instances at once, like the audit's.
 */
export async function pruneWebhookDeliveries(deps: { db: Db; clock: Clock; retentionDays: number }): Promise<number> {
  const cutoff = daysAgo(deps.clock, deps.retentionDays);
  const webhooks = createWebhooksRepository(deps.db);
  return deleteInBatches(BATCH, (size) => webhooks.deleteDoneDeliveriesBefore(cutoff, size));
}

/** Runs `pruneWebhookDeliveries` shortly after start, then hourly (jobs/periodic-job.ts), until the returned function is called. */
export function startDeliveryRetention(deps: {
  db: Db;
  clock: Clock;
  retentionDays: number;
  logger: FastifyBaseLogger;
  intervalMs?: number;
}): () => void {
  return startPeriodicJob({
    name: 'webhook delivery retention run',
    intervalMs: deps.intervalMs ?? DELIVERY_RETENTION_INTERVAL_MS,
    logger: deps.logger,
    work: async () => {
      const deleted = await pruneWebhookDeliveries(deps);
      if (deleted > 0) deps.logger.info({ deleted, retentionDays: deps.retentionDays }, 'deleted webhook deliveries past their retention');
    },
  });
}
