import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/** D16: absolute URLs start from PUBLIC_URL or, when it is unset, the request's scheme and host. */
export function publicUrl(config: Config, request: FastifyRequest, path: string): string {
  return `${config.publicUrl ?? `${request.protocol}://${request.host}`}${path}`;
}
