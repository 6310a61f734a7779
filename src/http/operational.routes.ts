import { Registry, collectDefaultMetrics, Counter, Gauge, Histogram } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { DatabaseDeadlineExceeded, databaseFailure } from '../db/errors.js';
import { checkDatabaseWritable } from '../db/readiness.js';
import type { RateLimitBackendState } from '../rate-limit/redis-store.js';
import { databaseUnavailable } from '../wire/api-error.js';
import { Type } from 'typebox';
import type { App } from './app-types.js';
import { ErrorResponse } from '../wire/schemas.js';

const Status = Type.Object({ status: Type.String({ examples: ['ok'] }) });
const Readiness = Type.Object({
  status: Type.String({ examples: ['ok'] }),
  database: Type.String({ examples: ['ok'] }),
  rate_limit_counters: Type.String({
    examples: ['redis'],
    description: '`memory`, `redis`, or `memory (redis unavailable)` while Redis fails and counters fall back to this instance',
  }),
});

/**
 * D37: /readyz answers within this, whatever the database does: a balancer's probe that hangs tells
 * it nothing (and it would time the probe out itself). Past it the instance is not ready (503).
 */
export const READINESS_DEADLINE_MS = 2_000;

/** `check`, or a rejection once READINESS_DEADLINE_MS has passed (the check goes on to its own deadline). */
async function withinReadinessDeadline<T>(check: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DatabaseDeadlineExceeded(`no answer from the database within ${READINESS_DEADLINE_MS} ms`)),
      READINESS_DEADLINE_MS,
    );
  });
  check.catch(() => {}); // its failure after the deadline is already answered
  try {
    return await Promise.race([check, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * D1: operational endpoints; no token, no rate limit. Called on the root instance (not registered as
 * an encapsulated plugin) so the metrics hook sees every request of the application.
 */
export function registerOperationalRoutes(
  app: App,
  { db, clock, rateLimitState }: { db: Db; clock: Clock; rateLimitState: RateLimitBackendState },
): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  new Gauge({
    name: 'scoreboard_rate_limit_fallback',
    help: "1 while Redis is unavailable and rate-limit counters fall back to this instance's memory",
    registers: [registry],
    collect() {
      this.set(rateLimitState.degradedSince === null ? 0 : 1);
    },
  });

  // Route patterns, not raw URLs, keep the label set bounded whatever ids clients send.
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  app.get('/healthz', {
    // 400: a Host header that is not host[:port] (D24); a request without one (HTTP/1.0) is answered.
    schema: { tags: ['operations'], summary: 'The process is alive', response: { 200: Status, 400: ErrorResponse } },
    handler: async () => ({ status: 'ok' }),
  });

  app.get('/readyz', {
    schema: {
      tags: ['operations'],
      summary: 'The database can be written to (and where rate-limit counters live)',
      response: { 200: Readiness, 400: ErrorResponse, 503: ErrorResponse },
    },
    handler: async (request) => {
      try {
        await withinReadinessDeadline(checkDatabaseWritable(db, clock));
      } catch (error) {
        // The database's own errors go to the error handler: a 503 with Retry-After, counted in the outage log.
        if (databaseFailure(error)) throw error;
        request.log.warn({ err: error }, 'readiness check failed');
        throw databaseUnavailable();
      }
      // Redis down does not make the instance unready: the limiter fails open to memory (issue 4).
      const counters =
        rateLimitState.backend === 'memory' ? 'memory' : rateLimitState.degradedSince === null ? 'redis' : 'memory (redis unavailable)';
      return { status: 'ok', database: 'ok', rate_limit_counters: counters };
    },
  });

  app.get('/metrics', {
    schema: { tags: ['operations'], summary: 'Prometheus metrics', hide: true },
    handler: async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  });
  return registry;
}
