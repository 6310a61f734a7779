import { type ChangeVersion, listenerConfigOf, PostgresChangeListener } from '../db/change-notifications.js';
import { type Db, onStatement, sqliteDirectRead } from '../db/database.js';

export { PostgresChangeListener as PostgresFreshness } from '../db/change-notifications.js';

/**
 * Issue 15: a per-instance cache of token lookups that never outlives a change of what it holds.
 *
 * It is keyed by the token's SHA-256 (never the plain text) and holds what the lookup read (the
 * token's auth row: its user, abilities, expiry and the user's subscription). Whatever is computed
 * from the clock (expiry, whether the subscription is active) is computed again on every use from
 * the cached row, never cached. Unknown tokens are not cached.
 *
 * What it holds is dropped whenever anything it could hold changes in the database, as migration
 * 0012's triggers report it (any write path: API, dashboard, CLI, cascades):
 * - SQLite: a counter row the triggers bump; every lookup reads it (one statement on an indexed
 *   one-row table instead of the three-table join). Several processes may share the file: a commit
 *   by any of them is seen by the next read. Exact.
 * - PostgreSQL: LISTEN on `scoreboard_auth` on a connection of its own; the triggers' NOTIFY is sent
 *   at commit, only if the transaction commits. Chosen over Redis pub/sub because it needs no
 *   publish call after each write (a forgotten one, or a process that dies between commit and
 *   publish, would leave stale entries) and works without REDIS_URL. A lookup on the instance that
 *   committed, or on another, is served from the database from the moment the notification arrives
 *   (milliseconds after the commit). While the listening connection is down, or silent past its
 *   heartbeat, nothing is served from or put into the cache; once it listens again the cache starts
 *   empty.
 *
 * Writes never use it: D22's second check reads the token again inside the write's transaction
 * (auth/write-credential.ts).
 */

/** Tells the cache whether what it holds may still be served (db/change-notifications.ts). */
export type CacheFreshness = ChangeVersion;

/** Entries kept per instance (a token's auth row is a few hundred bytes). */
export const TOKEN_CACHE_CAPACITY = 10_000;

/** A bounded map from token hash to what its lookup found, least recently used dropped first. */
export class LookupCache<V> {
  private readonly entries = new Map<string, V>();
  private version: number | null = null;

  constructor(
    private readonly freshness: CacheFreshness,
    private readonly capacity = TOKEN_CACHE_CAPACITY,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached value of `key` if still current, else `load()`'s (kept when nothing changed meanwhile). */
  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const version = await this.freshness.current();
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
    // A change committed while the lookup ran may or may not be in what it read: keep it only if the
    // version did not move (on SQLite the next read of the counter tells, and clears).
    if (loaded !== undefined && this.version === version && this.freshness.unchanged(version)) {
      if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, loaded);
    }
    return loaded;
  }

  async close(): Promise<void> {
    this.entries.clear();
    await this.freshness.close();
  }
}

/** SQLite: migration 0012's counter, read with every lookup (one statement on a one-row table). */
export function sqliteFreshness(readGeneration: () => number | null): CacheFreshness {
  return {
    current: readGeneration,
    unchanged: () => true,
    close: async () => {},
  };
}

/** What migration 0012's triggers send at commit, with the schema that changed. */
export const AUTH_CHANNEL = 'scoreboard_auth';

/** SQLite: migration 0012's counter, bumped by its triggers. */
const READ_GENERATION = 'select "generation" from "auth_changes" where "id" = 1';

// A write to what a token lookup reads (migration 0012), other than D9's last_used_at, or the end of
// any transaction (which may have held such a write: the log does not say which connection ran what).
const AUTH_WRITE = /^\s*(insert into|update|delete from) "(personal_access_tokens|users|subscriptions)"/i;
const LAST_USED_WRITE = /^update "personal_access_tokens" set "last_used_at" = \$1 where/;
const TRANSACTION_END = /^\s*(commit|rollback)\b/i;
function changesAuth(text: string): boolean {
  return TRANSACTION_END.test(text) || (AUTH_WRITE.test(text) && !LAST_USED_WRITE.test(text));
}

/**
 * The freshness source for `db`'s engine (on PostgreSQL, once its first attempt to listen has ended).
 * `onLost` is told once when the notifications are lost, `onBack` once when they are back.
 */
export async function freshnessFor(db: Db, onLost?: (error: unknown) => void, onBack?: () => void): Promise<CacheFreshness> {
  const config = listenerConfigOf(db, 'scoreboard-auth-listener');
  if (!config) {
    const read = sqliteDirectRead(db, READ_GENERATION);
    if (!read) throw new Error('token cache: a database not opened by createDatabase');
    return sqliteFreshness(() => {
      const row = read()?.[0] as { generation: number } | undefined;
      return row === undefined ? null : Number(row.generation);
    });
  }
  const listener = new PostgresChangeListener(config, AUTH_CHANNEL, onLost, onBack);
  // This process's own writes are known at once, before their notification comes back.
  const stopObserving = onStatement(db, (text) => {
    if (changesAuth(text)) listener.changed();
  });
  const close = listener.close.bind(listener);
  listener.close = async () => {
    stopObserving();
    await close();
  };
  return listener.start();
}
