import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';

/** What the driver needs of a better-sqlite3 database (statement caching wraps `prepare`). */
export interface SqliteHandle {
  prepare(sql: string): SqliteStatement;
  close(): void;
  /** Whether a transaction is open on the connection (SQLite ends one itself on some errors). */
  readonly inTransaction: boolean;
}

interface SqliteStatement {
  readonly reader: boolean;
  readonly readonly: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
}

/**
 * SQLite for a server (D28): one connection writes, another reads.
 *
 * Kysely's own SQLite driver has one connection behind a mutex, so a transaction held every other
 * query of the process until it committed: a 75,000-issue upload, stored in batches that give the
 * event loop back between them, still kept every other request's reads waiting for the whole
 * upload. In WAL mode a second connection reads the last committed state while a write
 * transaction is open. So:
 * - a transaction takes the write connection (one transaction at a time, as before, BEGIN IMMEDIATE);
 * - a `select` outside a transaction that only reads (better-sqlite3's `readonly`) runs on the read
 *   connection at once; any other statement waits for the write connection, as it did.
 * Without a file (`:memory:`) there is nothing a second connection could open: everything takes the
 * write connection, as with Kysely's driver. (Savepoints, which no query here uses, are not offered.)
 */
export class SqliteSplitDialect implements Dialect {
  /**
   * `writeWaitMs`: D37, how long a statement or transaction may wait for the write connection while
   * another of this process's transactions holds it (a long upload); past it, it fails as SQLite
   * does when another process holds the file's lock too long (SQLITE_BUSY, answered 503).
   */
  constructor(private readonly connections: { writer: SqliteHandle; reader: SqliteHandle | null; writeWaitMs?: number }) {}

  createAdapter(): DialectAdapter {
    return new MigratingInTransactionAdapter();
  }

  #driver: SqliteSplitDriver | null = null;

  createDriver(): Driver {
    this.#driver = new SqliteSplitDriver(this.connections.writer, this.connections.reader, this.connections.writeWaitMs ?? Infinity);
    return this.#driver;
  }

  /** Runs `work` on the write connection once no transaction holds it (database.ts `onSqliteWriter`). */
  runOnWriter<T>(work: (writer: SqliteHandle) => T): Promise<T> {
    if (this.#driver === null) throw new Error('the SQLite dialect has no driver yet');
    return this.#driver.runOnWriter(work);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

/**
 * SQLite's DDL is transactional, but Kysely's adapter says it is not, so its migrator ran each
 * migration outside any transaction and without a lock: two processes migrating one new file at once
 * (two `serve`s, or `migrate` beside a starting `serve`) both read "nothing applied" and both applied
 * the same migration, the second failing half-way ("duplicate column name"). Saying it is
 * transactional makes the migrator read what is applied and apply the rest in one transaction, which
 * this driver begins IMMEDIATE: the write lock is the migration lock, the second process waits.
 */
class MigratingInTransactionAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class SqliteSplitDriver implements Driver {
  readonly #writeLock: Mutex;

  constructor(
    private readonly writer: SqliteHandle,
    private readonly reader: SqliteHandle | null,
    writeWaitMs: number,
  ) {
    this.#writeLock = new Mutex(writeWaitMs);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this.writer, this.reader, this.#writeLock);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const routed = connection as RoutedConnection;
    await this.#writeLock.lock();
    try {
      // A plain BEGIN takes the write lock only at the first write, and fails at once with
      // SQLITE_BUSY when another process (the CLI) committed in between; IMMEDIATE waits for it.
      execute(this.writer, CompiledQuery.raw('begin immediate'));
      routed.inTransaction = true;
    } catch (error) {
      this.#writeLock.unlock();
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    // A failed commit is followed by Kysely's rollback, which releases the lock.
    execute(this.writer, CompiledQuery.raw('commit'));
    this.#endTransaction(connection as RoutedConnection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      // D38: on a full disk (SQLITE_FULL), an I/O error or out of memory SQLite has already rolled
      // the transaction back; a second rollback would fail ("no transaction is active"), and Kysely
      // would throw that instead of the error that says what happened.
      if (this.writer.inTransaction) execute(this.writer, CompiledQuery.raw('rollback'));
    } finally {
      this.#endTransaction(connection as RoutedConnection);
    }
  }

  async releaseConnection(): Promise<void> {}

  async runOnWriter<T>(work: (writer: SqliteHandle) => T): Promise<T> {
    await this.#writeLock.lock();
    try {
      return work(this.writer);
    } finally {
      this.#writeLock.unlock();
    }
  }

  async destroy(): Promise<void> {
    this.reader?.close();
    this.writer.close();
  }

  #endTransaction(connection: RoutedConnection): void {
    if (!connection.inTransaction) return;
    connection.inTransaction = false;
    this.#writeLock.unlock();
  }
}

const SELECT = /^\s*select\b/i;

class RoutedConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(
    private readonly writer: SqliteHandle,
    private readonly reader: SqliteHandle | null,
    private readonly writeLock: Mutex,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction) return execute(this.writer, compiledQuery) as QueryResult<R>;
    // Only a select is even prepared there: DDL prepared against the reader's idea of the schema
    // could disagree with what the writer just changed.
    if (this.reader !== null && SELECT.test(compiledQuery.sql)) {
      const statement = this.reader.prepare(compiledQuery.sql);
      if (statement.readonly && statement.reader) return { rows: statement.all(compiledQuery.parameters) as R[] };
    }
    await this.writeLock.lock();
    try {
      return execute(this.writer, compiledQuery) as QueryResult<R>;
    } finally {
      this.writeLock.unlock();
    }
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const result = await this.executeQuery<R>(compiledQuery);
    for (const row of result.rows) yield { rows: [row] };
  }
}

function writerBusy(waitMs: number): Error {
  return Object.assign(new Error(`database is locked: another write of this process held it longer than ${waitMs} ms`), {
    code: 'SQLITE_BUSY',
  });
}

function execute(database: SqliteHandle, { sql, parameters }: CompiledQuery): QueryResult<unknown> {
  const statement = database.prepare(sql);
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/**
 * One holder at a time, the others waiting (Kysely's SQLite driver has the same), each at most
 * `waitMs`: then `lock` fails with SQLITE_BUSY, the error of a lock another process held too long.
 */
class Mutex {
  #held: Promise<void> | null = null;
  #release: (() => void) | null = null;

  constructor(private readonly waitMs: number) {}

  async lock(): Promise<void> {
    if (this.#held) {
      const deadline = performance.now() + this.waitMs;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        if (Number.isFinite(this.waitMs)) timer = setTimeout(() => resolve('late'), this.waitMs);
      });
      try {
        while (this.#held) {
          if ((await Promise.race([this.#held, late])) === 'late' || performance.now() >= deadline) throw writerBusy(this.waitMs);
        }
      } finally {
        clearTimeout(timer);
      }
    }
    this.#held = new Promise((resolve) => (this.#release = resolve));
  }

  unlock(): void {
    const release = this.#release;
    this.#held = null;
    this.#release = null;
    release?.();
  }
}
