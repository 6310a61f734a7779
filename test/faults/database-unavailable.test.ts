import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import type { App } from '../../src/http/app-types.js';
import { SqliteDatabase } from '../../src/db/sqlite-binding.js';
import { ContractChecker } from '../helpers/openapi-contract.js';
import { createSandbox, okJson, type Sandbox } from '../cli/cli-process.js';
import { http, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { buildTestApp, send, type RequestOptions, type TestContext, type TestUser } from '../helpers/test-app.js';
import { onPostgres } from '../helpers/test-backend.js';
import { DATABASE_RETRY_AFTER, expectDatabase503, newProject, UNAVAILABLE, uploadRequest } from './database-503.js';

const expectClientDatabase503 = (response: LightMyRequestResponse) => expectDatabase503(response, { client: true });

/**
 * Issue 7, faults: the database goes away under a running app. Every request that needs it answers
 * 503 in the D3 envelope (`success: false` added on the client package's endpoints), never a 500
 * and never a hang past the pool's connection timeout; /readyz says 503 so a balancer takes the
 * instance out, /healthz stays 200 (the process is alive); nothing is half-written; and once the
 * database is back, the same app (no restart) answers normally again.
 */
/** database.ts: the pool gives up connecting after 5 s; an outage answer may not take longer (plus slack). */
const CONNECTION_TIMEOUT_MS = 5_000;

/** Rows that a failed write must not have left behind (and a successful one must have). */
async function snapshot(db: Db, teamId: number) {
  const projects = await db.selectFrom('projects').select(['id', 'name', 'latest_report_id']).orderBy('id').execute();
  const reports = await db.selectFrom('reports').select(['id', 'uuid', 'project_id']).orderBy('id').execute();
  const team = await db.selectFrom('teams').select('projects_count').where('id', '=', teamId).executeTakeFirstOrThrow();
  return { projects, reports, projectsCount: Number(team.projects_count) };
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

describe.skipIf(!onPostgres)('PostgreSQL unavailable: 503, then recovery without a restart', () => {
  // `world` owns the schema, the factories and a direct connection for checking rows; the app under
  // test is a second app on the same schema whose every connection goes through the proxy.
  let world: TestContext;
  let proxy: TcpProxy;
  let db: Db;
  let app: App;
  let contract: ContractChecker;
  let user: TestUser;
  let project: { id: string; apiToken: string };
  const request = (options: RequestOptions) => send(app, options);

  beforeEach(async () => {
    world = await buildTestApp();
    const directUrl = world.store.env.DATABASE_URL!;
    proxy = await TcpProxy.for(directUrl, 5432);
    const config = loadConfig({ ...world.store.env, DATABASE_URL: proxy.rewrite(directUrl), DATABASE_POOL_MAX: '4', LOG_LEVEL: 'silent' });
    db = openDatabase(config);
    app = await createApp(config, { db, clock: world.clock });
    app.addHook('onSend', async (req, reply, payload) => {
      contract.check(req, reply, payload);
      return payload;
    });
    await app.ready();
    contract = await ContractChecker.forApp(app);

    user = await world.given.user();
    const created = await world.given.project(user, { name: 'Shop' });
    project = { id: created.project.id, apiToken: created.apiToken };
    // Warm up: the pool holds open connections through the proxy, which the outage then cuts.
    expect((await request({ method: 'GET', url: '/api/v1/projects', token: user.token })).statusCode).toBe(200);
    expect(proxy.connections).toBeGreaterThan(0);
  });

  afterEach(async () => {
    await app.close();
    await db.destroy();
    await proxy.close();
    await world.close();
    expect(contract.violations).toEqual([]);
  });

  /** The same app serves reads, writes and uploads again, and /readyz is 200. */
  async function expectRecovered(): Promise<void> {
    const ready = await request({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ok', database: 'ok' });
    expect((await request({ method: 'GET', url: '/api/v1/projects', token: user.token })).statusCode).toBe(200);
    const created = await request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('After the outage') });
    expect(created.statusCode, created.body).toBe(201);
    const uploaded = await request(uploadRequest(project.apiToken, project.id));
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    expect(uploaded.json()).toMatchObject({ success: true });
  }

  it('answers reads, writes and uploads with 503 while PostgreSQL is down, /readyz 503, /healthz 200; recovers once it is back', async () => {
    const before = await snapshot(world.db, user.teamId!);
    await proxy.down();

    const read = await timed(request({ method: 'GET', url: '/api/v1/projects', token: user.token }));
    expectDatabase503(read.value);
    const write = await timed(
      request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('During the outage') }),
    );
    expectDatabase503(write.value);
    const put = await request({ method: 'PUT', url: `/api/v1/projects/${project.id}`, token: user.token, body: newProject('Renamed') });
    expectDatabase503(put);
    const upload = await timed(request(uploadRequest(project.apiToken, project.id)));
    expectClientDatabase503(upload.value);
    // A refused connection is known at once: no request waits for a timeout.
    for (const { ms } of [read, write, upload]) expect(ms).toBeLessThan(CONNECTION_TIMEOUT_MS);

    expectDatabase503(await request({ method: 'GET', url: '/readyz' }));
    const health = await request({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });

    // Nothing was written by the refused requests (checked over the direct connection).
    expect(await snapshot(world.db, user.teamId!)).toEqual(before);

    await proxy.up();
    await expectRecovered();
  });

  it('answers 503 within the pool connection timeout when PostgreSQL accepts connections but never answers', async () => {
    await proxy.hang();
    // Five at once with a pool of four: four wait for their connection attempt, one for a free slot.
    const answers = await Promise.all([
      timed(request({ method: 'GET', url: '/api/v1/projects', token: user.token })),
      timed(request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('Hung') })),
      timed(request({ method: 'GET', url: `/api/v1/projects/${project.id}`, token: user.token })),
      timed(request(uploadRequest(project.apiToken, project.id))),
      timed(request({ method: 'GET', url: '/readyz' })),
    ]);
    const [read, write, show, upload, ready] = answers.map((answer) => answer.value) as [
      LightMyRequestResponse,
      LightMyRequestResponse,
      LightMyRequestResponse,
      LightMyRequestResponse,
      LightMyRequestResponse,
    ];
    expectDatabase503(read);
    expectDatabase503(write);
    expectDatabase503(show);
    expectClientDatabase503(upload);
    expectDatabase503(ready);
    for (const { ms } of answers) expect(ms).toBeLessThan(CONNECTION_TIMEOUT_MS + 2_000);

    await proxy.up();
    await expectRecovered();
  });

  it('rolls back a project creation cut in the middle of its transaction: no project, team count unchanged', async () => {
    const before = await snapshot(world.db, user.teamId!);
    // The project row is inserted; the connection dies as the team's count is about to be updated.
    const cut = proxy.cutOnClientData((chunk) => chunk.includes('update "teams"'));
    const response = await request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('Cut') });
    await cut;
    expectDatabase503(response);
    expect(await snapshot(world.db, user.teamId!)).toEqual(before);

    // The pool replaced the dead connection: the same request now succeeds, whole.
    const again = await request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('Cut') });
    expect(again.statusCode, again.body).toBe(201);
    const after = await snapshot(world.db, user.teamId!);
    expect(after.projects.map((p) => p.id)).toContain(again.json().project.id);
    expect(after.projectsCount).toBe(before.projectsCount + 1);
  });

  it('rolls back an upload cut in the middle of its transaction: no report, latest_report unchanged', async () => {
    const first = await request(uploadRequest(project.apiToken, project.id, '2026-11-20T10:00:00+00:00'));
    expect(first.statusCode, first.body).toBe(201);
    const before = await snapshot(world.db, user.teamId!);
    // The report row is inserted; the connection dies as the project's latest-report pointer moves (D19).
    const cut = proxy.cutOnClientData((chunk) => chunk.includes('update "projects" set "latest_report_id"'));
    const response = await request(uploadRequest(project.apiToken, project.id, '2026-11-21T10:00:00+00:00'));
    await cut;
    expectClientDatabase503(response);
    expect(await snapshot(world.db, user.teamId!)).toEqual(before);
    const shown = await request({ method: 'GET', url: `/api/v1/projects/${project.id}`, token: user.token });
    expect(shown.json().data.latest_report.uuid).toBe(first.json().report.uuid);
  });

  it('keeps a write whose COMMIT reached the server but whose answer was lost: whole, never half', async () => {
    const before = await snapshot(world.db, user.teamId!);
    // The simple-protocol `commit` message is delivered; the app never hears PostgreSQL's reply.
    const cut = proxy.cutOnClientData((chunk) => chunk.toString('latin1').includes('commit\0'), { forwardFirst: true });
    const response = await request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('Committed') });
    await cut;
    // The app cannot know the outcome: a 503 (never a 500, never a 201 it cannot vouch for).
    expectDatabase503(response);
    // PostgreSQL ran the COMMIT it received: the project is there, counted on its team.
    let after = await snapshot(world.db, user.teamId!);
    for (let attempt = 0; attempt < 100 && after.projects.length === before.projects.length; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await snapshot(world.db, user.teamId!);
    }
    expect(after.projects.map((p) => p.name).sort()).toEqual([...before.projects.map((p) => p.name), 'Committed'].sort());
    expect(after.projectsCount).toBe(before.projectsCount + 1);
    await expectRecovered();
  });

  // A link that goes silent (a partition, a black-hole) under open connections: database-deadlines.test.ts.
});

