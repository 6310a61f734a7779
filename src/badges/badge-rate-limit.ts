import type { FastifyInstance } from 'fastify';
import { type ApplyRateLimit, createLimiter } from '../rate-limit/api-rate-limit.js';
import { BADGE_KEY_LIMIT } from '../rate-limit/limits.js';
import { isWellFormedBadgeKey } from './badge-key.js';

/**
 * E2.3 for `/badges/{key}/...`: each badge key has its own budget, in the same store as every other
 * limit (Redis when configured, so shared by every instance). A key without the badge-key shape
 * names nothing (404); all such keys share one bucket, so an arbitrary 8 KiB path segment never
 * becomes a counter of its own.
 */
export function createBadgeRateLimiter(app: FastifyInstance, perKey = BADGE_KEY_LIMIT): ApplyRateLimit {
  return createLimiter(app, {
    key: (request) => {
      const { key } = request.params as { key: string };
      return isWellFormedBadgeKey(key) ? `badge:${key}` : 'badge:malformed';
    },
    max: () => perKey,
  });
}
