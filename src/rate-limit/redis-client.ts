import { Redis } from 'ioredis';

/**
 * A Redis client for the rate-limit counters that fails fast instead of waiting: no offline queue
 * (a command while disconnected fails at once), one attempt per command and a short command timeout
 * (REDIS_COMMAND_TIMEOUT_MS). The store then falls back to in-memory counters, so a request never
 * waits long on or fails with Redis. It keeps reconnecting in the background.
 */
export function connectRedis(url: string, commandTimeoutMs: number): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: commandTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Connection errors are reported by the store when a command fails; without a listener ioredis
  // would print each reconnection failure itself.
  redis.on('error', () => {});
  return redis;
}

/**
 * Resolves once the client is connected, or after `timeoutMs` (or at its first connection error)
 * without failing: a service whose Redis is down at start-up still starts, on its fallback counters.
 * Waiting keeps the first requests of a healthy deployment counted in Redis like all later ones.
 */
export async function untilConnected(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
    redis.once('error', done);
  });
}

/** Closes the connection, politely when it is up. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    await redis.quit().catch(() => redis.disconnect());
  } else {
    redis.disconnect();
  }
}