describe.skipIf(!onPostgres)('scoreboard serve (a real process) when PostgreSQL goes away', () => {
  // What in process is only a reported error (an 'error' event nobody listens to) ends a real process.
  let sandbox: Sandbox;
  let proxy: TcpProxy;
  let server: ServerProcess;

  beforeEach(async () => {
    sandbox = await createSandbox();
    proxy = await TcpProxy.for(sandbox.env.DATABASE_URL!, 5432);
    server = await startServerProcess(sandbox, { DATABASE_URL: proxy.rewrite(sandbox.env.DATABASE_URL!) });
  });
  afterEach(async () => {
    await server.kill();
    await proxy.close();
    await sandbox.cleanup();
  });

  it('survives a connection lost in the middle of a request and an outage, answering 503, then serves again', async () => {
    const { token } = await okJson<{ token: string }>(sandbox, 'users:create', '--email', 'db-outage@example.com');
    expect((await http(server, 'POST', '/api/v1/projects', { token, body: newProject('Before') })).status).toBe(201);

    // The connection dies while the request holds it, inside its transaction.
    const cut = proxy.cutOnClientData((chunk) => chunk.includes('update "teams"'));
    const during = await http(server, 'POST', '/api/v1/projects', { token, body: newProject('Cut') });
    await cut;
    expect({ status: during.status, body: during.body, retryAfter: during.headers.get('retry-after') }).toEqual({
      status: 503,
      body: UNAVAILABLE,
      retryAfter: DATABASE_RETRY_AFTER,
    });

    await proxy.down();
    const down = await http(server, 'GET', '/api/v1/projects', { token });
    expect({ status: down.status, body: down.body, retryAfter: down.headers.get('retry-after') }).toEqual({
      status: 503,
      body: UNAVAILABLE,
      retryAfter: DATABASE_RETRY_AFTER,
    });
    expect((await http(server, 'GET', '/readyz')).status).toBe(503);
    expect((await http(server, 'GET', '/healthz')).status).toBe(200);

    await proxy.up();
    const list = await http(server, 'GET', '/api/v1/projects', { token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['Before']);
    expect((await http(server, 'POST', '/api/v1/projects', { token, body: newProject('After') })).status).toBe(201);
    expect((await http(server, 'GET', '/readyz')).status).toBe(200);
    expect(server.alive()).toBe(true);
    expect(server.output()).not.toMatch(/uncaught|unhandled/i);
  });
});

describe.skipIf(onPostgres)('SQLite unwritable: writes 503, reads go on, recovery without a restart', () => {
  /**
   * The suite runs as root, for whom file permissions do not stop writes (and a file descriptor
   * the app already holds stays writable anyway), so "unwritable" is someone else holding SQLite's
   * write lock: a second connection to the same file in `BEGIN EXCLUSIVE`, as a stuck writer, a
   * backup tool or a long operator command in another process would. The app's write transactions
   * (BEGIN IMMEDIATE) wait for the busy timeout and fail with SQLITE_BUSY. In WAL mode readers are
   * never blocked by the writer, so reads keep working.
   */
  let ctx: TestContext;
  let locker: SqliteDatabase;
  let user: TestUser;
  let project: { id: string; apiToken: string };
  const request = (options: RequestOptions) => ctx.request(options);

  beforeEach(async () => {
    ctx = await buildTestApp();
    locker = new SqliteDatabase(ctx.store.sqliteFile!);
    user = await ctx.given.user();
    const created = await ctx.given.project(user, { name: 'Shop' });
    project = { id: created.project.id, apiToken: created.apiToken };
    // The token's once-a-minute last_used_at write (D9) happens now, not while the lock is held.
    expect((await request({ method: 'GET', url: '/api/v1/projects', token: user.token })).statusCode).toBe(200);
  });

  afterEach(async () => {
    if (locker.inTransaction) locker.exec('ROLLBACK');
    locker.close();
    await ctx.close();
  });

  /** The app's own connection waits `ms` for the lock instead of the configured 5 s (the same connection serves every request). */
  const waitForLockAtMost = (ms: number) => sql`pragma busy_timeout = ${sql.raw(String(ms))}`.execute(ctx.db);

  it('answers writes and uploads with 503 while another connection holds the write lock, serves reads, and recovers when it is released', async () => {
    await waitForLockAtMost(200);
    const before = await snapshot(ctx.db, user.teamId!);
    locker.exec('BEGIN EXCLUSIVE');

    expectDatabase503(await request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('Locked out') }));
    expectDatabase503(
      await request({ method: 'PUT', url: `/api/v1/projects/${project.id}`, token: user.token, body: newProject('Renamed') }),
    );
    expectDatabase503(await request({ method: 'DELETE', url: `/api/v1/projects/${project.id}`, token: user.token }));
    expectDatabase503(
      await request({ method: 'POST', url: '/api/v1/tokens', token: user.token, body: { name: 'ci', abilities: ['read'] } }),
    );
    expectClientDatabase503(await request(uploadRequest(project.apiToken, project.id)));

    // Reads are not writes: WAL readers go on while the lock is held.
    const list = await request({ method: 'GET', url: '/api/v1/projects', token: user.token });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((p: { name: string }) => p.name)).toEqual(['Shop']);
    expect((await request({ method: 'GET', url: `/api/v1/projects/${project.id}`, token: user.token })).statusCode).toBe(200);
    const verify = await request({ method: 'GET', url: '/api/token/verify', token: project.apiToken });
    expect(verify.statusCode).toBe(200);
    // D38: /readyz answers 503 while the database cannot write, reads or not: the write lock is
    // someone else's, so the instance is not ready (it was 200 before, when /readyz only read).
    expectDatabase503(await request({ method: 'GET', url: '/readyz' }));
    expect((await request({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    expect(await snapshot(ctx.db, user.teamId!)).toEqual(before);

    locker.exec('ROLLBACK');
    const created = await request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: newProject('After the lock') });
    expect(created.statusCode, created.body).toBe(201);
    const uploaded = await request(uploadRequest(project.apiToken, project.id));
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    const after = await snapshot(ctx.db, user.teamId!);
    expect(after.projectsCount).toBe(before.projectsCount + 1);
    expect(after.reports).toHaveLength(1);
  });

  it('answers 503, not 500, when the database is full, keeping what was stored, and recovers once there is room (D38)', async () => {
    // A full disk, as SQLite sees it: the file may not grow past its current size. On SQLITE_FULL
    // SQLite rolls the whole transaction back itself; the driver's own rollback must not then fail
    // and replace the error ("cannot rollback - no transaction is active" was a 500).
    const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(ctx.db)).rows[0]!.page_count);
    await sql`pragma max_page_count = ${sql.raw(String(pages + 2))}`.execute(ctx.db);
    const before = await snapshot(ctx.db, user.teamId!);
    const long = 'x'.repeat(990);
    let refused: LightMyRequestResponse | undefined;
    for (let i = 0; i < 12 && refused === undefined; i++) {
      const created = await request({
        method: 'POST',
        url: '/api/v1/projects',
        token: user.token,
        body: { ...newProject(`Full ${i}`), description: long },
      });
      if (created.statusCode !== 201) refused = created;
    }
    expectDatabase503(refused!);
    expectClientDatabase503(await request(uploadRequest(project.apiToken, project.id)));
    expect((await snapshot(ctx.db, user.teamId!)).reports).toEqual(before.reports);
    // D38: the database cannot write, so the instance is not ready.
    expectDatabase503(await request({ method: 'GET', url: '/readyz' }));

    await sql`pragma max_page_count = 1073741823`.execute(ctx.db);
    const ready = await request({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(200);
    const uploaded = await request(uploadRequest(project.apiToken, project.id));
    expect(uploaded.statusCode, uploaded.body).toBe(201);
  });

  it('gives up after the configured 5 s busy timeout, with a 503, rather than hanging', async () => {
    locker.exec('BEGIN EXCLUSIVE');
    const upload = await timed(request(uploadRequest(project.apiToken, project.id)));
    expectClientDatabase503(upload.value);
    expect(upload.ms).toBeGreaterThanOrEqual(4_500);
    expect(upload.ms).toBeLessThan(CONNECTION_TIMEOUT_MS + 2_000);
    locker.exec('ROLLBACK');
    const retried = await request(uploadRequest(project.apiToken, project.id));
    expect(retried.statusCode, retried.body).toBe(201);
  });
});
