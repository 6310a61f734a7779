import type { FastifyInstance } from 'fastify';
import { type ApplyRateLimit, clientIp, createLimiter } from '../rate-limit/api-rate-limit.js';
import { ANONYMOUS_IP_LIMIT } from '../rate-limit/limits.js';
import './client-request.js';

/**
 * CLIENT-WIRE.md for `/api`: a request with a valid project API token counts against that project,
 * `perProject` a window for each group of calls (uploads, failure notices, reads); without one it
 * counts against the client IP like D8's anonymous requests, in a bucket of its own.
 */
export function createClientApiRateLimiter(app: FastifyInstance, perProject: number): ApplyRateLimit {
  return createLimiter(app, {
    key: (request) => {
      const identified = request.clientProject;
      if (identified === null) return `client-ip:${clientIp(request)}`;
      return `project-${request.routeOptions.config.clientApi?.rateGroup ?? 'reads'}:${identified.project.id}`;
    },
    max: (request) => (request.clientProject ? perProject : ANONYMOUS_IP_LIMIT),
  });
}
