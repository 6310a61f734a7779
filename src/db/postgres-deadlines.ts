import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/**
 * D37: the pool Kysely is given on PostgreSQL. node-postgres bounds connecting (the pool's
 * `connectionTimeoutMillis`) and each statement (`query_timeout`), but what it does after a
 * client-side timeout is not enough on a silent link (a black-holed network, a NAT that lost its
 * state): the timed-out statement stays the connection's active one, a transaction's `rollback` then
 * waits behind it for a second timeout, the connection goes back to the pool as if healthy, and the
 * pool's idle connections, dead the same way, each cost the next requests another full timeout
 * after the database is back (issue 36: 75 s of 503s with a pool of 4). So:
 *
 * - a statement that fails for its connection (timed out, connection lost) destroys that connection
 *   at once: what is queued behind it fails at once, and it is removed from the pool, never reused;
 * - each such failure starts a new generation: every connection last known to work before it is
 *   suspect. An idle one is ended when checked out (a new one is made in its place); one in use
 *   whose statement has heard nothing for `SUSPECT_SILENCE_MS` is ended too, freeing its slot;
 * - a connection idle for longer than `VALIDATE_IDLE_AFTER_MS` answers a `select 1` within
 *   `VALIDATE_WITHIN_MS` before it is handed out: a link that went silent while nobody used it
 *   (nothing failed, so nothing is suspect yet) costs a short check, not a statement's deadline;
 * - acquiring a connection, however many suspect ones are ended on the way, is bounded as a whole.
 *
 * A connection that succeeds in a statement is known good in the current generation again.
 */
export class DeadlinePool implements PostgresPool {
  #generation = 0;
  readonly #tracked = new WeakMap<pg.PoolClient, Tracked>();
  readonly #inUse = new Map<pg.PoolClient, Tracked>();
  #sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly deadlines: { acquireMs: number },
  ) {
    pool.on('connect', (client) => {
      const tracked: Tracked = { generation: this.#generation, pending: 0, lastHeard: now(), idleSince: now(), broken: false };
      this.#tracked.set(client, tracked);
      // Any bytes from the server: the link is alive (rows of a long result included).
      streamOf(client)?.on('data', () => {
        tracked.lastHeard = now();
      });
    });
  }

  /** Connection failures seen so far (a new generation each); for tests and metrics. */
  get generation(): number {
    return this.#generation;
  }

  async connect(): Promise<PostgresPoolClient> {
    const deadline = now() + this.deadlines.acquireMs;
    for (;;) {
      const client = await this.#checkout(deadline);
      let tracked = this.#tracked.get(client);
      if (tracked === undefined) {
        tracked = { generation: this.#generation, pending: 0, lastHeard: now(), idleSince: now(), broken: false };
        this.#tracked.set(client, tracked);
      }
      if (tracked.generation < this.#generation) {
        // Last known good before a connection failed since: it may be dead the same way.
        this.#end(client, tracked);
        continue;
      }
      if (now() - tracked.idleSince > VALIDATE_IDLE_AFTER_MS && !(await this.#answers(client, tracked, deadline))) {
        this.#connectionFailed(client, tracked);
        this.#end(client, tracked);
        continue;
      }
      return this.#lend(client, tracked);
    }
  }

  async end(): Promise<void> {
    this.#stopSweeping();
    await this.pool.end();
  }

  /** One connection from the pool, or the pool's own timeout error once `deadline` has passed. */
  async #checkout(deadline: number): Promise<pg.PoolClient> {
    const remaining = deadline - now();
    if (remaining <= 0) throw acquireTimeout();
    const acquiring = this.pool.connect();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(acquireTimeout()), remaining);
    });
    try {
      return await Promise.race([acquiring, timeout]);
    } catch (error) {
      // The pool cannot take back a request: the connection it hands out late goes back at once.
      acquiring.then(
        (late) => late.release(),
        () => {},
      );
      if (isConnectionFailure(error) && !isSlotWait(error)) this.#newGeneration();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether an idle connection still answers, within the shorter of its check's bound and `deadline`. */
  async #answers(client: pg.PoolClient, tracked: Tracked, deadline: number): Promise<boolean> {
    const within = Math.max(1, Math.min(VALIDATE_WITHIN_MS, deadline - now()));
    try {
      await client.query({ text: 'select 1', query_timeout: within } as pg.QueryConfig);
      tracked.lastHeard = now();
      return true;
    } catch {
      return false;
    }
  }

  #lend(client: pg.PoolClient, tracked: Tracked): PostgresPoolClient {
    this.#inUse.set(client, tracked);
    let released = false;
    const query = (text: string, parameters: readonly unknown[]) => {
      // Destroyed under its holder (a timed-out statement, a sweep): what the holder sends next, a
      // transaction's rollback, fails at once rather than being queued on a socket being torn down.
      if (tracked.broken) return Promise.reject(new Error('Client has encountered a connection error and is not queryable'));
      const generation = this.#generation;
      tracked.pending += 1;
      tracked.lastHeard = now(); // silence is counted from the statement's start
      return (client.query(text, parameters as unknown[]) as Promise<PostgresQueryResult<unknown>>).then(
        (result) => {
          tracked.pending -= 1;
          // It answered: alive now, whatever failed while it ran.
          if (!tracked.broken) tracked.generation = Math.max(tracked.generation, generation);
          return result;
        },
        (error: unknown) => {
          tracked.pending -= 1;
          if (isConnectionFailure(error)) this.#connectionFailed(client, tracked);
          throw error;
        },
      );
    };
    return {
      query: query as PostgresPoolClient['query'],
      release: () => {
        if (released) return;
        released = true;
        this.#inUse.delete(client);
        if (tracked.broken) {
          client.release(new Error('the connection failed and was destroyed'));
        } else {
          tracked.idleSince = now();
          client.release();
        }
      },
    };
  }

  /** `client` failed for its connection: destroyed, and everything last known good before is suspect. */
  #connectionFailed(client: pg.PoolClient, tracked: Tracked): void {
    if (tracked.broken) return; // ended by us (a sweep), not a new failure
    tracked.broken = true;
    destroy(client);
    this.#newGeneration();
  }

  #newGeneration(): void {
    this.#generation += 1;
    this.#startSweeping();
  }

  /** Ends an idle suspect connection (never lent out again). */
  #end(client: pg.PoolClient, tracked: Tracked): void {
    tracked.broken = true;
    destroy(client);
    client.release(new Error('the connection was suspect and was destroyed'));
  }

  #startSweeping(): void {
    if (this.#sweeper !== null) return;
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_EVERY_MS);
    this.#sweeper.unref();
  }

  #stopSweeping(): void {
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
  }

  /**
   * Connections in use from before the last failure, waiting on a statement that has heard nothing
   * for a while, are on the link that failed: ended now rather than at their own deadline, so their
   * slots serve again as soon as the database answers. (A slow statement on a healthy connection of
   * an older generation is ended too: only while failures are being seen.)
   */
  #sweep(): void {
    let suspects = 0;
    for (const [client, tracked] of this.#inUse) {
      if (tracked.broken || tracked.generation >= this.#generation || tracked.pending === 0) continue;
      if (now() - tracked.lastHeard >= SUSPECT_SILENCE_MS) {
        tracked.broken = true;
        destroy(client);
      } else {
        suspects += 1;
      }
    }
    if (suspects === 0) this.#stopSweeping();
  }
}

