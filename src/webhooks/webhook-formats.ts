/**
 * E11.5: the bodies a webhook may be sent in: E6's own (`standard`) or a chat service's message. A
 * module of its own, without dependencies, so the dashboard (web/) offers exactly these.
 */
export const WEBHOOK_FORMATS = ['standard', 'slack', 'teams', 'discord'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** How the dashboard names each format. */
export const WEBHOOK_FORMAT_LABELS: Record<WebhookFormat, string> = {
  standard: 'Standard (JSON event)',
  slack: 'Slack or Mattermost',
  teams: 'Microsoft Teams (workflow)',
  discord: 'Discord',
};

/** A stored format; anything unknown (never written) reads as E6's own body, which is what the worker sends then. */
export function storedFormat(stored: string): WebhookFormat {
  return (WEBHOOK_FORMATS as readonly string[]).includes(stored) ? (stored as WebhookFormat) : 'standard';
}
