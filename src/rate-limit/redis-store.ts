import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { memoryStoreOn } from './memory-store.js';

/**
 * One fixed window per key, the same as the in-memory store (D8): it opens at the key's first
 * request and lasts `window` ms. Times come from the service's clock (ARGV[1]) rather than Redis's,
 * so every instance and every test agrees on when a window resets; Redis's own expiry only
 * collects windows nobody uses any more. One round trip, atomic.
 */
const INCREMENT_WINDOW = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local resetAt = tonumber(redis.call('HGET', KEYS[1], 'reset_at'))
if resetAt == nil or resetAt <= now then
  resetAt = now + window
  redis.call('HSET', KEYS[1], 'count', 1, 'reset_at', resetAt)
  redis.call('PEXPIRE', KEYS[1], window * 2)
  return {1, window}
end
local count = redis.call('HINCRBY', KEYS[1], 'count', 1)
return {count, resetAt - now}
`;

type RedisWithWindow = Redis & {
  scoreboardIncrementWindow(key: string, now: number, window: number): Promise<[number, number]>;
};

/** What `/readyz` and `/metrics` report about the counters' backend. */
export interface RateLimitBackendState {
  backend: 'memory' | 'redis';
  /** Since when (ms, service clock) Redis has been failing and counters fell back to memory; null when healthy. */
  degradedSince: number | null;
}

const WARNING_INTERVAL_MS = 60_000;

/**
 * D8 with REDIS_URL: counters shared by every instance. When Redis cannot answer, the limiter fails
 * open to this instance's in-memory counters (a user's request is never refused or failed because
 * Redis is down), logs a warning at most once a minute and reports the state for /readyz and /metrics.
 * Commands must fail fast for this to hold: the client is created without an offline queue and with
 * a command timeout (see `connectRedis`).
 */
export function redisStoreOn(deps: {
  redis: Redis;
  clock: Clock;
  keyPrefix: string;
  logger: FastifyBaseLogger;
  state: RateLimitBackendState;
}): FastifyRateLimitStoreCtor {
  const { redis, clock, keyPrefix, logger, state } = deps;
  const commands = redis as RedisWithWindow;
  if (typeof commands.scoreboardIncrementWindow !== 'function') {
    redis.defineCommand('scoreboardIncrementWindow', { numberOfKeys: 1, lua: INCREMENT_WINDOW });
  }
  const Fallback = memoryStoreOn(clock);
  let lastWarning = Number.NEGATIVE_INFINITY;

  return class RedisRateLimitStore implements FastifyRateLimitStore {
    private readonly fallback = new Fallback({} as never);

    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
      max: number,
    ): void {
      const now = clock.now().getTime();
      commands.scoreboardIncrementWindow(`${keyPrefix}${key}`, now, timeWindow).then(
        ([current, ttl]) => {
          if (state.degradedSince !== null) {
            logger.info('rate-limit counters: Redis is answering again');
            state.degradedSince = null;
          }
          callback(null, { current: Number(current), ttl: Number(ttl) });
        },
        (error: unknown) => {
          state.degradedSince ??= now;
          if (now - lastWarning >= WARNING_INTERVAL_MS) {
            lastWarning = now;
            logger.warn({ err: error }, "rate-limit counters: Redis unavailable, using this instance's memory until it is back");
          }
          this.fallback.incr(key, callback, timeWindow, max);
        },
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
