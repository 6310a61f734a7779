import rateLimit, { normalizeIP, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { tooManyRequests } from '../wire/api-error.js';
import { ANONYMOUS_IP_LIMIT, RATE_WINDOW_MS, userRequestLimit } from './limits.js';

export type ApplyRateLimit = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Registers @fastify/rate-limit without its own hook: D4 puts the count after the caller is
 * identified and before the 401, so our hooks call the limiters built by `createLimiter` at that step.
 */
export async function registerRateLimiting(app: FastifyInstance, store: FastifyRateLimitStoreCtor): Promise<void> {
  await app.register(rateLimit, { global: false, store });
}

/**
 * One fixed-window limiter (D8): counts the request under `key`, sets X-RateLimit-Limit and
 * X-RateLimit-Remaining on the reply whatever the outcome, and throws 429 with Retry-After when over.
 * A limiter that counts within a request already counted by D8's (`headers: 'when-exceeded'`) sets
 * them only when it refuses: they then describe the budget that is spent, and otherwise the user's.
 */
export function createLimiter(
  app: FastifyInstance,
  rule: {
    key: (request: FastifyRequest) => string;
    max: (request: FastifyRequest) => number;
    headers?: 'always' | 'when-exceeded';
  },
): ApplyRateLimit {
  const limit = app.createRateLimit({ timeWindow: RATE_WINDOW_MS, keyGenerator: rule.key, max: rule.max });
  return async function applyRateLimit(request, reply) {
    const result = await limit(request);
    if (result.isAllowed) return;
    if (!result.isExceeded && rule.headers === 'when-exceeded') return;
    reply.header('x-ratelimit-limit', result.max);
    reply.header('x-ratelimit-remaining', result.remaining);
    if (result.isExceeded) throw tooManyRequests(Math.max(1, result.ttlInSeconds));
  };
}

/** The client IP of D8: the socket's peer, unless TRUST_PROXY lets Fastify read X-Forwarded-For. */
export const clientIp = (request: FastifyRequest) => normalizeIP(request.ip);

/**
 * D8 for `/api/v1`: a request from an identified caller counts against the user (all their tokens
 * share one budget, sized by plan); anything else counts against the client IP.
 */
export function createApiRateLimiter(app: FastifyInstance, userBase: number): ApplyRateLimit {
  return createLimiter(app, {
    key: (request) => (request.caller ? `user:${request.caller.userId}` : `ip:${clientIp(request)}`),
    max: (request) => (request.caller ? userRequestLimit(request.caller.activePlan, userBase) : ANONYMOUS_IP_LIMIT),
  });
}
