import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import { databaseFailure } from '../../src/db/errors.js';
import type { App } from '../../src/http/app-types.js';
import { createDeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { createWebhookSender } from '../../src/webhooks/outbound-http.js';
import { LogCapture } from '../helpers/log-capture.js';
import { ContractChecker } from '../helpers/openapi-contract.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { buildTestApp, send, type TestContext, type TestUser } from '../helpers/test-app.js';
import { onPostgres } from '../helpers/test-backend.js';
import { DATABASE_RETRY_AFTER, expectDatabase503, newProject, unavailableBody, uploadRequest } from './database-503.js';

/**
 * D38: a dependency's failure is a 503 that names its cause once. Statement and lock timeouts, a full
 * disk, a read-only database and lost connections answer 503 with `Retry-After`; the original error
 * survives a failing rollback; /readyz answers 503 while the database cannot write; and the log tells
 * an outage by its start (one error line naming the cause), a count at most every 10 s, and its end.
 */
/** The JSON lines of a captured log. */
function logLines(log: LogCapture): { level: number; msg: string; cause?: string; failed?: number; err?: { message: string } }[] {
  return log.text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}
const ERROR = 50;
const WARN = 40;

describe('what counts as the database failing (constructed errors: some cannot be produced here)', () => {
  it.each([
    // PostgreSQL's disk full cannot be produced in the suite: its mapping is checked on the error pg would give.
    [{ code: '53100', message: 'could not extend file "base/16384/16385": No space left on device' }, 'disk-full'],
    [{ code: '53200', message: 'out of memory' }, 'overloaded'],
    [{ code: '53300', message: 'sorry, too many clients already' }, 'overloaded'],
    [{ code: '57014', message: 'canceling statement due to statement timeout' }, 'timeout'],
    [{ code: '55P03', message: 'canceling statement due to lock timeout' }, 'lock-timeout'],
    [{ code: '25006', message: 'cannot execute INSERT in a read-only transaction' }, 'read-only'],
    [{ code: '57P01', message: 'terminating connection due to administrator command' }, 'connection-lost'],
    [{ code: '57P02', message: 'terminating connection due to crash of another server process' }, 'connection-lost'],
    [{ code: '57P03', message: 'the database system is starting up' }, 'unreachable'],
    [{ code: '08006', message: 'connection failure' }, 'connection-lost'],
    [{ code: '08003', message: 'connection does not exist' }, 'connection-lost'],
    [{ code: '08000', message: 'connection exception' }, 'connection-lost'],
    [{ code: '08001', message: 'could not connect' }, 'unreachable'],
    [{ code: '08004', message: 'server rejected the connection' }, 'unreachable'],
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' }, 'unreachable'],
    [{ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND db' }, 'unreachable'],
    [{ code: 'ETIMEDOUT', message: 'connect ETIMEDOUT' }, 'unreachable'],
    [{ code: 'ECONNRESET', message: 'read ECONNRESET' }, 'connection-lost'],
    [{ code: 'EPIPE', message: 'write EPIPE' }, 'connection-lost'],
    [{ message: 'Connection terminated unexpectedly' }, 'connection-lost'],
    [{ message: 'Connection terminated due to connection timeout' }, 'unreachable'],
    [{ message: 'timeout exceeded when trying to connect' }, 'unreachable'],
    [{ message: 'Client has encountered a connection error and is not queryable' }, 'connection-lost'],
    // pg's client-side query_timeout.
    [{ message: 'Query read timeout' }, 'timeout'],
    [{ code: 'SQLITE_BUSY', message: 'database is locked' }, 'busy'],
    [{ code: 'SQLITE_BUSY_SNAPSHOT', message: 'database is locked' }, 'busy'],
    [{ code: 'SQLITE_FULL', message: 'database or disk is full' }, 'disk-full'],
    [{ code: 'SQLITE_READONLY', message: 'attempt to write a readonly database' }, 'read-only'],
    [{ code: 'SQLITE_READONLY_DBMOVED', message: 'attempt to write a readonly database' }, 'read-only'],
    [{ code: 'SQLITE_IOERR_WRITE', message: 'disk I/O error' }, 'io-error'],
    [{ code: 'SQLITE_CANTOPEN', message: 'unable to open database file' }, 'unreachable'],
  ])('%o is %s', (error, cause) => {
    expect(databaseFailure(Object.assign(new Error(error.message), error))?.cause).toBe(cause);
  });

  it.each([
    { code: '23505', message: 'duplicate key value violates unique constraint' },
    { code: '40P01', message: 'deadlock detected' },
    { code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'UNIQUE constraint failed' },
    { code: 'toString', message: 'not a code of ours' },
    { message: 'Cannot read properties of undefined' },
  ])('%o is not', (error) => {
    expect(databaseFailure(Object.assign(new Error(error.message), error))).toBeNull();
  });
});

/**
 * A second app on `world`'s store whose DATABASE_URL adds PostgreSQL settings (`-c name=value`) to
 * every connection, logging into `log`; `through` routes its connections through a proxy.
 */
async function appWithSettings(
  world: TestContext,
  settings: string[],
  log: LogCapture,
  { through, env = {} }: { through?: TcpProxy; env?: Record<string, string> } = {},
): Promise<{ app: App; db: Db; contract: () => ContractChecker }> {
  const url = new URL(world.store.env.DATABASE_URL!);
  url.searchParams.set('options', [url.searchParams.get('options') ?? '', ...settings.map((s) => `-c ${s}`)].join(' ').trim());
  const databaseUrl = through ? through.rewrite(url.toString()) : url.toString();
  const config = loadConfig({ ...world.store.env, DATABASE_URL: databaseUrl, DATABASE_POOL_MAX: '4', LOG_LEVEL: 'info', ...env });
  const db = openDatabase(config);
  const app = await createApp(config, { db, clock: world.clock, logStream: log });
  let contract: ContractChecker | undefined;
  app.addHook('onSend', async (request, reply, payload) => {
    contract?.check(request, reply, payload);
    return payload;
  });
  await app.ready();
  contract = await ContractChecker.forApp(app);
  return { app, db, contract: () => contract! };
}

describe.skipIf(!onPostgres)('PostgreSQL: timeouts, locks, read-only, lost connections', () => {
  let world: TestContext;
  let user: TestUser;
  let project: { id: string; apiToken: string };
  let other: pg.Client;
  let opened: { app: App; db: Db; contract: () => ContractChecker }[];
  let log: LogCapture;

  beforeEach(async () => {
    world = await buildTestApp();
    user = await world.given.user();
    const created = await world.given.project(user, { name: 'Shop' });
    project = { id: created.project.id, apiToken: created.apiToken };
    // D9's once-a-minute last_used_at write happens now, on the writable app, not in the test.
    expect((await world.request({ method: 'GET', url: '/api/v1/projects', token: user.token })).statusCode).toBe(200);
    other = new pg.Client({ connectionString: world.store.env.DATABASE_URL });
    await other.connect();
    opened = [];
    log = new LogCapture();
  });

  afterEach(async () => {
    await other.end().catch(() => {});
    for (const { app, db, contract } of opened) {
      await app.close();
      await db.destroy();
      expect(contract().violations).toEqual([]);
    }
    await world.close();
  });

  const open = async (settings: string[], options: Parameters<typeof appWithSettings>[3] = {}) => {
    const opening = await appWithSettings(world, settings, log, options);
    opened.push(opening);
    return opening.app;
  };

  /** Another connection holds the project's row lock, as a long transaction elsewhere would. */
  async function holdProjectRow(): Promise<void> {
    await other.query('begin');
    await other.query('select id from projects where id = $1 for update', [project.id]);
  }

  it('answers 503 with Retry-After when a write waits past lock_timeout for a row another transaction holds (55P03)', async () => {
    const app = await open(['lock_timeout=300']);
    await holdProjectRow();
    const put = await send(app, { method: 'PUT', url: `/api/v1/projects/${project.id}`, token: user.token, body: newProject('Renamed') });
    expectDatabase503(put);
    const upload = await send(app, uploadRequest(project.apiToken, project.id));
    expectDatabase503(upload, { client: true });
    await other.query('rollback');
    const again = await send(app, { method: 'PUT', url: `/api/v1/projects/${project.id}`, token: user.token, body: newProject('Renamed') });
    expect(again.statusCode, again.body).toBe(200);
  });

  it('answers 503 with Retry-After when a statement runs past statement_timeout (57014)', async () => {
    const app = await open([], { env: { DATABASE_STATEMENT_TIMEOUT_MS: '300' } });
    await holdProjectRow();
    const put = await send(app, { method: 'PUT', url: `/api/v1/projects/${project.id}`, token: user.token, body: newProject('Renamed') });
    expectDatabase503(put);
    expect(logLines(log).find((line) => line.level === ERROR)).toMatchObject({ cause: 'timeout' });
    await other.query('rollback');
  });

  it('answers writes and /readyz with 503 on a read-only database, and reads with 200', async () => {
    const app = await open(['default_transaction_read_only=on']);
    expectDatabase503(await send(app, { method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('Read-only') }));
    expectDatabase503(await send(app, uploadRequest(project.apiToken, project.id)), { client: true });
    const list = await send(app, { method: 'GET', url: '/api/v1/projects', token: user.token });
    expect(list.statusCode, list.body).toBe(200);
    expectDatabase503(await send(app, { method: 'GET', url: '/readyz' }));
    const errors = logLines(log).filter((line) => line.level === ERROR);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ cause: 'read-only', msg: expect.stringContaining('database unavailable (read-only)') });
    // The same store, written through an app without the setting, is ready.
    expect((await world.request({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('logs the error a transaction failed with, not the failure of its rollback on the dead connection', async () => {
    const proxy = await TcpProxy.for(world.store.env.DATABASE_URL!, 5432);
    try {
      const app = await open([], { through: proxy });
      expect((await send(app, { method: 'GET', url: '/api/v1/projects', token: user.token })).statusCode).toBe(200);
      const cut = proxy.cutOnClientData((chunk) => chunk.includes('update "teams"'));
      const response = await send(app, { method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('Cut') });
      await cut;
      expectDatabase503(response);
      const errors = logLines(log).filter((line) => line.level === ERROR);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.err?.message).toBe('Connection terminated unexpectedly');
    } finally {
      await proxy.close();
    }
  });

  const JSON_HEADERS = { 'content-type': 'application/json' };
  // Over HTTP, not injected: Node destroys a request's stream once its body is read, and an
  // ECONNRESET from PostgreSQL was taken for the client hanging up (a 400) during a database crash.
  it.each([
    ['a v1 write', () => ({ url: '/api/v1/projects', token: user.token, body: newProject('Reset'), headers: JSON_HEADERS, client: false })],
    // As the client package sends it (its headers).
    ['an upload', () => ({ ...uploadRequest(project.apiToken, project.id), token: project.apiToken, client: true })],
  ])('%s whose statement the database resets (ECONNRESET) after the whole body arrived answers 503, not 400', async (_label, request) => {
    const proxy = await TcpProxy.for(world.store.env.DATABASE_URL!, 5432);
    try {
      const app = await open([], { through: proxy });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as { port: number };
      const { url, token, body, headers, client } = request();
      const cut = proxy.cutOnClientData((chunk) => /insert into "(projects|reports)"/.test(chunk.toString()), { reset: true });
      const response = await fetch(`http://127.0.0.1:${port}${url}`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      await cut;
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe(DATABASE_RETRY_AFTER);
      expect(await response.json()).toEqual(unavailableBody(client));
      const lines = logLines(log);
      expect(lines.some((line) => /closed the connection/.test(line.msg))).toBe(false);
      expect(lines.filter((line) => line.level === ERROR)).toMatchObject([{ cause: 'connection-lost' }]);
    } finally {
      await proxy.close();
    }
  });
});

describe('the outage log: a start, a count at most every 10 s, an end', () => {
  let ctx: TestContext;
  let log: LogCapture;
  let user: TestUser;
  let proxy: TcpProxy | null = null;
  let app: App;
  let db: Db;
  let closeApp: () => Promise<void>;

  beforeEach(async () => {
    log = new LogCapture();
    // The webhook test's receiver is on 127.0.0.1.
    ctx = await buildTestApp({ env: { LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, deps: { logStream: log } });
    user = await ctx.given.user();
    app = ctx.app;
    db = ctx.db;
    closeApp = async () => {};
    if (onPostgres) {
      // PostgreSQL goes away behind a proxy (the shared server stays up).
      proxy = await TcpProxy.for(ctx.store.env.DATABASE_URL!, 5432);
      const opening = await appWithSettings(ctx, [], log, { through: proxy, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
      app = opening.app;
      db = opening.db;
      closeApp = async () => {
        await opening.app.close();
        await opening.db.destroy();
      };
    }
    expect((await send(app, { method: 'GET', url: '/api/v1/projects', token: user.token })).statusCode).toBe(200);
    log.text = '';
  });

  afterEach(async () => {
    await closeApp();
    await proxy?.close();
    proxy = null;
    await ctx.close();
  });

  /** Writes fail: SQLite's write connection may only read; PostgreSQL stops answering. */
  async function breakDatabase(): Promise<void> {
    if (proxy) await proxy.down();
    else await sql`pragma query_only = on`.execute(db);
  }
  async function repairDatabase(): Promise<void> {
    if (proxy) await proxy.up();
    else await sql`pragma query_only = off`.execute(db);
  }

  it('logs 26 failed requests over 25 s as one error line, two count lines and one end line', async () => {
    await breakDatabase();
    for (let second = 0; second <= 25; second++) {
      const response = await send(app, { method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject(`P${second}`) });
      expectDatabase503(response);
      ctx.clock.advance(1_000);
    }
    await repairDatabase();
    const created = await send(app, { method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('After') });
    expect(created.statusCode, created.body).toBe(201);
    // Over once the database has worked for 10 s without failing a request.
    expect(log.text).not.toContain('database available again');
    ctx.clock.advance(10_000);
    const later = await send(app, { method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('Later') });
    expect(later.statusCode, later.body).toBe(201);

    const lines = logLines(log).filter((line) => line.msg !== 'request completed');
    const errors = lines.filter((line) => line.level === ERROR);
    expect(errors).toHaveLength(1);
    // PostgreSQL: the pool's idle connection was cut (connection-lost), or a new one refused (unreachable).
    expect(errors[0]!.msg).toMatch(
      onPostgres ? /^database unavailable \((connection-lost|unreachable)\): / : /^database unavailable \(read-only\): /,
    );
    expect(errors[0]!.err).toBeDefined();
    const counts = lines.filter((line) => line.msg.includes('requests failed in the last'));
    expect(counts.map((line) => line.msg)).toEqual([
      'database unavailable: 10 requests failed in the last 10 s',
      'database unavailable: 10 requests failed in the last 10 s',
    ]);
    const ends = lines.filter((line) => line.msg.startsWith('database available again'));
    expect(ends.map((line) => line.msg)).toEqual(['database available again after 26 s, 26 requests failed']);
  });

  it('counts an outage that lets some statements through as one: a failure within 10 s of working again goes on counting', async () => {
    for (let round = 0; round < 3; round++) {
      await breakDatabase();
      expectDatabase503(await send(app, { method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject(`F${round}`) }));
      await repairDatabase();
      ctx.clock.advance(4_000);
      const created = await send(app, { method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject(`W${round}`) });
      expect(created.statusCode, created.body).toBe(201);
      ctx.clock.advance(4_000);
    }
    ctx.clock.advance(10_000);
    expect((await send(app, { method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('Quiet') })).statusCode).toBe(
      201,
    );

    const lines = logLines(log).filter((line) => line.msg.startsWith('database '));
    expect(lines.filter((line) => line.level === ERROR)).toHaveLength(1);
    // From the first failure to the first statement that worked after the last one: 2 × 8 s + 4 s.
    expect(lines.slice(1).map((line) => line.msg)).toEqual([
      'database unavailable: 2 requests failed in the last 16 s',
      'database available again after 20 s, 3 requests failed',
    ]);
  });

  it("logs the webhook worker's failing rounds once, and once when they work again, not every round", async () => {
    const receiver = await startReceiver();
    const sender = createWebhookSender({ allowPrivateNetworks: true });
    const worker = createDeliveryWorker({
      db,
      clock: ctx.clock,
      sender,
      secrets: ctx.secrets,
      logger: app.log,
      concurrency: 2,
      pollMs: 10,
    });
    try {
      const project = await ctx.given.project(user, { name: 'Hooked' });
      const base = `/api/v1/projects/${project.project.id}/webhooks`;
      const hook = await send(app, { method: 'POST', url: base, token: user.token, body: { url: receiver.url, events: ['ping'] } });
      expect(hook.statusCode, hook.body).toBe(201);
      const ping = await send(app, { method: 'POST', url: `${base}/${hook.json().webhook.id}/ping`, token: user.token });
      expect(ping.statusCode, ping.body).toBe(202);

      // A delivery is due: every round tries to claim it (a write), and fails, about every 10 ms.
      await breakDatabase();
      worker.start();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await repairDatabase();
      await receiver.waitFor(1);

      const workerLines = logLines(log).filter((line) => line.msg.startsWith('webhook delivery round'));
      expect(workerLines.map((line) => [line.level, line.msg])).toEqual([
        [WARN, 'webhook delivery round failed; trying again every second (logged once until a round works)'],
        [30, 'webhook delivery rounds work again'],
      ]);
    } finally {
      await worker.stop(100);
      await sender.close();
      await receiver.close();
    }
  });

  it.skipIf(onPostgres)(
    'answers /readyz 503 after 2 s when its write waits longer, logged as the outage it is, not as a failed request',
    async () => {
      // A transaction of this process holds SQLite's write connection for 2.5 s.
      let release!: () => void;
      const held = db.transaction().execute(async (trx) => {
        await sql`update users set name = name where id = ${user.id}`.execute(trx);
        await new Promise<void>((resolve) => {
          release = resolve;
          setTimeout(resolve, 2_500);
        });
      });
      try {
        expectDatabase503(await send(app, { method: 'GET', url: '/readyz' }));
      } finally {
        release();
        await held;
      }
      const lines = logLines(log).filter((line) => line.level >= WARN);
      expect(lines.map((line) => line.msg)).toEqual(['database unavailable (timeout): the database did not answer in time']);
    },
  );

  it('answers /readyz 503 with Retry-After while the database cannot write, and 200 once it can', async () => {
    expect((await send(app, { method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await breakDatabase();
    expectDatabase503(await send(app, { method: 'GET', url: '/readyz' }));
    await repairDatabase();
    const ready = await send(app, { method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ok', database: 'ok' });
    ctx.clock.advance(10_000);
    expect((await send(app, { method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    // The failed check started an outage in the log; the checks' writes that worked for 10 s ended it.
    const lines = logLines(log).filter((line) => line.msg.startsWith('database '));
    expect(lines.map((line) => line.msg.replace(/:.*/, ''))).toEqual([
      expect.stringMatching(/^database unavailable \((read-only|connection-lost|unreachable)\)$/),
      'database available again after 0 s, 1 request failed',
    ]);
  });
});
