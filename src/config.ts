import { availableParallelism } from 'node:os';
import { envSchema } from 'env-schema';
import { Type, type Static } from 'typebox';
import { parseSecretKey } from './secrets/secret-box.js';

/**
 * D21: configuration comes from the environment (and a `.env` file in the working directory).
 * This schema is the single source: it validates, applies defaults and types the result.
 * A bad value throws an error whose message names the variable (`env/PORT must be integer`).
 */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  // A host name or an address, without a port (PORT) or a scheme: `localhost:3000` would be looked
  // up as a host name and fail far from its cause.
  HOST: Type.String({ pattern: '^([^\\s:/]+|[0-9A-Fa-f.]*:[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*)$', default: '127.0.0.1' }),
  DATABASE_URL: Type.String({
    pattern: '^(sqlite:.+|postgres(ql)?://.+)$',
    default: 'sqlite:./data/scoreboard.db',
  }),
  // PostgreSQL only: connections per instance, how long one statement may run (the server cancels it
  // a little earlier; the client gives up on a silent connection at this time), and how long getting
  // a connection (waiting for a free one, then connecting) may take. Each failure answers 503.
  DATABASE_POOL_MAX: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 10_000 }),
  DATABASE_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 1, maximum: 60_000, default: 5_000 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://.+' })),
  // Keys of the rate-limit counters; instances sharing counters must share the prefix.
  REDIS_KEY_PREFIX: Type.String({ default: 'scoreboard:rl:' }),
  // How long a counter command may wait for Redis before this instance counts in memory instead.
  REDIS_COMMAND_TIMEOUT_MS: Type.Integer({ minimum: 1, maximum: 60_000, default: 500 }),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$' })),
  TRUST_PROXY: Type.Optional(Type.String()),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  // `json` (one object a line, for machines) or `pretty` (readable lines, through pino-pretty). Unset:
  // pretty when stdout is a terminal and NODE_ENV is not `production`, else json.
  LOG_FORMAT: Type.Optional(Type.Enum(['json', 'pretty'])),
  // `production` makes JSON the log format even on a terminal (unless LOG_FORMAT says otherwise).
  NODE_ENV: Type.String({ default: 'development' }),
  // Slow clients (slow-loris): the whole header block must arrive within HTTP_HEADERS_TIMEOUT_MS and the
  // whole request, body included, within HTTP_REQUEST_TIMEOUT_MS; else Node answers 408 and closes.
  HTTP_HEADERS_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 10_000 }),
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 30_000 }),
  // On SIGTERM/SIGINT, how long in-flight requests and webhook attempts may take before the process
  // exits anyway. D39: the default leaves room for an attempt's own 10 s timeout and its record.
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 15_000 }),
  // D8's 120 requests a minute per user, before the plan's multiplier. Raise it only for load tests.
  RATE_LIMIT_USER_BASE: Type.Integer({ minimum: 1, default: 120 }),
  // Adds X-SQL-Statements (statements run for the request) to every answer: for the benchmark.
  SQL_STATEMENT_HEADER: Type.Boolean({ default: false }),
  // CLIENT-WIRE.md: report uploads are limited per project, 60 a minute unless configured.
  UPLOAD_RATE_LIMIT: Type.Integer({ minimum: 1, default: 60 }),
  // E2.3: requests a minute for each public badge key, 600 unless configured (load tests).
  BADGE_RATE_LIMIT: Type.Integer({ minimum: 1, default: 600 }),
  // E5: audit events older than this many days are deleted by a periodic job.
  AUDIT_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 36_500, default: 365 }),
  // Reports stored more than this many days ago, and a project's reports beyond its this-many
  // newest, are deleted by a periodic job; never a project's latest report or that report's
  // baseline. Unset (the default): reports are kept until deleted.
  REPORT_RETENTION_DAYS: Type.Optional(Type.Integer({ minimum: 1, maximum: 36_500 })),
  REPORT_RETENTION_KEEP: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  // E6: webhook deliveries to private, loopback or link-local addresses are refused unless this is
  // true (self-hosted receivers, tests); and how many attempts one instance makes at once.
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: Type.Boolean({ default: false }),
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 256, default: 8 }),
  // Deliveries done (succeeded or failed) longer ago than this many days are deleted hourly; a
  // pending one and each webhook's newest are kept.
  WEBHOOK_DELIVERY_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 36_500, default: 30 }),
  // D28: threads that parse large uploads and build report answers off the event loop. Unset: one
  // less than the cores (at least 1); 0 does everything on the event loop.
  WORKER_THREADS: Type.Optional(Type.Integer({ minimum: 0, maximum: 64 })),
  // Heavy tasks that may wait for a thread; beyond, an upload is answered 503 with Retry-After.
  WORKER_QUEUE_MAX: Type.Integer({ minimum: 1, maximum: 10_000, default: 16 }),
  // Upload bodies (and stored results) smaller than this are handled on the event loop, where they
  // cost less than a thread's round trip.
  WORKER_INLINE_MAX_BYTES: Type.Integer({ minimum: 0, default: 262_144 }),
  // E9.2: the key (32 bytes, base64) that seals stored credentials and webhook secrets, and during a
  // rotation the one before it. Unset on SQLite: generated into secret.key beside the database file.
  SECRET_KEY: Type.Optional(Type.String()),
  SECRET_KEY_PREVIOUS: Type.Optional(Type.String()),
  // E11.1: email goes out only when both are set. The SMTP server's URL (smtp:// or smtps://, a user
  // and password in it when the server wants them) and the sender, `a@b` or `Name <a@b>`.
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://[^\\s/?#]+([/?][^\\s]*)?$' })),
  MAIL_FROM: Type.Optional(Type.String({ pattern: '^([^<>\\r\\n]*<[^\\s@<>]+@[^\\s@<>]+>|[^\\s@<>]+@[^\\s@<>]+)$' })),
});

