import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { distinctRuns } from '../distinct-runs.js';
import { SERVICE_NODE_FLAGS, serviceEnv, startServer, type ServerProcess } from '../processes.js';
import { inSchema, withPostgres } from '../stores.js';
import { TcpProxy } from '../tcp-proxy.js';
import { sleep, type Uploader } from './load.js';
import { startReceiver, type Receiver } from './receiver.js';

/** The repository (this file runs as bench/.build/chaos/world.js). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** Where a run keeps each instance's log (git-ignored), for reading after a verdict. */
export const LOG_DIR = join(ROOT, 'bench/.data/chaos');
/** The fixtures' project id, replaced by the uploading project's. */
const FIXTURE_PROJECT_ID = '0190c8a0-0000-7000-8000-000000000001';
const SMALL_REPORT = join(ROOT, 'test/fixtures/client-wire/reports/report-small.json');

export interface Instance {
  name: string;
  url: string;
  server: ServerProcess;
  /** Its own TCP proxy to PostgreSQL (null on SQLite). */
  proxy: TcpProxy | null;
  /** Its log, one JSON object a line. */
  log: string[];
}

export interface Project {
  id: string;
  apiToken: string;
}

/** What the database holds, read directly (never through an instance or a proxy). */
export interface Store {
  storedUuids(): Promise<Set<string>>;
  /** How many reports `projectId` holds. */
  reportsOf(projectId: string): Promise<number>;
  /** Every delivery of the run's webhooks: its id (the `webhook-id` header), status and last attempt. */
  deliveries(): Promise<Delivery[]>;
}

export interface Delivery {
  id: string;
  status: string;
  attempts: number;
  response_status: number | null;
  error: string | null;
  claimed_until: string | null;
}

const DELIVERIES = 'select id, status, attempts, response_status, error, claimed_until from webhook_deliveries';

export type Backend = { kind: 'postgres'; url: string } | { kind: 'sqlite'; file: string };

export interface WorldOptions {
  /** The scenario's name: in the schema's name and the log files'. */
  label: string;
  backend: Backend;
  /** DATABASE_POOL_MAX of each instance: one instance per entry (SQLite: the first only). */
  pools: number[];
  receiverDelayMs: number;
  /** More environment for every instance. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The real processes of one scenario: a fresh database (a PostgreSQL schema of its own, or a SQLite
 * file), `scoreboard serve` instances from dist/ (each through its own TCP proxy to PostgreSQL), a
 * user on the Enterprise plan, and the webhook receiver.
 */
export class World {
  readonly started = Date.now();
  /** Milliseconds since the world was made: the time axis of every answer. */
  readonly clock = () => Date.now() - this.started;

  private constructor(
    readonly options: WorldOptions,
    readonly instances: Instance[],
    readonly receiver: Receiver,
    readonly store: Store,
    private readonly personalToken: string,
    private readonly dropDatabase: () => Promise<void>,
  ) {}

