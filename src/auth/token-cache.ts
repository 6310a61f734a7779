import { type Db, sqliteDirectRead } from '../db/database.js';
import { isPostgres } from '../db/dialect.js';

/**
 * Issue 15: on SQLite, a per-instance cache of token lookups that never outlives a change of what
 * it holds.
 *
 * It is keyed by the token's SHA-256 (never the plain text) and holds what the lookup read (the
 * token's auth row: its user, abilities, expiry and the user's subscription). Whatever is computed
 * from the clock (expiry, whether the subscription is active) is computed again on every use from
 * the cached row, never cached. Unknown tokens are not cached.
 *
 * What it holds is dropped whenever anything it could hold changes in the database: migration
 * 0012's triggers (any write path: API, dashboard, CLI, cascades) bump a counter row, and every
 * lookup reads it (one statement on an indexed one-row table instead of the three-table join).
 * Several processes may share the file: a commit by any of them is seen by the next read. Exact.
 *
 * On PostgreSQL nothing is cached: every lookup reads the database (D9: the next request with a
 * revoked token gets 401, on whichever instance). A change notification reaches the other instances
 * only after the writer's commit has returned, so a cache waiting for one may serve a revoked token
 * meanwhile; a counter read per request instead would cost the very round trip of the lookup it
 * replaces.
 *
 * Writes never use it: D22's second check reads the token again inside the write's transaction
 * (auth/write-credential.ts).
 */

/** Entries kept per instance (a token's auth row is a few hundred bytes). */
export const TOKEN_CACHE_CAPACITY = 10_000;

/**
 * A number that changes whenever anything the cache may hold has changed in the database, read
 * before each use; null when that cannot be known now (nothing is then served or kept).
 */
export type ReadVersion = () => number | null;

/** A bounded map from token hash to what its lookup found, least recently used dropped first. */
export class LookupCache<V> {
  private readonly entries = new Map<string, V>();
  private version: number | null = null;

  constructor(
    private readonly readVersion: ReadVersion,
    private readonly capacity = TOKEN_CACHE_CAPACITY,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached value of `key` if still current, else `load()`'s (kept when nothing changed meanwhile). */
  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const version = this.readVersion();
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    if (version === null) return load();
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      this.entries.delete(key); // re-inserted: Map order is recency
      this.entries.set(key, cached);
      return cached;
    }
    const loaded = await load();
    // The lookup ran after the version was read, so it is at least as new as that version; but
    // another lookup may have seen the version move meanwhile, and a change in between may be
    // missing from this one: then it is not kept.
    if (loaded !== undefined && this.version === version) {
      if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, loaded);
    }
    return loaded;
  }
}

/** SQLite: migration 0012's counter, bumped by its triggers. */
const READ_GENERATION = 'select "generation" from "auth_changes" where "id" = 1';

/** SQLite: the reader of migration 0012's counter (one statement on a one-row table); undefined on PostgreSQL. */
export function sqliteAuthVersion(db: Db): ReadVersion | undefined {
  if (isPostgres(db)) return undefined;
  const read = sqliteDirectRead(db, READ_GENERATION);
  if (!read) throw new Error('token cache: a database not opened by createDatabase');
  return () => {
    const row = read()?.[0] as { generation: number } | undefined;
    return row === undefined ? null : Number(row.generation);
  };
}

/** This instance's cache of token lookups on SQLite; undefined on PostgreSQL, where every lookup reads the database. */
export function tokenCacheFor<V>(db: Db): LookupCache<V> | undefined {
  const readVersion = sqliteAuthVersion(db);
  return readVersion && new LookupCache<V>(readVersion);
}