type Env = Static<typeof EnvSchema>;

/** Every variable the service reads (`.env.example` lists them all, with their defaults). */
export const ENV_VARIABLES = Object.keys(EnvSchema.properties);

/** Fastify's `trustProxy`: false, true, a hop count, or a list of trusted addresses/CIDRs. */
export type TrustProxy = boolean | number | string;

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly databasePoolMax: number;
  readonly databaseStatementTimeoutMs: number;
  readonly databaseConnectTimeoutMs: number;
  readonly redisUrl: string | undefined;
  readonly redisKeyPrefix: string;
  readonly redisCommandTimeoutMs: number;
  readonly publicUrl: string | undefined;
  readonly trustProxy: TrustProxy;
  readonly logLevel: string;
  /** The log format asked for, or undefined to choose by the terminal (`logFormatFor`). */
  readonly logFormat: LogFormat | undefined;
  readonly isProduction: boolean;
  readonly shutdownTimeoutMs: number;
  readonly httpHeadersTimeoutMs: number;
  readonly httpRequestTimeoutMs: number;
  readonly rateLimitUserBase: number;
  readonly sqlStatementHeader: boolean;
  /** Client-package requests per project and minute (CLIENT-WIRE.md). */
  readonly uploadRateLimit: number;
  /** E2.3: requests per public badge key and minute. */
  readonly badgeRateLimit: number;
  /** E5: how long audit events are kept. */
  readonly auditRetentionDays: number;
  /** Issue 15: which reports the retention job deletes (reports/report-retention.ts); both unset by default. */
  readonly reportRetention: { readonly days?: number; readonly keep?: number };
  /** E6: the delivery worker (webhooks/delivery-worker.ts). */
  readonly webhookAllowPrivateNetworks: boolean;
  readonly webhookConcurrency: number;
  readonly webhookDeliveryRetentionDays: number;
  /** D28: the heavy-work threads (reports/threads/heavy-work.ts). */
  readonly workerThreads: number;
  readonly workerQueueMax: number;
  readonly workerInlineMaxBytes: number;
  /** E9.2 (secrets/secret-keys.ts); checked to be 32 bytes of base64. Never logged. */
  readonly secretKey: string | undefined;
  readonly secretKeyPrevious: string | undefined;
  /** E11.1: the SMTP server's URL; it may hold a password, so it is never logged nor repeated in an error. */
  readonly smtpUrl: string | undefined;
  /** E11.1: the sender of every email (`a@b` or `Name <a@b>`). */
  readonly mailFrom: string | undefined;
}

