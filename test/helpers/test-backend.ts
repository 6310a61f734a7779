import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/migrate.js';
import type { Database } from '../../src/db/schema.js';

/**
 * Which backend the suite runs on (vitest.config.ts sets TEST_BACKEND per project):
 * - `sqlite`: a fresh SQLite file per app, rate-limit counters in memory;
 * - `postgres`: a schema per app on TEST_DATABASE_URL, counters in Redis at TEST_REDIS_URL under a
 *   key prefix of its own. When the app closes its keys are deleted and its schema emptied for the
 *   next app of the same test process, or dropped (createMigratedTestStore); what a test file leaves
 *   idle is dropped after it. Runs, and test files running in parallel, never see each other's data.
 */
export const BACKEND: 'sqlite' | 'postgres' = process.env.TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';
export const onPostgres = BACKEND === 'postgres';

export interface TestStore {
  /** The environment that points an app (in-process or a child process) at this store. */
  env: Record<string, string>;
  /** The SQLite file, on the sqlite backend. */
  sqliteFile: string | null;
  /** A new connection to the store's database (the caller destroys it). */
  open(options?: Parameters<typeof createDatabase>[1]): Db;
  /**
   * Everything the store holds, as text: every row of every table, and on SQLite the raw bytes of
   * the file and its WAL. Tests search it for secrets that must never be stored.
   */
  everythingStored(): Promise<string>;
  drop(): Promise<void>;
}

/** A fresh, empty store (not migrated) in `dir`. */
export async function createTestStore(dir: string): Promise<TestStore> {
  return onPostgres ? createPostgresStore() : createSqliteStore(dir);
}

function createSqliteStore(dir: string): TestStore {
  const file = join(dir, 'scoreboard.db');
  const env = { DATABASE_URL: `sqlite:${file}` };
  const open = (options?: Parameters<typeof createDatabase>[1]) => createDatabase(env.DATABASE_URL, options);
  return {
    env,
    sqliteFile: file,
    open,
    async everythingStored() {
      const files = [file, `${file}-wal`].filter((path) => existsSync(path));
      return (await dumpTables(open)) + files.map((path) => readFileSync(path).toString('latin1')).join('');
    },
    async drop() {
      // The temp dir holding the file is removed by its owner.
    },
  };
}

/**
 * A store with the tables of the latest migration and no rows, for an app (buildTestApp). Running
 * the migrations for each of the suite's thousands of apps cost most of the suite's CPU time (on
 * PostgreSQL, creating and dropping a schema's tables costs the server about 0.4 s of CPU), so:
 * - on SQLite, the file is a copy of one migrated once per test process;
 * - on PostgreSQL, the schema is one that an earlier app of this process used and left empty again
 *   (see `recycle`), or a new one migrated here.
 * The app's own migrateToLatest then finds nothing to do.
 */
export async function createMigratedTestStore(dir: string): Promise<TestStore> {
  if (!onPostgres) {
    const store = createSqliteStore(dir);
    migratedTemplate ??= migrateSqliteTemplate();
    copyFileSync(await migratedTemplate, store.sqliteFile!);
    return store;
  }
  const schema = idleSchemas.pop() ?? (await createMigratedSchema());
  return postgresStore(schema, { reusable: true });
}

let migratedTemplate: Promise<string> | undefined;

async function migrateSqliteTemplate(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'scoreboard-template-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'migrated.db');
  const db = createDatabase(`sqlite:${file}`);
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy(); // checkpoints the WAL into the file: the file alone is the whole database
  }
  return file;
}

async function createPostgresStore(): Promise<TestStore> {
  return postgresStore(await createSchema(), { reusable: false });
}

/** Migrated, empty schemas this process may hand to the next app (createMigratedTestStore). */
const idleSchemas: string[] = [];
/** What a freshly migrated schema is made of (signatureOf), read from the first one. */
let pristineSignature: string | undefined;
/** The tables in the order that empties them (emptyingOrder), and the sequences, the same in every schema. */
let emptying: { tables: string[]; sequences: string[] } | undefined;

/**
 * One small pool per test process for creating, emptying and dropping schemas (a connection per
 * call cost the server a backend start and cold catalog caches each time). Idle, it lets the
 * process exit.
 */
