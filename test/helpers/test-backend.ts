import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createDatabase, type Db } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';

/**
 * Which backend the suite runs on (vitest.config.ts sets TEST_BACKEND per project):
 * - `sqlite`: a fresh SQLite file per app, rate-limit counters in memory;
 * - `postgres`: a fresh schema per app on TEST_DATABASE_URL, counters in Redis at TEST_REDIS_URL
 *   under a key prefix of its own; both are dropped again when the app closes, so runs (and
 *   parallel test files) never see each other's data.
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

async function createPostgresStore(): Promise<TestStore> {
  const serverUrl = requiredEnv('TEST_DATABASE_URL');
  const redisUrl = requiredEnv('TEST_REDIS_URL');
  const schema = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await withAdmin(serverUrl, (client) => client.query(`CREATE SCHEMA ${schema}`));
  // Every connection of the app (and of child processes given this URL) works inside the schema.
  const separator = serverUrl.includes('?') ? '&' : '?';
  const databaseUrl = `${serverUrl}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  // A command timeout well above the 500 ms default: on a loaded CI machine a counter command can
  // take longer, and the fall-back to in-memory counters would then reset the counts tests assert.
  // The partition test sets the default back explicitly.
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `${schema}:`, REDIS_COMMAND_TIMEOUT_MS: '10000' };
  const open = (options?: Parameters<typeof createDatabase>[1]) => createDatabase(databaseUrl, options);
  return {
    env,
    sqliteFile: null,
    open,
    everythingStored: () => dumpTables(open, schema),
    async drop() {
      await withAdmin(serverUrl, (client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      await deleteRedisKeys(redisUrl, `${schema}:*`);
    },
  };
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

async function withAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
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
