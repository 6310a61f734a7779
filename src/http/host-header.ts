import { isIPv6 } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../wire/api-error.js';

/** A DNS-style name (letters, digits, `-`, `_`, dot-separated, a trailing dot allowed) or an IPv4 address. */
const NAME = /^(?=.{1,253}\.?$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;
const HOST_AND_PORT = /^(?:\[([^\]]*)\]|([^:]*))(?::(\d{1,5}))?$/;

/** RFC 9110's `Host`: a host name or IP address (IPv6 in brackets), and an optional port. */
export function isValidHost(value: string): boolean {
  const match = HOST_AND_PORT.exec(value);
  if (match === null) return false;
  const [, ipv6, name, port] = match;
  if (port !== undefined && Number(port) > 65_535) return false;
  return ipv6 !== undefined ? isIPv6(ipv6) : NAME.test(name!);
}

/**
 * D24: a request whose `Host` is not host[:port] (`evil.example/path?x=`, say) is refused with 400.
 * Links are built from the host when PUBLIC_URL is unset (D16), so a host is only ever copied into
 * them once it has this shape. HTTP/1.1 requires a Host (RFC 9112), and Node's own refusal has no
 * JSON body, so that check is made here too (app.ts turns Node's off); an HTTP/1.0 request without
 * one is let through: health checks send those.
 */
export function rejectInvalidHost(request: FastifyRequest): void {
  const sent = request.headers.host;
  if (sent === undefined && request.raw.httpVersion === '1.1') throw badRequest('An HTTP/1.1 request must carry a Host header.');
  // With TRUST_PROXY, `request.host` is the proxy's X-Forwarded-Host: held to the same shape.
  if ((sent !== undefined && !isValidHost(sent)) || (request.host && !isValidHost(request.host))) {
    throw badRequest('The Host header must be a host name or IP address, with an optional port.');
  }
}
