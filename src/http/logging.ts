import type { FastifyRequest } from 'fastify';
import type { DestinationStream, LoggerOptions } from 'pino';

const REDACTED = '[Redacted]';

/** Names of fields and query parameters whose values are secrets (D9, D10). */
const SECRET_NAME = /token|secret|password|authorization|api[_-]?key/i;

/**
 * Paths pino replaces with "[Redacted]" wherever they are logged: the bearer value of a request
 * (should anything log the headers), and the plain-text tokens the API returns once, at the top
 * level or up to three levels down (pino's redaction has no "any depth" wildcard).
 */
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  ...['plain_text_token', 'api_token', 'token'].flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`]),
];

/**
 * The service's logger: pino at `level`, with secrets redacted and requests logged without their
 * headers and with secret-looking query parameters blanked (a client that puts its token in the
 * URL, which no endpoint reads, still does not get it written to the log).
 */
export function loggerOptions(level: string, stream?: DestinationStream): LoggerOptions & { stream?: DestinationStream } {
  return {
    level,
    redact: { paths: REDACTED_LOG_PATHS, censor: REDACTED },
    serializers: {
      // Fastify logs its request under `req`; anything else logged there goes through redaction as is.
      req: (request: FastifyRequest | Record<string, unknown>) =>
        isFastifyRequest(request)
          ? {
              method: request.method,
              url: redactQuery(request.url),
              host: request.host,
              remoteAddress: request.ip,
              remotePort: request.socket?.remotePort,
            }
          : request,
    },
    ...(stream ? { stream } : {}),
  };
}

function isFastifyRequest(value: unknown): value is FastifyRequest {
  return typeof value === 'object' && value !== null && 'raw' in value && typeof (value as FastifyRequest).url === 'string';
}

/** `/x?api_token=abc&page=2` -> `/x?api_token=[Redacted]&page=2`; other URLs unchanged. */
export function redactQuery(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const query = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const [rawName = ''] = pair.split('=', 1);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // An undecodable name is kept as sent, and still checked below.
      }
      return SECRET_NAME.test(name) ? `${rawName}=${REDACTED}` : pair;
    });
  return `${url.slice(0, start)}?${query.join('&')}`;
}