let adminPool: pg.Pool | undefined;
function admin(): pg.Pool {
  adminPool ??= new pg.Pool({
    connectionString: requiredEnv('TEST_DATABASE_URL'),
    max: 2,
    idleTimeoutMillis: 5_000,
    allowExitOnIdle: true,
  });
  return adminPool;
}

async function createSchema(): Promise<string> {
  const schema = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await admin().query(`CREATE SCHEMA ${schema}`);
  return schema;
}

async function createMigratedSchema(): Promise<string> {
  const schema = await createSchema();
  const db = createDatabase(schemaUrl(schema));
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  pristineSignature ??= await signatureOf(schema);
  emptying ??= await emptyingOrder(schema);
  return schema;
}

/** TEST_DATABASE_URL with every connection (of the app, and of child processes given it) inside `schema`. */
function schemaUrl(schema: string): string {
  const serverUrl = requiredEnv('TEST_DATABASE_URL');
  const separator = serverUrl.includes('?') ? '&' : '?';
  return `${serverUrl}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

function postgresStore(schema: string, { reusable }: { reusable: boolean }): TestStore {
  const redisUrl = requiredEnv('TEST_REDIS_URL');
  const databaseUrl = schemaUrl(schema);
  // A command timeout well above the 500 ms default: on a loaded CI machine a counter command can
  // take longer, and the fall-back to in-memory counters would then reset the counts tests assert.
  // The partition test sets the default back explicitly.
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `${schema}:`, REDIS_COMMAND_TIMEOUT_MS: '10000' };
  const open = (options?: Parameters<typeof createDatabase>[1]) => createDatabase(databaseUrl, options);
  let dropped = false;
  return {
    env,
    sqliteFile: null,
    open,
    everythingStored: () => dumpTables(open, schema),
    async drop() {
      if (dropped) return;
      dropped = true;
      await deleteRedisKeys(redisUrl, `${schema}:*`);
      if (reusable && (await recycle(schema))) idleSchemas.push(schema);
      else await admin().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

/**
 * Empties a schema an app has finished with, so that the next app finds it as a fresh migration
 * leaves it: every row deleted, every sequence back at 1, Kysely's migration bookkeeping kept. Only
 * a schema whose make-up still matches what the migrations made is recycled (a test may have added
 * a trigger, say); false for any other, which is then dropped.
 */
async function recycle(schema: string): Promise<boolean> {
  try {
    if ((await signatureOf(schema)) !== pristineSignature) return false;
    const { tables, sequences } = emptying!;
    // One text, so that the pool runs it on one connection, as one transaction.
    await admin().query(
      [
        'BEGIN',
        ...tables.map((table) => `DELETE FROM ${schema}."${table}"`),
        ...sequences.map((sequence) => `SELECT setval('${schema}."${sequence}"', 1, false)`),
        'COMMIT',
      ].join(';\n'),
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * A schema's make-up in a few numbers: how many relations, columns (and their types), defaults,
 * constraints, indexes, triggers (and how many disabled) and functions it has, with the migrations
 * applied and the migration lock. Cheap enough to read at every recycle.
 */
async function signatureOf(schema: string): Promise<string> {
  const { rows } = await admin().query<{ signature: string }>(
    `WITH ns AS (SELECT oid FROM pg_namespace WHERE nspname = $1::text),
          rel AS (SELECT c.oid FROM pg_class c, ns WHERE c.relnamespace = ns.oid)
     SELECT concat_ws(' ',
       (SELECT count(*) FROM rel),
       (SELECT count(*) || '/' || coalesce(sum(a.atttypid::int8 + a.atttypmod), 0) || '/' || count(*) FILTER (WHERE a.attnotnull)
          FROM pg_attribute a WHERE a.attrelid IN (SELECT oid FROM rel) AND a.attnum > 0 AND NOT a.attisdropped),
       (SELECT count(*) FROM pg_attrdef WHERE adrelid IN (SELECT oid FROM rel)),
       (SELECT count(*) FROM pg_constraint, ns WHERE connamespace = ns.oid),
       (SELECT count(*) FROM pg_index WHERE indrelid IN (SELECT oid FROM rel)),
       (SELECT count(*) || '/' || count(*) FILTER (WHERE tgenabled <> 'O') FROM pg_trigger WHERE tgrelid IN (SELECT oid FROM rel)),
       (SELECT count(*) FROM pg_proc, ns WHERE pronamespace = ns.oid),
       (SELECT string_agg(name, ',' ORDER BY name) FROM ${schema}.kysely_migration),
       (SELECT string_agg(is_locked::text, ',') FROM ${schema}.kysely_migration_lock)
     ) AS signature`,
    [schema],
  );
  return rows[0]!.signature;
}

/**
 * The tables to empty, each after every table whose foreign keys point to it, and the sequences to
 * reset; Kysely's migration tables are left alone.
 */
async function emptyingOrder(schema: string): Promise<{ tables: string[]; sequences: string[] }> {
  const tables = (
    await admin().query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = $1::text AND tablename NOT IN ('kysely_migration', 'kysely_migration_lock')`,
      [schema],
    )
  ).rows.map((row) => row.name);
  const references = (
    await admin().query<{ child: string; parent: string }>(
      `SELECT child.relname AS child, parent.relname AS parent FROM pg_constraint k
         JOIN pg_class child ON child.oid = k.conrelid JOIN pg_class parent ON parent.oid = k.confrelid
        WHERE k.contype = 'f' AND k.connamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1::text) AND child.oid <> parent.oid`,
      [schema],
    )
  ).rows;
  const order: string[] = [];
  const left = new Set(tables);
  while (left.size > 0) {
    const ready = [...left].filter((table) => !references.some((r) => r.parent === table && left.has(r.child))).sort();
    if (ready.length === 0) throw new Error(`the foreign keys of ${[...left].join(', ')} form a cycle`);
    for (const table of ready) {
      order.push(table);
      left.delete(table);
    }
  }
  const sequences = (
    await admin().query<{ name: string }>('SELECT sequencename AS name FROM pg_sequences WHERE schemaname = $1::text', [schema])
  ).rows.map((row) => row.name);
  return { tables: order, sequences };
}

