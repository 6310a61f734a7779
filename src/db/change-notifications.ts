import pg from 'pg';
import type { Db } from './database.js';
import { postgresPoolOf } from './database.js';

/*
 * How a process hears that the database changed, for the caches that must never outlive a change
 * (auth/token-cache.ts). The database's triggers report changes (migration 0012); this module knows
 * nothing of what changed, only how to hear it.
 */

/** A version of what a cache may hold: it changes whenever anything the cache may hold changes. */
export interface ChangeVersion {
  /**
   * A number that changes whenever anything the cache may hold has changed in the database, read
   * before each use; null when that cannot be known now (nothing is then served or kept).
   */
  current(): number | null | Promise<number | null>;
  /** After a lookup: false when `version` is known to be no longer current (the row is then not kept). */
  unchanged(version: number): boolean;
  close(): Promise<void>;
}

/** How often the listening connection is asked to answer, and how long it may stay silent before it counts as lost. */
const HEARTBEAT_MS = 2_000;
const SILENCE_LIMIT_MS = 5_000;
const RECONNECT_MS = 1_000;

/**
 * PostgreSQL: a connection of its own (the pool's settings, so the same schema) that LISTENs on
 * `channel`, whose notifications carry the schema that changed. Every notification for our schema,
 * every loss and every re-connection moves the version on: a cache that compares versions before
 * and after a read never keeps what a change it did not hear about may have made stale.
 */
export class PostgresChangeListener implements ChangeVersion {
  private version = 0;
  private client: pg.Client | null = null;
  private listening = false;
  private lastHeardAt = 0;
  private closed = false;
  private heartbeat: NodeJS.Timeout | null = null;
  private reconnect: NodeJS.Timeout | null = null;

  constructor(
    private readonly clientConfig: pg.ClientConfig,
    private readonly channel: string,
    private readonly onLost: (error: unknown) => void = () => {},
    private readonly onBack: () => void = () => {},
  ) {}

  /**
   * Whether `onLost` was told of a loss that `onBack` has not yet ended: while the database is away
   * the listener tries again every second, and each failed attempt is not news (D38: an outage is
   * logged when it starts and when it ends).
   */
  private lossReported = false;

  /** A change made by this process (database.ts `onStatement`), known before its notification comes back. */
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
      if (message.channel === this.channel && message.payload === this.schema) this.version += 1;
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
      this.schema = rows[0]!.schema;
      await client.query(`listen ${this.channel}`);
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
    if (this.lossReported) {
      this.lossReported = false;
      this.onBack();
    }
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
    if (error !== null && !this.lossReported) {
      this.lossReported = true;
      this.onLost(error);
    }
    client.end().catch(() => {});
    if (!this.closed) this.reconnect = setTimeout(() => void this.connect(), RECONNECT_MS).unref();
  }
}

/** A listener's connection settings: `db`'s pool's (so the same schema), on a connection of its own. */
export function listenerConfigOf(db: Db, applicationName: string): pg.ClientConfig | undefined {
  const pool = postgresPoolOf(db);
  if (!pool) return undefined;
  const { connectionString, host, port, user, password, database, ssl, options } = pool.options as pg.ClientConfig;
  return {
    connectionString,
    host,
    port,
    user,
    password,
    database,
    ssl,
    options,
    application_name: applicationName,
    keepAlive: true,
    connectionTimeoutMillis: 5_000,
  };
}
