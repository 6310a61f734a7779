import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/**
 * D16: absolute URLs start from PUBLIC_URL or, when it is unset, the request's scheme and host. The
 * host has been checked to be host[:port] (D24, host-header.ts); a request without one (HTTP/1.0)
 * gets the address it reached. A scheme from a trusted proxy's X-Forwarded-Proto is used only when
 * it is http or https.
 */
export function publicUrl(config: Config, request: FastifyRequest, path: string): string {
  if (config.publicUrl !== undefined) return `${config.publicUrl}${path}`;
  const scheme = request.protocol === 'https' ? 'https' : 'http';
  return `${scheme}://${request.host || localAddress(request)}${path}`;
}

function localAddress(request: FastifyRequest): string {
  const { localAddress = '127.0.0.1', localPort } = request.socket;
  const host = localAddress.includes(':') ? `[${localAddress}]` : localAddress;
  return localPort === undefined ? host : `${host}:${localPort}`;
}
