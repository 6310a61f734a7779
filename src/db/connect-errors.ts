import { sqliteFileOf } from './database.js';

/**
 * Why the database DATABASE_URL names could not be opened, said so that an operator can act on it
 * at start-up (`scoreboard serve`, `migrate`, the account commands): where it was looked for and
 * what to change. Null for an error that is not about reaching or opening the database. The URL's
 * user name and password are never repeated, only its host, port and database.
 */
export function describeDatabaseFailure(error: unknown, databaseUrl: string): string | null {
  const code = errorCode(error);
  const file = sqliteFileOf(databaseUrl);
  if (file !== null) {
    if (code === 'EACCES' || code === 'EPERM')
      return `Cannot create the SQLite database ${file}: permission denied. Check DATABASE_URL, or the folder's permissions.`;
    // mkdir's EEXIST: a part of the path is a file (`recursive` only accepts existing folders).
    if (code === 'ENOTDIR' || code === 'EEXIST')
      return `Cannot create the SQLite database ${file}: a part of its path is a file, not a folder. Check DATABASE_URL.`;
    if (code === 'EROFS') return `Cannot create the SQLite database ${file}: the file system is read-only. Check DATABASE_URL.`;
    if (code.startsWith('SQLITE_CANTOPEN'))
      return `Cannot open the SQLite database ${file}: it is a folder or cannot be read. Check DATABASE_URL.`;
    if (code === 'SQLITE_NOTADB') return `${file} is not a SQLite database. Check DATABASE_URL.`;
    if (code.startsWith('SQLITE_READONLY')) return `The SQLite database ${file} is read-only. Check the file's permissions.`;
    return null;
  }
  const where = postgresLocation(databaseUrl);
  if (where === null) return null;
  const { host, port, database, user } = where;
  const fix = 'Start PostgreSQL there, or set DATABASE_URL.';
  switch (code) {
    case 'ECONNREFUSED':
      return `Cannot reach PostgreSQL at ${host}:${port} (DATABASE_URL): the connection was refused. ${fix}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Cannot reach PostgreSQL at ${host}:${port} (DATABASE_URL): the host name ${host} does not resolve. Check DATABASE_URL.`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `Cannot reach PostgreSQL at ${host}:${port} (DATABASE_URL): no answer (${code}). ${fix}`;
    case '28P01':
    case '28000':
      return `PostgreSQL at ${host}:${port} refused user ${user} (DATABASE_URL): ${pgMessage(error)}. Check the user and password in DATABASE_URL.`;
    case '3D000':
      return `PostgreSQL at ${host}:${port} has no database ${database} (DATABASE_URL): create it (\`createdb ${database}\`) or set DATABASE_URL.`;
    case '57P03':
      return `PostgreSQL at ${host}:${port} is starting up or shutting down; try again in a moment.`;
  }
  // pg's own failures to connect carry no code, only a message.
  if (/^(timeout exceeded when trying to connect|Connection terminated due to connection timeout)$/.test(messageOf(error))) {
    return `Cannot reach PostgreSQL at ${host}:${port} (DATABASE_URL): no answer within the connection timeout. ${fix}`;
  }
  if (/^Connection terminated unexpectedly$/.test(messageOf(error))) {
    return `PostgreSQL at ${host}:${port} (DATABASE_URL) closed the connection at once: is it a PostgreSQL server? ${fix}`;
  }
  return null;
}

function postgresLocation(databaseUrl: string): { host: string; port: string; database: string; user: string } | null {
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) return null;
  try {
    const url = new URL(databaseUrl);
    return {
      host: url.hostname || 'localhost',
      port: url.port || '5432',
      database: decodeURIComponent(url.pathname.slice(1)) || '(the user name)',
      user: decodeURIComponent(url.username) || '(the operating system user)',
    };
  } catch {
    return null;
  }
}

/** The error's code; Node's connection errors on a name with several addresses are an AggregateError with the code of the first. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const inner = (error as { errors?: unknown[] } | null)?.errors?.[0];
  return inner === undefined ? '' : errorCode(inner);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : '';
}

/** PostgreSQL's own sentence (e.g. `password authentication failed for user "u"`); it holds no password. */
function pgMessage(error: unknown): string {
  return messageOf(error).replace(/\.$/, '');
}
