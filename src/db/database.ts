import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresDialect,
  PostgresDriver,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Driver,
  type PostgresDialectConfig,
  type DatabaseMetadata,
  type LogEvent,
  type SchemaMetadata,
  type TableMetadata,
  sql,
} from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { isPostgres } from './dialect.js';
import { isTransientConflict } from './errors.js';
import type { Database } from './schema.js';
import { type DataStep, migrations } from './migrations/index.js';
import { sendRegisteredAsNamed } from './named-statements.js';
import { DeadlinePool } from './postgres-deadlines.js';
import { SqliteDatabase } from './sqlite-binding.js';
import { type SqliteHandle, SqliteSplitDialect } from './sqlite-driver.js';

export type Db = Kysely<Database>;

export interface DatabaseOptions {
  /** Called for every executed statement; used to count queries per request in tests and benchmarks. */
  onQuery?: (event: LogEvent) => void;
  /** PostgreSQL: connections in this process's pool. */
  poolMax?: number;
  /** PostgreSQL: a statement running longer is given up (0: no limit); see `postgresTimeouts`. */
  statementTimeoutMs?: number;
  /** PostgreSQL: how long acquiring a connection (a free slot, then connecting) may take. */
  connectTimeoutMs?: number;
}

/** D37: the defaults of `DatabaseOptions` (config.ts has the same). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/**
 * PostgreSQL ends a session left idle inside a transaction this long: a client that vanished
 * mid-transaction (its link cut) no longer holds its locks against every other instance. Far longer
 * than any pause of ours between two statements of a transaction.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;
/** TCP keepalive probes start after this much silence on an idle connection. */
export const KEEPALIVE_INITIAL_DELAY_MS = 5_000;

/**
 * D37: a statement's two deadlines. The client gives up at `statementTimeoutMs` (a silent link
 * answers nothing, so only the client can); the server cancels the statement a little earlier, so
 * that on a working connection a slow statement ends with the server's own error (57014) and the
 * connection stays usable, instead of being destroyed by the client's deadline.
 */
export function postgresTimeouts(statementTimeoutMs: number): { server: number; client: number } {
  if (statementTimeoutMs <= 0) return { server: 0, client: 0 };
  const margin = Math.min(1_000, Math.floor(statementTimeoutMs / 10));
  return { server: Math.max(1, statementTimeoutMs - margin), client: statementTimeoutMs };
}

/** D21: `sqlite:./path.db`, `sqlite::memory:`, `postgres://…` or `postgresql://…`. */
export function createDatabase(url: string, options: DatabaseOptions = {}): Db {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const outcomes = new Set<OutcomeObserver>();
    const log = (event: LogEvent) => {
      options.onQuery?.(event);
      for (const observer of outcomes) observer(event.query.sql, event.level === 'query');
    };
    const statement = postgresTimeouts(options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS);
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolMax ?? 10,
      // D37: every wait on the database is bounded (0 leaves a statement unbounded, as configured).
      ...(statement.server > 0 && { statement_timeout: statement.server, query_timeout: statement.client }),
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
      // A pool that cannot reach the server fails the request (503) instead of queueing it forever.
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
      application_name: 'scoreboard',
    });
    // An idle connection the server drops (restart, failover) must not crash the process.
    pool.on('error', () => {});
    // Nor one lost while a request holds it: the pool listens for errors on idle clients only, and
    // an unheard 'error' event kills the process. The request's own query fails with it (503).
    pool.on('connect', (client) => {
      client.on('error', () => {});
      sendRegisteredAsNamed(client);
    });
    const guarded = new DeadlinePool(pool, { acquireMs: connectTimeoutMs });
    const db = new Kysely<Database>({ dialect: new KeepingOriginalErrorPostgresDialect({ pool: guarded }), log });
    postgresPools.set(db, pool);
    guardedPools.set(db, guarded);
    outcomeObservers.set(db, outcomes);
    return db;
  }
  const outcomes = new Set<OutcomeObserver>();
  const log = (event: LogEvent) => {
    options.onQuery?.(event);
    for (const observer of outcomes) observer(event.query.sql, event.level === 'query');
  };
  if (!url.startsWith('sqlite:')) {
    throw new Error(`Unsupported DATABASE_URL "${url}": expected sqlite:<file>, sqlite::memory: or postgres://…`);
  }
  const file = sqliteFileOf(url);
  const writer = withStatementCache(openSqlite(file));
  const reader = file === null ? null : withStatementCache(openSqliteReader(file));
  // D37: waiting for this process's own writer is bounded like waiting for another process's.
  const dialect = new SqliteSplitDialect({ writer, reader, writeWaitMs: SQLITE_BUSY_TIMEOUT_MS });
  const db = new Kysely<Database>({ dialect, log });
  sqliteReaders.set(db, { handle: reader ?? writer, onQuery: options.onQuery });
  sqliteDialects.set(db, dialect);
  sqliteFiles.set(db, file);
  outcomeObservers.set(db, outcomes);
  return db;
}

