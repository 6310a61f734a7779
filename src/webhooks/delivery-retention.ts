import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { startPeriodicJob } from '../jobs/periodic-job.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows per delete: short statements, so the delivery worker's claims never wait long behind one. */
const BATCH = 1000;
export const DELIVERY_RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/**
 * WEBHOOK_DELIVERY_RETENTION_DAYS: deletes the deliveries created before the retention that are
 * done (succeeded or failed), oldest first, in batches, and returns how many went. A pending one is
 * kept whatever its age (it is still to be attempted), and so is each webhook's newest delivery,
 * which its `last_delivery` shows. Safe with several instances at once, like the audit's.
 */
export async function pruneWebhookDeliveries(deps: { db: Db; clock: Clock; retentionDays: number }): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - deps.retentionDays * DAY_MS).toISOString();
  let deleted = 0;
  for (;;) {
    const batch = deps.db
      .selectFrom('webhook_deliveries as d')
      .select('d.id')
      .where('d.created_at', '<', cutoff)
      .where('d.status', 'in', ['succeeded', 'failed'])
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('webhook_deliveries as n')
            .select('n.id')
            .whereRef('n.webhook_id', '=', 'd.webhook_id')
            .where((eb) =>
              eb.or([
                eb('n.created_at', '>', eb.ref('d.created_at')),
                eb.and([eb('n.created_at', '=', eb.ref('d.created_at')), eb('n.id', '>', eb.ref('d.id'))]),
              ]),
            ),
        ),
      )
      .orderBy('d.created_at')
      .limit(BATCH);
    const result = await deps.db.deleteFrom('webhook_deliveries').where('id', 'in', batch).executeTakeFirst();
    const count = Number(result.numDeletedRows);
    deleted += count;
    if (count < BATCH) return deleted;
  }
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