/**
 * Whether a statement's error means its connection is unusable (as opposed to an error the server
 * answered with on a working connection): a client-side timeout, a lost or closed connection, a
 * socket error, or the server ending the session.
 */
export function isConnectionFailure(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (SOCKET_ERRORS.has(code) || code.startsWith('08') || ['57P01', '57P02', '57P03', '25P03'].includes(code)) return true;
  }
  return typeof message === 'string' && CONNECTION_FAILURE.test(message);
}

const SOCKET_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND']);
const CONNECTION_FAILURE =
  /^(Query read timeout|Connection terminated( unexpectedly| due to connection timeout)?|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect)$/;

/** The pool's own "no slot in time" (every connection busy): says nothing about the link. */
function isSlotWait(error: unknown): boolean {
  return (error as { message?: unknown } | null)?.message === ACQUIRE_TIMEOUT;
}

const ACQUIRE_TIMEOUT = 'timeout exceeded when trying to connect';

/** The same error as pg-pool's when no connection could be had in time (mapped to 503). */
function acquireTimeout(): Error {
  return new Error(ACQUIRE_TIMEOUT);
}

/** How long a statement on a suspect connection may hear nothing before the connection is ended. */
export const SUSPECT_SILENCE_MS = 2_000;
const SWEEP_EVERY_MS = 250;
/** An idle connection older than this is checked before it is lent (pg-pool ends those idle 10 s). */
export const VALIDATE_IDLE_AFTER_MS = 1_000;
/** ...and must answer within this (more than a loaded server needs for `select 1`; less than a recovery may take). */
export const VALIDATE_WITHIN_MS = 2_000;

interface Tracked {
  /** The generation the connection was last known to work in. */
  generation: number;
  /** Statements sent and not answered. */
  pending: number;
  /** When the server was last heard from on this connection (or its current statement started). */
  lastHeard: number;
  /** When the connection was last given back to the pool. */
  idleSince: number;
  /** Destroyed (or being): never lent again, removed from the pool when released. */
  broken: boolean;
}

function now(): number {
  return performance.now();
}

function streamOf(client: pg.PoolClient): { destroy(): void; on(event: 'data', listener: () => void): unknown } | undefined {
  return (client as unknown as { connection?: { stream?: { destroy(): void; on(event: 'data', listener: () => void): unknown } } })
    .connection?.stream;
}

/**
 * Ends the connection's socket at once. `client.end()` would first send a goodbye and wait for the
 * server's, which a silent link never delivers; destroying the socket fails the client's queued
 * statements ("Connection terminated unexpectedly") and makes the pool drop it when released.
 */
function destroy(client: pg.PoolClient): void {
  streamOf(client)?.destroy();
}
