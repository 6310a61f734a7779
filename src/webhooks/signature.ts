import { createHmac, randomBytes } from 'node:crypto';

/**
 * E6, signed the Standard Webhooks way (https://www.standardwebhooks.com): receivers verify with
 * the `standardwebhooks` libraries or Symfony's Webhook component, or in a few lines (README).
 */
const SECRET_PREFIX = 'whsec_';

/** `whsec_` + the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The `webhook-signature` header: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed
 * with each secret's decoded bytes, space-separated (the old and the new one while a rotation is
 * recent, so receivers can switch over without dropping a delivery).
 */
export function webhookSignature(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  const signed = `${id}.${timestampSeconds}.${body}`;
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
      return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
    })
    .join(' ');
}
