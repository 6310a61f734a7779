import type { FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import pinoPretty from 'pino-pretty';

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
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  // E7: a password, a session's CSRF token, a webhook's secret, wherever a log call might put them.
  ...['plain_text_token', 'api_token', 'token', 'password', 'current_password', 'csrf_token', 'secret'].flatMap((key) => [
    key,
    `*.${key}`,
    `*.*.${key}`,
    `*.*.*.${key}`,
  ]),
];

/**
 * Text shaped like a token, wherever it stands (a path segment, a query value, a fragment, a
 * message): a personal access token (`service_` and its body, D9, or any long enough part of one),
 * and a run of 40 or more letters and digits, the shape of a project token (D10), `Bearer` before it
 * or not (a percent-encoded separator before it, `Bearer%20...`, stays). A 40-hex commit id in a URL
 * is blanked too; better that than a token in the log.
 */
const TOKEN_SHAPED = /service_[A-Za-z0-9]{8,}|(?:(?<=%[0-9A-Fa-f]{2})|(?<![A-Za-z0-9%]))[A-Za-z0-9]{40,}(?![A-Za-z0-9])/g;

/**
 * The key of a public badge URL (E2.2, `/badges/{key}/score.svg`): 32 letters and digits, too short
 * for the token shapes above, so it is found by where it stands. Anyone with it can read the badge.
 */
const BADGE_KEY_IN_PATH = /(\/badges\/)[^/?#\s"]+/g;

/** `text` with every token-shaped value, and every badge key in a badge path, replaced by "[Redacted]". */
export function redactTokenShapes(text: string): string {
  return text.replace(TOKEN_SHAPED, REDACTED).replace(BADGE_KEY_IN_PATH, `$1${REDACTED}`);
}

/**
 * The service's logger: pino at `level`, with secrets redacted by name (the paths above) and by
 * shape (in URLs, error messages and log messages), and requests logged without their headers (a
 * client that puts its token in the URL, which no endpoint reads, still does not get it written to
 * the log).
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
              url: redactUrl(request.url),
              host: request.host,
              remoteAddress: request.ip,
              remotePort: request.socket?.remotePort,
            }
          : request,
      err: (error: unknown) => {
        const serialized = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
        for (const key of ['message', 'stack']) {
          if (typeof serialized[key] === 'string') serialized[key] = redactTokenShapes(serialized[key] as string);
        }
        return serialized;
      },
    },
    hooks: {
      // The message of every log line (Fastify's own include a URL now and then).
      logMethod(args, method) {
        const redacted = args.map((arg) => (typeof arg === 'string' ? redactTokenShapes(arg) : arg));
        return method.apply(this, redacted as Parameters<typeof method>);
      },
    },
    ...(stream ? { stream } : {}),
  };
}

function isFastifyRequest(value: unknown): value is FastifyRequest {
  return typeof value === 'object' && value !== null && 'raw' in value && typeof (value as FastifyRequest).url === 'string';
}

/**
 * A URL as it may be logged: secret-named query parameters blanked (`/x?api_token=abc&page=2` ->
 * `/x?api_token=[Redacted]&page=2`), then every token-shaped value anywhere in it.
 */
export function redactUrl(url: string): string {
  return redactTokenShapes(redactQuery(url));
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

/** The request fields that the pretty format puts in its message line (request-log.ts). */
const REQUEST_FIELDS = ['method', 'url', 'status', 'duration_ms', 'route', 'user_id', 'project_id', 'team_id'] as const;

/**
 * LOG_FORMAT=pretty (or a terminal outside production): readable lines for a person, through
 * pino-pretty in this process (not a worker transport: a person reading a terminal does not need the
 * throughput, and tests can capture it). A request reads
 * `[12:00:01.234] INFO: GET /api/v1/projects 200 3.1 ms user 7`; anything else logged keeps its fields
 * on the lines below its message. The lines are made from what pino wrote, so they are redacted the
 * same way as JSON lines.
 */
export function prettyLogStream(options: { colorize: boolean; destination?: NodeJS.WritableStream }): DestinationStream {
  return pinoPretty({
    colorize: options.colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', 'reqId', ...REQUEST_FIELDS].join(','),
    singleLine: false,
    ...(options.destination ? { destination: options.destination } : {}),
    messageFormat: (log, messageKey) => {
      const message = String(log[messageKey] ?? '');
      if (typeof log.method !== 'string' || typeof log.status !== 'number') return message;
      const who = [
        log.user_id !== undefined ? `user ${String(log.user_id)}` : null,
        log.project_id !== undefined ? `project ${String(log.project_id)}` : null,
        log.team_id !== undefined ? `team ${String(log.team_id)}` : null,
      ].filter((part) => part !== null);
      return [log.method, log.url, log.status, `${String(log.duration_ms)} ms`, ...who].join(' ');
    },
  });
}
