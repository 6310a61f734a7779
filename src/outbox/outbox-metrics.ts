import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { createOutboxQueue } from './outbox-queue.js';
import type { OutboxAttemptOutcome } from './outbox-worker.js';

/**
 * The outbox on /metrics, as E6's deliveries are: attempts by kind and outcome (this instance's),
 * and the backlog (all instances': read from the database at each scrape).
 */
export function registerOutboxMetrics(registry: Registry, deps: { db: Db; clock: Clock }) {
  const attempts = new Counter({
    name: 'scoreboard_outbox_attempts_total',
    help: 'Calls to other services (ticket comments, ...) attempted by this instance, by kind and outcome (succeeded, retrying, failed)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  const queue = createOutboxQueue(deps.db);
  const backlog = () => queue.backlog().catch(() => null);
  new Gauge({
    name: 'scoreboard_outbox_queue_depth',
    help: 'Calls to other services waiting for an attempt (pending)',
    registers: [registry],
    async collect() {
      const now = await backlog();
      if (now) this.set(now.pending);
    },
  });
  new Gauge({
    name: 'scoreboard_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest pending call to another service, 0 when none',
    registers: [registry],
    async collect() {
      const now = await backlog();
      if (!now) return;
      this.set(now.oldest === null ? 0 : Math.max(0, (deps.clock.now().getTime() - new Date(now.oldest).getTime()) / 1000));
    },
  });
  return {
    onAttempt(kind: string, outcome: OutboxAttemptOutcome): void {
      attempts.inc({ kind, outcome });
    },
  };
}
