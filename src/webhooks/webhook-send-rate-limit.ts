import type { FastifyInstance } from 'fastify';
import { type ApplyRateLimit, createLimiter } from '../rate-limit/api-rate-limit.js';
import { WEBHOOK_SEND_LIMIT } from '../rate-limit/limits.js';

/**
 * D31: `ping` and `redeliver` share one budget per webhook, in the same store as every other limit
 * (Redis when configured, so shared by every instance). It is counted after the webhook is known to
 * exist and be active, so the path's id is a UUID here; lower-cased, as the database keeps it.
 */
export function createWebhookSendRateLimiter(app: FastifyInstance): ApplyRateLimit {
  return createLimiter(app, {
    key: (request) => `webhook-send:${(request.params as { webhook: string }).webhook.toLowerCase()}`,
    max: () => WEBHOOK_SEND_LIMIT,
    headers: 'when-exceeded',
  });
}
