import rateLimit, { normalizeIP, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tooManyRequests } from '../http/api-error.js';
import { ANONYMOUS_IP_LIMIT, RATE_WINDOW_MS, userRequestLimit } from './limits.js';

/**
 * D8 for `/api/v1`: a request from an identified caller counts against the user (all their tokens
 * share one budget, sized by plan); anything else counts against the client IP. Runs after the
 * caller is identified and before the 401 (D4 steps 1-3), so we call the library's limiter
 * ourselves instead of letting it add its own hook at a fixed place in the lifecycle.
 */
export async function createApiRateLimiter(app: FastifyInstance, store: FastifyRateLimitStoreCtor) {
  await app.register(rateLimit, { global: false, store });
  const limit = app.createRateLimit({
    timeWindow: RATE_WINDOW_MS,
    keyGenerator: (request) => (request.caller ? `user:${request.caller.userId}` : `ip:${normalizeIP(request.ip)}`),
    max: (request) => (request.caller ? userRequestLimit(request.caller.activePlan) : ANONYMOUS_IP_LIMIT),
  });

  return async function applyApiRateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const result = await limit(request);
    if (result.isAllowed) return;
    // D8: every /api/v1 answer carries these, whatever its status.
    reply.header('x-ratelimit-limit', result.max);
    reply.header('x-ratelimit-remaining', result.remaining);
    if (result.isExceeded) throw tooManyRequests(Math.max(1, result.ttlInSeconds));
  };
}
