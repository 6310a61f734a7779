/**
 * PostgreSQL gave up on a transaction because of another one (deadlock detected, serialization
 * failure); nothing was written, and running it again is safe. Two callers who each revoke the
 * other's token, each holding a share lock on their own (D22), end in a deadlock the server breaks.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Why the database could not do what a request asked, when that is the database's state rather than
 * the request's fault or a bug: each answers 503 with `Retry-After` (D38), and the outage log names
 * the cause once (outage-log.ts).
 * - `unreachable`: no connection could be made or the file opened (refused, unknown host, the server
 *   starting or shutting down, a connect timeout);
 * - `connection-lost`: a connection broke while in use;
 * - `timeout`: a statement ran past its deadline (server- or client-side);
 * - `lock-timeout`: a lock another transaction holds was not granted in time;
 * - `busy`: SQLite's write lock is held by another connection past the busy timeout;
 * - `disk-full`, `read-only`, `io-error`: the database cannot write;
 * - `overloaded`: the server is out of memory or connections.
 */
export type DatabaseFailureCause =
  | 'unreachable'
  | 'connection-lost'
  | 'timeout'
  | 'lock-timeout'
  | 'busy'
  | 'disk-full'
  | 'read-only'
  | 'io-error'
  | 'overloaded';

export interface DatabaseFailure {
  cause: DatabaseFailureCause;
  /** For the log: what happened, in words (never the error's own text, which may carry SQL). */
  summary: string;
}

/**
 * Causes that stop writes while reads may go on (a full disk, a read-only database, a held write
 * lock): a successful read does not show that they are over, only a successful write does.
 */
export const WRITE_SIDE_CAUSES: ReadonlySet<DatabaseFailureCause> = new Set(['lock-timeout', 'busy', 'disk-full', 'read-only', 'io-error']);

const failure = (cause: DatabaseFailureCause, summary: string): DatabaseFailure => ({ cause, summary });

/**
 * A wait on the database given up by the service itself, outside the driver (e.g. /readyz's 2 s,
 * D37): a `timeout` like a statement's, answered and logged as one.
 */
export class DatabaseDeadlineExceeded extends Error {
  readonly code = DEADLINE_EXCEEDED;
}

const DEADLINE_EXCEEDED = 'SCOREBOARD_DATABASE_DEADLINE';

/** PostgreSQL SQLSTATEs that are the database's state, not the request's (appendix A of its manual). */
const POSTGRES_CODES = new Map<string, DatabaseFailure>(
  Object.entries({
    '57014': failure('timeout', 'a statement was cancelled: it ran past the statement timeout'),
    '55P03': failure('lock-timeout', 'a lock held by another transaction was not granted in time'),
    '53100': failure('disk-full', "PostgreSQL's disk is full"),
    '53200': failure('overloaded', 'PostgreSQL is out of memory'),
    '53300': failure('overloaded', 'PostgreSQL has too many connections'),
    '25006': failure('read-only', 'the database is read-only (a standby, or default_transaction_read_only)'),
    '57P01': failure('connection-lost', 'PostgreSQL is shutting down (administrator command)'),
    '57P02': failure('connection-lost', 'PostgreSQL is shutting down after a crash'),
    '57P03': failure('unreachable', 'PostgreSQL is starting or shutting down and accepts no connections'),
    '08000': failure('connection-lost', 'the connection to PostgreSQL failed'),
    '08003': failure('connection-lost', 'the connection to PostgreSQL does not exist'),
    '08006': failure('connection-lost', 'the connection to PostgreSQL failed'),
    '08001': failure('unreachable', 'PostgreSQL could not be connected to'),
    '08004': failure('unreachable', 'PostgreSQL rejected the connection'),
  }),
);

/** Node's errors of a socket to the database (the request's own socket is told apart before: error-handler.ts). */
const SOCKET_CODES = new Map<string, DatabaseFailure>(
  Object.entries({
    ECONNREFUSED: failure('unreachable', 'the database refused the connection'),
    ENOTFOUND: failure('unreachable', "the database's host name is not known"),
    EHOSTUNREACH: failure('unreachable', "the database's host is unreachable"),
    ENETUNREACH: failure('unreachable', "the database's network is unreachable"),
    ETIMEDOUT: failure('unreachable', 'the connection to the database timed out'),
    ECONNRESET: failure('connection-lost', 'the database connection was reset'),
    EPIPE: failure('connection-lost', 'the database connection was closed while writing to it'),
  }),
);

/** pg's errors for a connection lost, never made, or a query it gave up on carry no code, only these messages. */
const PG_MESSAGES: [RegExp, DatabaseFailure][] = [
  [/^Connection terminated( unexpectedly)?$/, failure('connection-lost', 'the connection to PostgreSQL ended unexpectedly')],
  [
    /^(Connection terminated due to connection timeout|timeout exceeded when trying to connect)$/,
    failure('unreachable', 'no connection to PostgreSQL could be made in time'),
  ],
  [
    /^(Client has encountered a connection error and is not queryable|Client was closed and is not queryable)$/,
    failure('connection-lost', 'the connection to PostgreSQL was lost'),
  ],
  [/^Query read timeout$/, failure('timeout', 'PostgreSQL did not answer a statement in time')],
];

/** SQLite's primary result codes (better-sqlite3 names extended codes by them: SQLITE_BUSY_SNAPSHOT...). */
const SQLITE_CODES: [string, DatabaseFailure][] = [
  ['SQLITE_BUSY', failure('busy', "another connection held SQLite's write lock past the busy timeout")],
  ['SQLITE_LOCKED', failure('busy', 'a SQLite table was locked by another statement')],
  ['SQLITE_FULL', failure('disk-full', 'the SQLite database or its disk is full')],
  ['SQLITE_READONLY', failure('read-only', 'the SQLite database is read-only')],
  ['SQLITE_IOERR', failure('io-error', 'SQLite could not read or write its file (I/O error)')],
  ['SQLITE_CANTOPEN', failure('unreachable', 'SQLite could not open its file')],
  ['SQLITE_NOMEM', failure('overloaded', 'SQLite is out of memory')],
];

/**
 * What made the database fail `error`, when it is the database's state (a 503, D38); null for
 * anything else (a constraint, a bug: the caller decides).
 */
export function databaseFailure(error: unknown): DatabaseFailure | null {
  if (error === null || typeof error !== 'object') return null;
  const { code: rawCode, message } = error as { code?: unknown; message?: unknown };
  // Not every error's `code` is a string (a DOMException's is a number).
  const code = typeof rawCode === 'string' ? rawCode : '';
  if (code === '') {
    const text = typeof message === 'string' ? message : '';
    return PG_MESSAGES.find(([pattern]) => pattern.test(text))?.[1] ?? null;
  }
  if (code === DEADLINE_EXCEEDED) return failure('timeout', 'the database did not answer in time');
  const known = POSTGRES_CODES.get(code) ?? SOCKET_CODES.get(code);
  if (known) return known;
  if (/^08[0-9A-Z]{3}$/.test(code)) return failure('connection-lost', 'the connection to PostgreSQL failed');
  return SQLITE_CODES.find(([prefix]) => code.startsWith(prefix))?.[1] ?? null;
}
