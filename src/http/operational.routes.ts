import { sql } from 'kysely';
import { Registry, collectDefaultMetrics, Counter, Histogram } from 'prom-client';
import type { Db } from '../db/database.js';
import { serviceUnavailable } from './api-error.js';
import { Type } from 'typebox';
import type { App } from './app-types.js';
import { ErrorResponse } from './schemas.js';

const Status = Type.Object({ status: Type.String({ examples: ['ok'] }) });

/**
 * D1: operational endpoints; no token, no rate limit. Called on the root instance (not registered as
 * an encapsulated plugin) so the metrics hook sees every request of the application.
 */
export function registerOperationalRoutes(app: App, { db }: { db: Db }): void {
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

  // Route patterns, not raw URLs, keep the label set bounded whatever ids clients send.
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  app.get('/healthz', {
    schema: { tags: ['operations'], summary: 'The process is alive', response: { 200: Status } },
    handler: async () => ({ status: 'ok' }),
  });

  app.get('/readyz', {
    schema: { tags: ['operations'], summary: 'The database is reachable', response: { 200: Status, 503: ErrorResponse } },
    handler: async (request) => {
      try {
        await sql`select 1`.execute(db);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed: database unreachable');
        throw serviceUnavailable();
      }
      return { status: 'ok' };
    },
  });

  app.get('/metrics', {
    schema: { tags: ['operations'], summary: 'Prometheus metrics', hide: true },
    handler: async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  });
}
