import type { Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { registerQueueMetrics } from '../jobs/queue-metrics.js';
import { createDeliveryQueue } from './delivery-queue.js';
import type { DeliveryOutcome } from './delivery-worker.js';

/**
 * E6 on /metrics: attempts by event and outcome (this instance's), and the outbox's backlog (all
 * instances': read from the database at each scrape, so any instance reports the same).
 */
export function registerDeliveryMetrics(registry: Registry, deps: { db: Db; clock: Clock }) {
  const queue = createDeliveryQueue(deps.db);
  const attempts = registerQueueMetrics(
    registry,
    { clock: deps.clock, backlog: () => queue.backlog() },
    {
      attempts: {
        name: 'scoreboard_webhook_deliveries_total',
        help: 'Webhook delivery attempts made by this instance, by event and outcome (succeeded, retrying, failed)',
        labelNames: ['event', 'outcome'] as const,
      },
      depth: { name: 'scoreboard_webhook_queue_depth', help: 'Webhook deliveries waiting for an attempt (pending)' },
      oldestAge: { name: 'scoreboard_webhook_oldest_pending_age_seconds', help: 'Age of the oldest pending webhook delivery, 0 when none' },
    },
  );
  return {
    onAttempt(event: string, outcome: DeliveryOutcome): void {
      attempts.inc({ event, outcome });
    },
  };
}

export type DeliveryMetrics = ReturnType<typeof registerDeliveryMetrics>;

declare module 'fastify' {
  interface FastifyInstance {
    /** E6: where the delivery worker counts its attempts (/metrics); decorated by app.ts. */
    webhookMetrics: DeliveryMetrics;
  }
}
