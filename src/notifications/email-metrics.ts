import { Counter, type Registry } from 'prom-client';
import type { EmailKind } from './email-kinds.js';
import type { EmailOutcome } from './email-notifications.js';

/**
 * E11.4's metric: what became of each email this instance handled, by kind. An email deferred
 * then sent counts once each; one deferred until E6's schedule ran out shows on the outbox's own
 * counter as `failed` (outbox/outbox-metrics.ts, kind `email`).
 */
export function registerEmailMetrics(registry: Registry): (kind: EmailKind, outcome: EmailOutcome) => void {
  const emails = new Counter({
    name: 'scoreboard_emails_total',
    help: 'Emails handled by this instance, by kind and outcome (sent; deferred: a temporary failure, tried again; rejected: refused for good; skipped: nothing left to send)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  return (kind, outcome) => emails.inc({ kind, outcome });
}