type OutcomeObserver = (sql: string, succeeded: boolean) => void;
/** Each database's observers of `onStatementOutcome`. */
const outcomeObservers = new WeakMap<Db, Set<OutcomeObserver>>();

/**
 * Calls `observer` after each statement run through `db` (on SQLite, those Kysely runs: not its
 * begin and commit), with whether it succeeded: how the outage log hears that the database works
 * again. Returns the function that stops it.
 */
export function onStatementOutcome(db: Db, observer: OutcomeObserver): () => void {
  const observers = outcomeObservers.get(db);
  observers?.add(observer);
  return () => observers?.delete(observer);
}

/** SQLite: each database's dialect, for `onSqliteWriter`, and its file (null: in memory). */
const sqliteDialects = new WeakMap<Db, SqliteSplitDialect>();
const sqliteFiles = new WeakMap<Db, string | null>();

/** SQLite: the absolute path of `db`'s file; null in memory, on PostgreSQL, or for a database not opened here. */
export function sqliteFileOfDb(db: Db): string | null {
  return sqliteFiles.get(db) ?? null;
}

/**
 * SQLite: runs `work` on the write connection, alone (no transaction of the process is open on it
 * meanwhile), and resolves with its result; undefined on PostgreSQL. `work` is synchronous, like
 * every SQLite call: it may change a connection setting for its own statements and put it back.
 */
export function onSqliteWriter<T>(
  db: Db,
  work: (run: (sql: string, parameters?: readonly unknown[]) => unknown[]) => T,
): Promise<T> | undefined {
  const observers = outcomeObservers.get(db);
  const report = (text: string, succeeded: boolean) => {
    for (const observer of observers ?? []) observer(text, succeeded);
  };
  return sqliteDialects.get(db)?.runOnWriter((writer) =>
    work((text, parameters = []) => {
      // Reported like Kysely's statements: a write that works here ends an outage too (outage-log.ts).
      try {
        const statement = writer.prepare(text);
        let rows: unknown[] = [];
        if (statement.reader) rows = statement.all(parameters);
        else statement.run(parameters);
        report(text, true);
        return rows;
      } catch (error) {
        report(text, false);
        throw error;
      }
    }),
  );
}

/** SQLite: each database's read connection, for `sqliteDirectRead`. */
const sqliteReaders = new WeakMap<Db, { handle: SqliteHandle; onQuery: DatabaseOptions['onQuery'] }>();

/**
 * SQLite: a reader of `text` (a statement without parameters), run at once on the read connection
 * (the last committed state, whichever process committed it); its rows, or null when it cannot be
 * read (not migrated yet, or the file is unreadable). Direct rather than through Kysely, for a
 * statement on a hot path: building, routing and awaiting a query cost more than a small read.
 * Without a file (`:memory:`) it reads the write connection, whose open transaction it may see.
 * Undefined on PostgreSQL, or for a database not opened by createDatabase.
 */
export function sqliteDirectRead(db: Db, text: string): (() => unknown[] | null) | undefined {
  const reader = sqliteReaders.get(db);
  if (!reader) return undefined;
  const query = CompiledQuery.raw(text);
  let statement: ReturnType<SqliteHandle['prepare']> | null = null;
  return () => {
    try {
      statement ??= reader.handle.prepare(text);
      const rows = statement.all([]) as unknown[];
      // Counted like every other statement (X-SQL-Statements): it is one.
      reader.onQuery?.({ level: 'query', query, queryDurationMillis: 0 });
      return rows;
    } catch {
      return null;
    }
  };
}

/**
 * The absolute path of the SQLite file a `sqlite:` URL names (relative to the working directory),
 * or null when there is no file: an in-memory database, or PostgreSQL.
 */
export function sqliteFileOf(url: string): string | null {
  if (!url.startsWith('sqlite:')) return null;
  const location = url.slice('sqlite:'.length);
  return location === ':memory:' ? null : resolve(location);
}

/** The database the configuration names (D21), with its pool settings. */
export function openDatabase(config: Config, options: Pick<DatabaseOptions, 'onQuery'> = {}): Db {
  return createDatabase(config.databaseUrl, {
    ...options,
    poolMax: config.databasePoolMax,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  });
}

/**
 * SQLite: how long a write waits for another's (another process's lock, or this process's write
 * connection), and a read for a checkpoint, before failing with SQLITE_BUSY (503).
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/** `file` null: an in-memory database. */
function openSqlite(file: string | null): SqliteDatabase {
  if (file !== null) mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file ?? ':memory:');
  // WAL lets the operator CLI write while a server reads and writes the same file; the busy timeout
  // makes one wait for the other's short write transaction instead of failing with SQLITE_BUSY.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  return sqlite;
}

/** The read connection of sqlite-driver.ts: it can only read, and waits for a checkpoint like the writer. */
function openSqliteReader(file: string): SqliteDatabase {
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  sqlite.pragma('query_only = ON');
  return sqlite;
}

async function currentSchema(db: Db): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]!.schema;
}

/** Statements kept per connection; our queries have far fewer distinct SQL texts than this. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares a statement for every query it runs; preparing was the largest single cost of
 * a request in the benchmark's profile. The SQL text of a query is the same whatever its
 * parameters, so each statement is prepared once and reused (least recently used ones dropped).
 */