/** E11.1: email is available only when both the SMTP server and the sender are configured. */
export function emailConfigured(config: Pick<Config, 'smtpUrl' | 'mailFrom'>): boolean {
  return config.smtpUrl !== undefined && config.mailFrom !== undefined;
}

export type LogFormat = 'json' | 'pretty';

/** The log format to use: the one configured, else pretty on a terminal outside production, else JSON. */
export function logFormatFor(config: Pick<Config, 'logFormat' | 'isProduction'>, stdoutIsTerminal: boolean): LogFormat {
  return config.logFormat ?? (stdoutIsTerminal && !config.isProduction ? 'pretty' : 'json');
}

export class ConfigError extends Error {}

/** `dotenv`: read `.env` from the current folder (`true`) or from `path`; the environment's values win. */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  options: { dotenv?: boolean | { path: string } } = {},
): Config {
  let parsed: Env;
  try {
    // Blank values count as unset, so `PUBLIC_URL=` in a .env file means "no public URL".
    const data = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
    parsed = envSchema<Env>({ schema: structuredClone(EnvSchema), data, env: false, dotenv: options.dotenv ?? false });
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${explainRefusal((error as Error).message, env)}`);
  }
  if (parsed.HTTP_HEADERS_TIMEOUT_MS > parsed.HTTP_REQUEST_TIMEOUT_MS) {
    // Node refuses to start otherwise; say it in the variables' names.
    throw new ConfigError('Invalid configuration: env/HTTP_HEADERS_TIMEOUT_MS must not be larger than HTTP_REQUEST_TIMEOUT_MS');
  }
  for (const name of ['SECRET_KEY', 'SECRET_KEY_PREVIOUS'] as const) {
    const value = parsed[name];
    // `SECRET_KEY=` (as .env.example leaves it) is no key, not a malformed one.
    if (value === undefined || value === '') continue;
    try {
      parseSecretKey(value);
    } catch (error) {
      // The value is a secret: the message says what is wrong with it, never what it is.
      throw new ConfigError(`Invalid configuration: env/${name} ${(error as Error).message}; generate one with: openssl rand -base64 32`);
    }
  }
  if (parsed.SMTP_URL !== undefined) checkSmtpUrl(parsed.SMTP_URL);
  return Object.freeze({
    port: parsed.PORT,
    host: parsed.HOST,
    databaseUrl: parsed.DATABASE_URL,
    databasePoolMax: parsed.DATABASE_POOL_MAX,
    databaseStatementTimeoutMs: parsed.DATABASE_STATEMENT_TIMEOUT_MS,
    databaseConnectTimeoutMs: parsed.DATABASE_CONNECT_TIMEOUT_MS,
    redisUrl: parsed.REDIS_URL,
    redisKeyPrefix: parsed.REDIS_KEY_PREFIX,
    redisCommandTimeoutMs: parsed.REDIS_COMMAND_TIMEOUT_MS,
    publicUrl: parsed.PUBLIC_URL?.replace(/\/+$/, ''),
    trustProxy: parseTrustProxy(parsed.TRUST_PROXY),
    logLevel: parsed.LOG_LEVEL,
    logFormat: parsed.LOG_FORMAT,
    isProduction: parsed.NODE_ENV === 'production',
    uploadRateLimit: parsed.UPLOAD_RATE_LIMIT,
    badgeRateLimit: parsed.BADGE_RATE_LIMIT,
    shutdownTimeoutMs: parsed.SHUTDOWN_TIMEOUT_MS,
    httpHeadersTimeoutMs: parsed.HTTP_HEADERS_TIMEOUT_MS,
    httpRequestTimeoutMs: parsed.HTTP_REQUEST_TIMEOUT_MS,
    rateLimitUserBase: parsed.RATE_LIMIT_USER_BASE,
    sqlStatementHeader: parsed.SQL_STATEMENT_HEADER,
    auditRetentionDays: parsed.AUDIT_RETENTION_DAYS,
    reportRetention: Object.freeze({ days: parsed.REPORT_RETENTION_DAYS, keep: parsed.REPORT_RETENTION_KEEP }),
    webhookAllowPrivateNetworks: parsed.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    webhookConcurrency: parsed.WEBHOOK_CONCURRENCY,
    webhookDeliveryRetentionDays: parsed.WEBHOOK_DELIVERY_RETENTION_DAYS,
    workerThreads: parsed.WORKER_THREADS ?? Math.max(1, availableParallelism() - 1),
    workerQueueMax: parsed.WORKER_QUEUE_MAX,
    workerInlineMaxBytes: parsed.WORKER_INLINE_MAX_BYTES,
    secretKey: parsed.SECRET_KEY || undefined,
    secretKeyPrevious: parsed.SECRET_KEY_PREVIOUS || undefined,
    smtpUrl: parsed.SMTP_URL,
    mailFrom: parsed.MAIL_FROM?.trim(),
  });
}

/** E11.1: an SMTP URL the mail client can use: a host, a port in range. Its text is never repeated (it may hold a password). */
function checkSmtpUrl(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`Invalid configuration: ${SMTP_URL_EXPECTED}`);
  }
  if (url.hostname === '') throw new ConfigError(`Invalid configuration: ${SMTP_URL_EXPECTED}`);
}

const SMTP_URL_EXPECTED =
  'env/SMTP_URL must be smtp://host:port or smtps://host:port, with user:password@ before the host when the server needs them (percent-encode special characters)';

/**
 * Ajv's words, made an operator's: an enum names its values (`env/LOG_LEVEL must be one of fatal,
 * error, …`) and a pattern says what is expected instead of printing the regular expression.
 */
function explainRefusal(message: string, env: Record<string, string | undefined>): string {
  return message
    .replace(/env\/(\w+) must be equal to one of the allowed values/g, (text, name: string) => {
      const allowed = (EnvSchema.properties as Record<string, { enum?: unknown[] }>)[name]?.enum;
      return allowed ? `env/${name} must be one of ${allowed.join(', ')}` : text;
    })
    .replace(/env\/(\w+) must match pattern "[^"]*"/g, (text, name: string) => PATTERN_ADVICE[name]?.(env[name]?.trim() ?? '') ?? text);
}

/** What each variable with a pattern expects, and where a value is recognisably close, the fix. */
const PATTERN_ADVICE: Record<string, (value: string) => string> = {
  DATABASE_URL: (value) => {
    const expected = 'env/DATABASE_URL must be sqlite:<file>, sqlite::memory: or postgres://user@host:port/database';
    // A bare path is the usual slip; a value that may hold a password is never repeated.
    if (/^[\w./~-]+$/.test(value) && !/^(sqlite|postgres(ql)?)$/.test(value)) return `${expected}: did you mean sqlite:${value}?`;
    if (/^postgres(ql)?:[^/]/.test(value) || /^[^:/]+:\/\/.*@/.test(value)) return `${expected} (a PostgreSQL URL starts with postgres://)`;
    return expected;
  },
  HOST: (value) => {
    const port = /^[^:]+:(\d+)$/.exec(value)?.[1];
    if (port !== undefined)
      return `env/HOST must be a host name or an address without a port: set HOST=${value.split(':')[0]} and PORT=${port}`;
    return 'env/HOST must be a host name or an address without a port or scheme, e.g. 127.0.0.1, 0.0.0.0 or ::';
  },
  REDIS_URL: () => 'env/REDIS_URL must be redis://host:port (or rediss:// for TLS)',
  SMTP_URL: () => SMTP_URL_EXPECTED,
  MAIL_FROM: () => 'env/MAIL_FROM must be an email address, e.g. scoreboard@example.com or "Scoreboard <scoreboard@example.com>"',
  PUBLIC_URL: () => 'env/PUBLIC_URL must be the http:// or https:// address users open, e.g. https://scores.example.com, without a query',
};

/** D8: proxies are distrusted unless the operator opts in. */
function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined) return false;
  const normalized = value.trim().toLowerCase();
  // Only the spellings the README documents: a `yes` taken silently could equally be a typo.
  if (['', '0', 'false'].includes(normalized)) return false;
  if (normalized === 'true') return true;
  if (/^[1-9][0-9]*$/.test(normalized)) return Number(normalized);
  if (/^[0-9a-f.:/,\s]+$/.test(normalized)) return value;
  throw new ConfigError(
    `Invalid configuration: env/TRUST_PROXY must be true, false, a hop count (1, 2, …) or a comma-separated list of proxy addresses or CIDR ranges (e.g. 10.0.0.0/8), got "${value}"`,
  );
}
