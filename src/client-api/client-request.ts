import type { IdentifiedProject } from './identify-project.js';

export type { ClientRateGroup } from '../http/route-kind.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The project whose API token authenticated this client-package request (D10), or null. */
    clientProject: IdentifiedProject | null;
  }
}
