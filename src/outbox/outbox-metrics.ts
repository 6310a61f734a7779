import type { Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { registerQueueMetrics } from '../jobs/queue-metrics.js';
import { createOutboxQueue } from './outbox-queue.js';
import type { OutboxAttemptOutcome } from './outbox-worker.js';

/** The outbox on /metrics, as E6's deliveries are: attempts by kind and outcome (this instance's), and the backlog (all instances'). */
export function registerOutboxMetrics(registry: Registry, deps: { db: Db; clock: Clock }) {
  const queue = createOutboxQueue(deps.db);
  const attempts = registerQueueMetrics(
    registry,
    { clock: deps.clock, backlog: () => queue.backlog() },
    {
      attempts: {
        name: 'scoreboard_outbox_attempts_total',
        help: 'Calls to other services (ticket comments, ...) attempted by this instance, by kind and outcome (succeeded, retrying, failed)',
        labelNames: ['kind', 'outcome'] as const,
      },
      depth: { name: 'scoreboard_outbox_queue_depth', help: 'Calls to other services waiting for an attempt (pending)' },
      oldestAge: {
        name: 'scoreboard_outbox_oldest_pending_age_seconds',
        help: 'Age of the oldest pending call to another service, 0 when none',
      },
    },
  );
  return {
    onAttempt(kind: string, outcome: OutboxAttemptOutcome): void {
      attempts.inc({ kind, outcome });
    },
  };
}