  static async create(options: WorldOptions): Promise<World> {
    const { backend } = options;
    const env = (databaseUrl: string, pool: number) =>
      serviceEnv(databaseUrl, {
        // Info: the outage's start, count and end lines are not all errors.
        LOG_LEVEL: 'info',
        DATABASE_POOL_MAX: String(pool),
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // Small reports are handled on the event loop anyway: no idle threads on a busy machine.
        WORKER_THREADS: '0',
        ...options.env,
      });
    const cli = (databaseUrl: string, ...args: string[]) =>
      execFileSync(process.execPath, [join(ROOT, 'bin/scoreboard.js'), ...args], { env: env(databaseUrl, 2), encoding: 'utf8' });

    let databaseUrl: string;
    let instanceUrl: (proxy: TcpProxy | null) => string;
    let dropDatabase = async () => {};
    let store: Store;
    if (backend.kind === 'postgres') {
      const schema = `chaos_${options.label.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
      await withPostgres(backend.url, (client) => client.query(`create schema ${schema}`));
      dropDatabase = async () => {
        await withPostgres(backend.url, (client) => client.query(`drop schema if exists ${schema} cascade`));
      };
      databaseUrl = inSchema(backend.url, schema);
      instanceUrl = (proxy) => inSchema(proxy!.rewrite(backend.url), schema);
      store = postgresStore(databaseUrl);
    } else {
      databaseUrl = `sqlite:${backend.file}`;
      instanceUrl = () => databaseUrl;
      store = await sqliteStore(backend.file);
    }

    const receiver = await startReceiver(options.receiverDelayMs);
    const instances: Instance[] = [];
    try {
      cli(databaseUrl, 'migrate');
      const user = JSON.parse(cli(databaseUrl, 'users:create', '--email', 'chaos@example.com', '--plan', 'enterprise', '--json')) as {
        token: string;
      };
      const pools = backend.kind === 'sqlite' ? options.pools.slice(0, 1) : options.pools;
      for (const [i, pool] of pools.entries()) {
        const proxy = backend.kind === 'postgres' ? await TcpProxy.for(backend.url, 5432) : null;
        const log: string[] = [];
        const server = await startServer(
          [...SERVICE_NODE_FLAGS, join(ROOT, 'bin/scoreboard.js'), 'serve'],
          env(instanceUrl(proxy), pool),
          '/readyz',
          {
            onLog: (line) => log.push(line),
          },
        );
        instances.push({ name: String.fromCharCode(97 + i), url: server.url, server, proxy, log });
      }
      return new World(options, instances, receiver, store, user.token, dropDatabase);
    } catch (error) {
      for (const instance of instances) {
        await stopWithin(instance.server, 5_000);
        await instance.proxy?.close();
      }
      await receiver.close();
      await dropDatabase();
      throw error;
    }
  }

  instance(name: string): Instance {
    return this.instances.find((instance) => instance.name === name)!;
  }

  /** A project (created through the first instance), with a webhook for `report.created` to the receiver if `hooked`. */
  async createProject(name: string, hooked: boolean): Promise<Project> {
    const base = this.instances[0]!.url;
    const headers = { authorization: `Bearer ${this.personalToken}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/api/v1/projects`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name, framework_version: '11', repository_url: 'https://github.com/acme/chaos' }),
    });
    if (created.status !== 201) throw new Error(`creating a project answered ${created.status}: ${await created.text()}`);
    const { project, api_token } = (await created.json()) as { project: { id: string }; api_token: string };
    if (hooked) {
      const hook = await fetch(`${base}/api/v1/projects/${project.id}/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: this.receiver.url, events: ['report.created'], description: 'chaos' }),
      });
      if (hook.status !== 201) throw new Error(`creating a webhook answered ${hook.status}: ${await hook.text()}`);
    }
    return { id: project.id, apiToken: api_token };
  }

  /** An uploader of distinct runs of the client's small report to `project` through `instance`. */
  uploader(project: Project, instance: string): Uploader {
    const text = readFileSync(SMALL_REPORT, 'utf8').split(FIXTURE_PROJECT_ID).join(project.id);
    return { instance, url: this.instance(instance).url, apiToken: project.apiToken, next: distinctRuns(text, `chaos-${instance}`) };
  }

  /** `uploaders` per instance, each on a project of its own (hooked or not), for a steady load. */
  async steadyUploaders(perInstance: number, hooked: boolean): Promise<Uploader[]> {
    const uploaders: Uploader[] = [];
    for (const { name } of this.instances) {
      for (let i = 0; i < perInstance; i++) uploaders.push(this.uploader(await this.createProject(`Load ${name}${i}`, hooked), name));
    }
    return uploaders;
  }

  /**
   * Waits (at most `limitMs`) until the receiver has seen every delivery the database holds and none
   * is pending; returns how long that took.
   */
  async drainWebhooks(limitMs: number): Promise<number> {
    const from = Date.now();
    while (Date.now() - from < limitMs) {
      const deliveries = await this.store.deliveries();
      if (deliveries.every((delivery) => delivery.status !== 'pending' && this.receiver.seen.has(delivery.id))) break;
      await sleep(500);
    }
    return Date.now() - from;
  }

  /** Stops what still runs (each instance given 20 s, then SIGKILL), writes the logs, drops the database. */
  async close(): Promise<void> {
    for (const instance of this.instances) {
      await stopWithin(instance.server, 20_000);
      await instance.proxy?.close();
    }
    await this.receiver.close();
    mkdirSync(LOG_DIR, { recursive: true });
    for (const instance of this.instances) {
      writeFileSync(join(LOG_DIR, `${this.options.label}-${instance.name}.log`), instance.log.map((line) => `${line}\n`).join(''));
    }
    await this.dropDatabase();
  }
}

/** SIGTERM, then SIGKILL if the process is still there after `ms`. */
export async function stopWithin(server: ServerProcess, ms: number): Promise<void> {
  if (server.ended() !== null) return;
  const stopped = server.stop();
  const timer = setTimeout(() => {
    if (server.ended() === null) process.kill(server.pid, 'SIGKILL');
  }, ms);
  await stopped;
  clearTimeout(timer);
}

function postgresStore(url: string): Store {
  return {
    storedUuids: () =>
      withPostgres(url, async (client) => new Set((await client.query('select uuid from reports')).rows.map((row) => row.uuid))),
    reportsOf: (projectId) =>
      withPostgres(url, async (client) =>
        Number((await client.query('select count(*) as n from reports where project_id = $1', [projectId])).rows[0].n),
      ),
    deliveries: () => withPostgres(url, async (client) => (await client.query(DELIVERIES)).rows),
  };
}

async function sqliteStore(file: string): Promise<Store> {
  const { SqliteDatabase } = (await import(pathToFileURL(join(ROOT, 'dist/db/sqlite-binding.js')).href)) as {
    SqliteDatabase: new (
      file: string,
      options?: { readonly?: boolean },
    ) => { prepare(sql: string): { all(...params: unknown[]): Record<string, unknown>[] }; close(): void };
  };
  const read = async <T>(sql: string, ...params: unknown[]): Promise<T[]> => {
    const db = new SqliteDatabase(file, { readonly: true });
    try {
      return db.prepare(sql).all(...params) as T[];
    } finally {
      db.close();
    }
  };
  return {
    storedUuids: async () => new Set((await read<{ uuid: string }>('select uuid from reports')).map((row) => row.uuid)),
    reportsOf: async (projectId) => (await read<{ n: number }>('select count(*) as n from reports where project_id = ?', projectId))[0]!.n,
    deliveries: () => read<Delivery>(DELIVERIES),
  };
}
