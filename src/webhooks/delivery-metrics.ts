import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { createDeliveryQueue } from './delivery-queue.js';
import type { DeliveryOutcome } from './delivery-worker.js';

/**
 * E6 on /metrics: attempts by event and outcome (this instance's), and the outbox's backlog (all
 * instances': read from the database at each scrape, so any instance reports the same).
 */
export function registerDeliveryMetrics(registry: Registry, deps: { db: Db; clock: Clock }) {
  const attempts = new Counter({
    name: 'scoreboard_webhook_deliveries_total',
    help: 'Webhook delivery attempts made by this instance, by event and outcome (succeeded, retrying, failed)',
    labelNames: ['event', 'outcome'] as const,
    registers: [registry],
  });
  const queue = createDeliveryQueue(deps.db);
  // Each gauge reads the backlog itself (the registry collects them at once, in no set order): two
  // small indexed queries a scrape. A database that cannot answer leaves a gauge as it was, and
  // /metrics keeps answering.
  const backlog = () => queue.backlog().catch(() => null);
  new Gauge({
    name: 'scoreboard_webhook_queue_depth',
    help: 'Webhook deliveries waiting for an attempt (pending)',
    registers: [registry],
    async collect() {
      const now = await backlog();
      if (now) this.set(now.pending);
    },
  });
  new Gauge({
    name: 'scoreboard_webhook_oldest_pending_age_seconds',
    help: 'Age of the oldest pending webhook delivery, 0 when none',
    registers: [registry],
    async collect() {
      const now = await backlog();
      if (!now) return;
      this.set(now.oldest === null ? 0 : Math.max(0, (deps.clock.now().getTime() - new Date(now.oldest).getTime()) / 1000));
    },
  });
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
