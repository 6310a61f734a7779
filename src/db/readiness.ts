import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../clock.js';
import { type Db, onSqliteWriter, sqliteFileOfDb } from './database.js';

/**
 * SQLite: how long the readiness write waits for another connection's write lock. SQLite waits
 * synchronously (the event loop with it), and /readyz must answer within 2 s (D37).
 */
export const SQLITE_READINESS_BUSY_MS = 1_000;

/**
 * SQLite: the room a write may need. Less is a full database: a request's write (an upload is up to
 * megabytes) would fail for want of it.
 */
export const MIN_ROOM_BYTES = 1024 * 1024;

function freeBytesOn(directory: string): number {
  try {
    const { bavail, bsize } = statfsSync(directory);
    return bavail * bsize;
  } catch {
    return Number.POSITIVE_INFINITY; // not knowing is not being full: the write below still has its say
  }
}

/**
 * D38: /readyz answers 503 while the database cannot write. Resolves once a write was committed;
 * rejects with the database's own error otherwise (the error handler names its cause).
 *
 * The write updates the one row of `readiness_probe` (migration 0016) and commits it: a database
 * that is read-only (a PostgreSQL standby, `default_transaction_read_only`, a read-only SQLite
 * file), locked (another connection holding SQLite's write lock, a PostgreSQL lock past
 * lock_timeout), unreachable or failing its I/O fails it the way a request's write would.
 *
 * A full disk shows only when a write needs room. Updating one row in place rarely does, so on
 * SQLite the check also fails while less than 1 MiB is left, in the file (its page limit, less the
 * pages in use, plus the free ones) or on its filesystem (SQLITE_FULL); on PostgreSQL a disk that cannot take the WAL stops the server, which
 * the write then sees as a lost connection; a full disk under its data files is not seen here
 * until a request's write fails (and is logged).
 */
export async function checkDatabaseWritable(db: Db, clock: Clock): Promise<void> {
  const checkedAt = clock.now().toISOString();
  // The row is there since migration 0016; written as an upsert so that a deleted row cannot make
  // the check pass without a write.
  const upsert = db
    .insertInto('readiness_probe')
    .values({ id: 1, checked_at: checkedAt })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ checked_at: checkedAt }));
  const file = sqliteFileOfDb(db);
  const onSqlite = onSqliteWriter(db, (run) => {
    const previous = Number((run('pragma busy_timeout')[0] as { timeout: number }).timeout);
    run(`pragma busy_timeout = ${SQLITE_READINESS_BUSY_MS}`);
    try {
      const pragma = (name: string) => Number((run(`pragma ${name}`)[0] as Record<string, number>)[name]);
      const pageSize = pragma('page_size');
      const roomInFile = (pragma('max_page_count') - pragma('page_count') + pragma('freelist_count')) * pageSize;
      const roomOnDisk = file === null ? Number.POSITIVE_INFINITY : freeBytesOn(dirname(file));
      if (Math.min(roomInFile, roomOnDisk) < MIN_ROOM_BYTES) {
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      }
      const { sql, parameters } = upsert.compile();
      run(sql, parameters);
    } finally {
      run(`pragma busy_timeout = ${previous}`);
    }
  });
  if (onSqlite) return onSqlite;
  await upsert.execute();
}
