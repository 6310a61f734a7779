import pg from 'pg';
import type { Db } from '../db/database.js';
import { onLocalAuthWrite, postgresPoolOf, sqliteAuthGeneration } from '../db/database.js';

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

/** Tells the cache whether what it holds may still be served. */
export interface CacheFreshness {
  /**
   * A number that changes whenever anything the cache may hold has changed in the database, read
   * before each use; null when that cannot be known now (nothing is then served or kept).
   */
  current(): number | null | Promise<number | null>;
  /** After a lookup: false when `version` is known to be no longer current (the row is then not kept). */
  unchanged(version: number): boolean;
  close(): Promise<void>;
}

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

/** How often the listening connection is asked to answer, and how long it may stay silent before it counts as lost. */
const HEARTBEAT_MS = 2_000;
const SILENCE_LIMIT_MS = 5_000;
const RECONNECT_MS = 1_000;
export const AUTH_CHANNEL = 'scoreboard_auth';

/**
 * PostgreSQL: a connection of its own (the pool's settings, so the same schema) that LISTENs. Every
 * notification for our schema, every loss and every re-connection moves the version on.
 */
export class PostgresFreshness implements CacheFreshness {
  private version = 0;
  private client: pg.Client | null = null;
  private listening = false;
  private lastHeardAt = 0;
  private closed = false;
  private heartbeat: NodeJS.Timeout | null = null;
  private reconnect: NodeJS.Timeout | null = null;

  constructor(
    private readonly clientConfig: pg.ClientConfig,
    private readonly onLost: (error: unknown) => void = () => {},
  ) {}

  /** A change made by this process (database.ts `onLocalAuthWrite`), known before its notification comes back. */
  changed(): void {
    this.version += 1;
  }

  /**
   * Starts listening; resolves once it listens, or once the first attempt failed (it goes on trying
   * in the background: until it listens, the cache is not used).
   */
  async start(): Promise<this> {
    await this.connect();
    return this;
  }

  /** The server process of the listening connection, or null (for tests). */
  get backendPid(): number | null {
    return this.listening ? ((this.client as unknown as { processID?: number } | null)?.processID ?? null) : null;
  }

  /** Whether notifications are being received now (for tests). */
  get isListening(): boolean {
    return this.current() !== null;
  }

  current(): number | null {
    if (!this.listening) return null;
    if (performance.now() - this.lastHeardAt > SILENCE_LIMIT_MS) {
      this.lose(this.client, new Error('the listening connection went silent'));
      return null;
    }
    return this.version;
  }

  unchanged(version: number): boolean {
    return this.current() === version;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnect) clearTimeout(this.reconnect);
    const client = this.client;
    this.lose(client, null);
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.clientConfig);
    this.client = client;
    client.on('error', (error) => this.lose(client, error));
    client.on('end', () => this.lose(client, new Error('the listening connection ended')));
    client.on('notification', (message) => {
      if (message.channel === AUTH_CHANNEL && message.payload === this.schema) this.version += 1;
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
      this.schema = rows[0]!.schema;
      await client.query(`listen ${AUTH_CHANNEL}`);
    } catch (error) {
      this.lose(client, error);
      return;
    }
    if (this.client !== client || this.closed) {
      await client.end().catch(() => {});
      return;
    }
    // What changed while no one listened is unknown: start from an empty cache.
    this.version += 1;
    this.listening = true;
    this.lastHeardAt = performance.now();
    this.heartbeat = setInterval(() => {
      client.query('select 1').then(
        () => {
          if (this.client === client) this.lastHeardAt = performance.now();
        },
        (error: unknown) => this.lose(client, error),
      );
    }, HEARTBEAT_MS).unref();
  }

  private schema: string | null = null;

  private lose(client: pg.Client | null, error: unknown): void {
    if (client === null || this.client !== client) return;
    this.client = null;
    this.listening = false;
    this.version += 1;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (error !== null) this.onLost(error);
    client.end().catch(() => {});
    if (!this.closed) this.reconnect = setTimeout(() => void this.connect(), RECONNECT_MS).unref();
  }
}

/** The freshness source for `db`'s engine (on PostgreSQL, once its first attempt to listen has ended). */
export async function freshnessFor(db: Db, onLost?: (error: unknown) => void): Promise<CacheFreshness> {
  const pool = postgresPoolOf(db);
  if (!pool) {
    const readGeneration = sqliteAuthGeneration(db);
    if (!readGeneration) throw new Error('token cache: a database not opened by createDatabase');
    return sqliteFreshness(readGeneration);
  }
  const { connectionString, host, port, user, password, database, ssl, application_name, options } = pool.options as pg.ClientConfig;
  const config: pg.ClientConfig = { connectionString, host, port, user, password, database, ssl, application_name, options };
  const freshness = new PostgresFreshness(
    { ...config, application_name: 'scoreboard-auth-listener', keepAlive: true, connectionTimeoutMillis: 5_000 },
    onLost,
  );
  const stopObserving = onLocalAuthWrite(db, () => freshness.changed());
  const close = freshness.close.bind(freshness);
  freshness.close = async () => {
    stopObserving();
    await close();
  };
  return freshness.start();
}