function withStatementCache(sqlite: SqliteDatabase): SqliteHandle {
  const statements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  return {
    close: () => {
      statements.clear();
      sqlite.close();
    },
    get inTransaction() {
      return sqlite.inTransaction;
    },
    prepare(text: string) {
      let statement = statements.get(text);
      if (statement) {
        statements.delete(text); // re-inserted below: Map order is recency
      } else {
        statement = sqlite.prepare(text);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      }
      statements.set(text, statement);
      return statement;
    },
  };
}

/** Each PostgreSQL database's pool, for a migrator that shares it (below). */
const postgresPools = new WeakMap<Db, pg.Pool>();
/** ...and the same pool with its deadlines (postgres-deadlines.ts), as Kysely uses it. */
const guardedPools = new WeakMap<Db, DeadlinePool>();

/** The pool of a PostgreSQL database opened here, else undefined. */
export function postgresPoolOf(db: Db): pg.Pool | undefined {
  return postgresPools.get(db);
}

/**
 * Kysely's migrator asks whether its two bookkeeping tables exist by listing every column of every
 * table of every schema, with a sequence lookup per column: about 130 ms of a 340 ms migration run
 * on PostgreSQL, once per test app and per `serve`. It only needs their names, in one schema; this
 * introspector lists just that. Used for migrations only, on the same pool.
 */
class TableNamesIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ schema: string; name: string }>`
      select n.nspname as schema, c.relname as name
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v')
    `.execute(this.db);
    return rows.map((row) => ({ ...row, isView: false, columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

/**
 * D38: when a statement of a transaction fails because the connection is lost, Kysely's ROLLBACK on
 * that connection fails too ("Client has encountered a connection error and is not queryable"), and
 * Kysely throws the rollback's error instead of the one that says what happened. The rollback's
 * failure is dropped here: the transaction ended anyway (the server rolls back a transaction whose
 * connection is gone), and a connection pg no longer counts as queryable leaves the pool. A ROLLBACK
 * that fails for its connection while the connection is still open (its client-side deadline) is
 * seen by the deadline pool, which destroys that connection (postgres-deadlines.ts).
 */
class KeepingOriginalErrorPostgresDriver extends PostgresDriver {
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } catch {
      // The error the transaction failed with is what Kysely throws next.
    }
  }
}

class KeepingOriginalErrorPostgresDialect extends PostgresDialect {
  constructor(private readonly driverConfig: PostgresDialectConfig) {
    super(driverConfig);
  }

  override createDriver(): Driver {
    return new KeepingOriginalErrorPostgresDriver(this.driverConfig);
  }
}

class MigratingPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new TableNamesIntrospector(db);
  }
}

/** Kysely's migrator over our migrations, for running them or reading which are applied. */
export async function createMigrator(db: Db): Promise<Migrator> {
  const pool = guardedPools.get(db);
  // Not destroyed when done: it would end the pool the application goes on using.
  const migrating = pool ? new Kysely<Database>({ dialect: new MigratingPostgresDialect({ pool }) }) : db;
  return new Migrator({
    db: migrating,
    provider: { getMigrations: async () => migrations },
    // On PostgreSQL, Kysely looks for its bookkeeping tables in every schema; name ours (the first
    // of the search_path) so a database with several Scoreboard schemas migrates each on its own.
    ...(isPostgres(db) && { migrationTableSchema: await currentSchema(db) }),
  });
}

/** How many busy timeouts (5 s each) a process waits for another one's migration of a SQLite file. */
const SQLITE_MIGRATION_WAITS = 60;

/** Runs pending migrations, then `dataSteps` in order; throws with the failing migration's error. */
export async function runMigrations(db: Db, dataSteps: readonly DataStep[]): Promise<string[]> {
  const migrator = await createMigrator(db);
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest().catch((thrown: unknown) => ({ error: thrown, results: undefined }));
    // That look through every schema fails when another schema is dropped meanwhile (PostgreSQL
    // 3F000): nothing was migrated yet, so it is safe to look again.
    if (error && (error as { code?: string }).code === '3F000' && attempt < 5) continue;
    // Another process is migrating the same SQLite file and holds its write lock (the migration
    // lock, see sqlite-driver.ts) longer than the busy timeout: a large upgrade can. Wait on.
    if (error && (error as { code?: string }).code === 'SQLITE_BUSY' && attempt < SQLITE_MIGRATION_WAITS) continue;
    if (error) throw error instanceof Error ? error : new Error(String(error));
    for (const step of dataSteps) await step(db);
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  }
}

/** How often a transaction PostgreSQL aborted for a conflict (deadlock, serialization) is tried. */
const TRANSACTION_ATTEMPTS = 3;

/**
 * Runs `work` in a transaction, joining the caller's when there already is one. A transaction the
 * database aborted because of a conflicting one wrote nothing and is run again (`work` must have no
 * effect outside the database it would repeat wrongly).
 */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isTransientConflict(error)) throw error;
    }
  }
}
