import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { OperatorError } from './operator-error.js';
import { SqliteDatabase } from '../db/sqlite-binding.js';

/**
 * sqlite3_backup_step's page count for "everything left": the copy is then one step, one read
 * transaction on the source, so a server writing meanwhile (WAL: readers never block writers) can
 * neither make it inconsistent nor restart it. In small steps, each write by another connection
 * restarts the copy, which a busy server could do forever.
 */
const ALL_PAGES = 0x7fffffff;

/**
 * A consistent copy of the SQLite database `sourceFile` into the new file `target`, through SQLite's
 * online backup API, on a connection of its own (the Kysely dialect keeps its handle to itself).
 * The copy is the database as of one instant: every transaction committed before it, none after.
 */
export async function backupSqlite(sourceFile: string, target: string): Promise<{ path: string; bytes: number }> {
  const path = resolve(target);
  reserve(path);
  const source = new SqliteDatabase(sourceFile, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    await source.backup(path, { progress: () => ALL_PAGES });
  } catch (error) {
    rmSync(path, { force: true }); // a half-written copy must not pass for a backup
    throw error;
  } finally {
    source.close();
  }
  return { path, bytes: statSync(path).size };
}

/** Creates `path` empty, failing if anything is there: a backup never overwrites a file. */
function reserve(path: string): void {
  try {
    closeSync(openSync(path, 'wx'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new OperatorError(`${path} already exists; a backup never overwrites a file, choose another name.`);
    if (code === 'ENOENT') throw new OperatorError(`Cannot create ${path}: its folder does not exist.`);
    throw new OperatorError(`Cannot create ${path}: ${code ?? String(error)}.`);
  }
}

/**
 * PostgreSQL has its own consistent online dump. The example uses the operator's DATABASE_URL
 * without its password, which must not end up on a screen or in a shell history.
 */
export function pgDumpAdvice(databaseUrl: string): string {
  return (
    `backup copies SQLite databases only; on PostgreSQL use pg_dump, e.g. ` +
    `pg_dump --format=custom --file=scoreboard.dump ${dumpTarget(databaseUrl)} ` +
    `(password left out: pg_dump reads PGPASSWORD or ~/.pgpass), and pg_restore to restore.`
  );
}

/** The URL, quoted for a POSIX shell, with no password (libpq also takes one as a query parameter). */
function dumpTarget(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    url.password = '';
    // Filtered as text: searchParams would re-encode the other parameters (a space as `+`,
    // which libpq does not read as a space).
    url.search = url.search
      .slice(1)
      .split('&')
      .filter((pair) => !/^password=/i.test(pair))
      .join('&');
    return `'${url.toString().replace(/'/g, `'\\''`)}'`;
  } catch {
    return '"$DATABASE_URL"'; // unparseable: never echo it, it may hold the password
  }
}