/**
 * Drops the schemas this process kept for reuse, and closes its pool. A setup file
 * (test/helpers/drop-idle-schemas.ts) calls it after each test file; on SQLite there is nothing to do.
 */
export async function dropIdleSchemas(): Promise<void> {
  const schemas = idleSchemas.splice(0);
  if (schemas.length > 0) await admin().query(`DROP SCHEMA IF EXISTS ${schemas.join(', ')} CASCADE`);
  const pool = adminPool;
  adminPool = undefined;
  await pool?.end();
}

/**
 * Every row of every table the store holds, found by introspection so a table added later is
 * searched too (on PostgreSQL, the tables of this store's schema only).
 */
async function dumpTables(open: TestStore['open'], schema?: string): Promise<string> {
  const db = open();
  try {
    const tables = (await tablesOf(db)).filter((table) => schema === undefined || table.schema === schema);
    const parts: string[] = [];
    for (const table of tables) {
      const rows = await db
        .selectFrom(table.name as keyof Database)
        .selectAll()
        .execute();
      parts.push(`${table.name}: ${JSON.stringify(rows, readableBytes)}`);
    }
    return parts.join('\n');
  } finally {
    await db.destroy();
  }
}

/**
 * A binary column as the text it holds, so a search of the dump finds what is in it too: a
 * Brotli-compressed column (reports.results_br) decompressed, any other bytes as UTF-8.
 */
function readableBytes(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || (value as { type?: unknown }).type !== 'Buffer') return value;
  const bytes = Buffer.from((value as { data: number[] }).data);
  try {
    return brotliDecompressSync(bytes).toString('utf8');
  } catch {
    return bytes.toString('utf8');
  }
}

/**
 * Kysely's introspection reads every schema of the database; another test file dropping its own
 * schema meanwhile makes PostgreSQL answer 3F000 (schema does not exist). Nothing was read: read again.
 */
async function tablesOf(db: ReturnType<TestStore['open']>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.introspection.getTables({ withInternalKyselyTables: true });
    } catch (error) {
      if ((error as { code?: string }).code !== '3F000' || attempt >= 5) throw error;
    }
  }
}

async function deleteRedisKeys(url: string, pattern: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`TEST_BACKEND=postgres needs ${name}`);
  return value;
}
