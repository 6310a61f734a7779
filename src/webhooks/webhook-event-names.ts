/**
 * E6: the events a webhook may subscribe to (`events` is a non-empty subset of these). A module of
 * its own, without dependencies, so the dashboard (web/) offers exactly these in its form.
 */
export const WEBHOOK_EVENTS = [
  'report.created',
  'report.gate_failed',
  'run.failed',
  'project.token_regenerated',
  'project.archived',
  'issue.updated',
  'ping',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
