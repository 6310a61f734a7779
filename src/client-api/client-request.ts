import type { FastifyRequest } from 'fastify';
import type { IdentifiedProject } from './identify-project.js';

/** The rate-limit budgets of a project's client calls, each CLIENT-WIRE.md's per-project limit. */
export type ClientRateGroup = 'reports' | 'failures' | 'reads';

declare module 'fastify' {
  interface FastifyRequest {
    /** The project whose API token authenticated this client-package request (D10), or null. */
    clientProject: IdentifiedProject | null;
  }
  interface FastifyContextConfig {
    /** Marks a client-package route: project-token authentication and `{success, message}` answers. */
    clientApi?: {
      rateGroup: ClientRateGroup;
      /** Extra fields of this route's 401 body (`/api/token/verify` says `valid: false`). */
      unauthenticatedBody?: Record<string, unknown>;
    };
  }
}

/**
 * Whether an answer goes to the client package (CLIENT-WIRE.md): its routes, and any other path
 * under `/api` outside `/api/v1`. Those answers are always JSON objects with `success` and `message`.
 */
export function isClientApiRequest(request: FastifyRequest): boolean {
  if (request.routeOptions?.config?.clientApi !== undefined) return true;
  const path = request.url.split('?')[0]!;
  return (path === '/api' || path.startsWith('/api/')) && path !== '/api/v1' && !path.startsWith('/api/v1/');
}
