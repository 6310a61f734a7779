import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, postgresPoolOf, type Db } from '../../src/db/database.js';
import type { App } from '../../src/http/app-types.js';
import { CLIENT_POST_HEADERS, loadFixture } from '../helpers/client-wire.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { onPostgres } from '../helpers/test-backend.js';
import { DATABASE_RETRY_AFTER, UNAVAILABLE, unavailableBody } from './database-503.js';

/**
 * D37 (issue 36): database time is bounded. A TCP proxy between the app and PostgreSQL black-holes
 * the link (open connections stay open and silent forever, as behind a firewall that lost its
 * state) or slows it. Requests go over a real socket, so a connection reset (no answer at all) shows
 * as a rejected fetch. Each request must be answered 503 in the envelope within the configured
 * deadlines, /readyz within 2 s, and the same app must serve again within 5 s of the link coming
 * back, whatever its pool size, without leaking a pool connection.
 *
 * Most tests configure short deadlines (2 s) to stay quick; the bounds of the decision itself
 * (/readyz 2 s, recovery 5 s) are asserted with its own numbers, and one test runs the default
 * deadlines (10 s statements) with the pool of 4 the issue saw recovering only after 75 s.
 */
/** The deadlines most tests configure (DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_CONNECT_TIMEOUT_MS). */
const STATEMENT_MS = 2_000;
const CONNECT_MS = 2_000;
/** A request is at most one connection wait and one statement (the first failure answers it); slack for a busy machine. */
const ANSWER_WITHIN_MS = CONNECT_MS + STATEMENT_MS + 2_000;
/** D37's own bounds. */
const READYZ_WITHIN_MS = 2_000;
const RECOVERY_WITHIN_MS = 5_000;
/** Slack on D37's 2 s for /readyz: the timer fires at 2 s, the answer still has to be written and read. */
const READYZ_SLACK_MS = 500;

interface Answer {
  /** 'reset': the connection ended without an answer (fetch rejected); 'hung': none within the test's own limit. */
  kind: 'answered' | 'reset' | 'hung';
  status: number;
  body: any;
  retryAfter: string | null;
  ms: number;
  error?: string;
}

describe.skipIf(!onPostgres)('D37: a silent or slow PostgreSQL link costs bounded time', () => {
  // `world` owns the schema and the factories on a direct connection; the app under test is a second
  // app on the same schema whose every connection goes through the proxy.
  let world: TestContext | undefined;
  let proxy: TcpProxy | undefined;
  let db: Db | undefined;
  let app: App | undefined;
  let base = '';
  let user: TestUser;
  let project: { id: string; apiToken: string };
  let uploads = 0;

  afterEach(async () => {
    await app?.close();
    await db?.destroy();
    await proxy?.close();
    await world?.close();
    app = db = proxy = world = undefined;
  });

  async function start(poolMax: number, env: Record<string, string> = {}): Promise<void> {
    world = await buildTestApp();
    const directUrl = world.store.env.DATABASE_URL!;
    proxy = await TcpProxy.for(directUrl, 5432);
    const config = loadConfig({
      ...world.store.env,
      DATABASE_URL: proxy.rewrite(directUrl),
      DATABASE_POOL_MAX: String(poolMax),
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
      DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_MS),
      RATE_LIMIT_USER_BASE: '100000',
      LOG_LEVEL: 'silent',
      ...env,
    });
    db = openDatabase(config);
    app = await createApp(config, { db, clock: world.clock });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

    user = await world.given.user();
    const created = await world.given.project(user, { name: 'Shop' });
    project = { id: created.project.id, apiToken: created.apiToken };
    // Warm up: as many requests at once as the pool holds, so every pooled connection is open
    // through the proxy (and goes silent with it).
    const warm = await Promise.all(Array.from({ length: poolMax }, () => read()));
    for (const answer of warm) expect(answer.status, answer.error ?? JSON.stringify(answer.body)).toBe(200);
  }

  async function call(method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    const started = performance.now();
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    try {
      // Far past any deadline of the service: a request still open then is a hang.
      const response = await fetch(`${base}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      return {
        kind: 'answered',
        status: response.status,
        body,
        retryAfter: response.headers.get('retry-after'),
        ms: performance.now() - started,
      } satisfies Answer;
    } catch (error) {
      const hung = (error as Error).name === 'TimeoutError';
      return {
        kind: hung ? 'hung' : 'reset',
        status: 0,
        body: null,
        retryAfter: null,
        ms: performance.now() - started,
        error: String((error as Error).cause ?? error),
      } satisfies Answer;
    }
  }

  const read = () => call('GET', '/api/v1/projects', { token: user.token });
  const write = (name: string) =>
    call('POST', '/api/v1/projects', { token: user.token, body: { name, framework_version: '11', description: 'D37' } });
  /** An upload the way the client package sends it; each a different run (a retry of the same body is D40's). */
  const upload = () => {
    uploads += 1;
    const analyzedAt = new Date(Date.UTC(2026, 10, 21, 5, 9, uploads)).toISOString().replace('.000Z', '+00:00');
    return call('POST', '/api/reports', {
      token: project.apiToken,
      headers: { ...CLIENT_POST_HEADERS },
      body: { ...loadFixture('report-full', project.id), analyzed_at: analyzedAt },
    });
  };
  const readyz = () => call('GET', '/readyz');

  function expectUnavailable(answer: Answer, clientPackage = false): void {
    expect({ kind: answer.kind, error: answer.error }).toEqual({ kind: 'answered', error: undefined });
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 503,
      body: unavailableBody(clientPackage),
    });
    expect(answer.retryAfter).toBe(DATABASE_RETRY_AFTER);
  }

  /** A read, a write, an upload and /readyz at once, while the link is silent: each a timely, enveloped 503. */
  async function wave(label: string, answerWithinMs: number): Promise<void> {
    const [r, w, u, ready] = await Promise.all([read(), write(`During ${label}`), upload(), readyz()]);
    expectUnavailable(r);
    expectUnavailable(w);
    expectUnavailable(u, true);
    expectUnavailable(ready);
    for (const answer of [r, w, u]) expect(answer.ms, `${label}: answered after ${Math.round(answer.ms)} ms`).toBeLessThan(answerWithinMs);
    expect(ready.ms, `${label}: /readyz answered after ${Math.round(ready.ms)} ms`).toBeLessThan(READYZ_WITHIN_MS + READYZ_SLACK_MS);
  }

  /** Reads until one is 200; the time from `since` to that answer. */
  async function timeToServe(since: number): Promise<number> {
    for (;;) {
      const answer = await read();
      expect(answer.kind, answer.error).toBe('answered');
      if (answer.status === 200) return performance.now() - since;
      expect(answer.status).toBe(503);
      if (performance.now() - since > 30_000) return performance.now() - since;
      await sleep(100);
    }
  }

  /** Serves reads, writes, uploads and /readyz again; `2 x poolMax` requests at once all succeed (no slot leaked). */
  async function expectServing(poolMax: number): Promise<void> {
    const created = await write('After the outage');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const uploaded = await upload();
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    const ready = await readyz();
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    const burst = await Promise.all(Array.from({ length: 2 * poolMax }, () => read()));
    expect(burst.map((answer) => answer.status)).toEqual(burst.map(() => 200));
    const pool = postgresPoolOf(db!)!;
    expect(pool.totalCount).toBeLessThanOrEqual(poolMax);
    expect(pool.waitingCount).toBe(0);
  }

  it.each([1, 4, 10])(
    'pool of %i: a black-holed link answers every request 503 within its deadlines, /readyz within 2 s, and serves again within 5 s of the link returning',
    async (poolMax) => {
      await start(poolMax);
      proxy!.blackhole();
      const silentSince = performance.now();
      await wave('the first seconds', ANSWER_WITHIN_MS);
      await sleep(Math.max(0, 5_000 - (performance.now() - silentSince)));
      await wave('the outage', ANSWER_WITHIN_MS);
      await sleep(Math.max(0, 10_000 - (performance.now() - silentSince)));

      await proxy!.up();
      const recovery = await timeToServe(performance.now());
      expect(recovery, `served again ${Math.round(recovery)} ms after the link returned`).toBeLessThan(RECOVERY_WITHIN_MS);
      await expectServing(poolMax);
    },
  );

  it('pool of 10: a black-hole nobody noticed (no request during it) costs the first request after it a short check, not a deadline', async () => {
    await start(10, { DATABASE_STATEMENT_TIMEOUT_MS: '', DATABASE_CONNECT_TIMEOUT_MS: '' });
    proxy!.blackhole();
    await sleep(3_000);
    await proxy!.up();
    // Every pooled connection is dead and nothing has failed yet: the first one lent is checked
    // first, and its failure makes the other nine suspect.
    const recovery = await timeToServe(performance.now());
    expect(recovery, `served again ${Math.round(recovery)} ms after the link returned`).toBeLessThan(RECOVERY_WITHIN_MS);
    await expectServing(10);
  });

  it('with the default deadlines and a pool of 4, a 15 s black-hole answers within 10 s and the instance serves within 5 s after it', async () => {
    // Issue 36's case: every answer took 60 s and was a reset, and recovery took 75 s.
    await start(4, { DATABASE_STATEMENT_TIMEOUT_MS: '', DATABASE_CONNECT_TIMEOUT_MS: '' });
    proxy!.blackhole();
    const silentSince = performance.now();
    // D37: each wait on the database is given up within 10 s; a request is answered once its first
    // one fails (plus slack for a busy machine).
    await wave('the default deadlines', 10_000 + 2_000);
    await sleep(Math.max(0, 15_000 - (performance.now() - silentSince)));
    await proxy!.up();
    const recovery = await timeToServe(performance.now());
    expect(recovery, `served again ${Math.round(recovery)} ms after the link returned`).toBeLessThan(RECOVERY_WITHIN_MS);
    await expectServing(4);
  });

  it('a slow link: statements within the deadline are answered, those past it are 503 in time, and the instance recovers', async () => {
    await start(4);
    // 150 ms each way: slow, but every statement well within 2 s.
    proxy!.delay(150);
    const slowRead = await read();
    expect(slowRead.status, JSON.stringify(slowRead.body)).toBe(200);
    const slowUpload = await upload();
    expect(slowUpload.status, JSON.stringify(slowUpload.body)).toBe(201);

    // 1.5 s each way: every round trip is past the 2 s statement deadline.
    proxy!.delay(1_500);
    const [r, u] = await Promise.all([read(), upload()]);
    expectUnavailable(r);
    expectUnavailable(u, true);
    for (const answer of [r, u]) expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);

    await proxy!.up();
    const recovery = await timeToServe(performance.now());
    expect(recovery).toBeLessThan(RECOVERY_WITHIN_MS);
    await expectServing(4);
  });
});

describe.skipIf(onPostgres)("D37 on SQLite: waiting for this process's own writer is bounded", () => {
  /**
   * One connection writes (sqlite-driver.ts); a write waits for this process's transaction in
   * progress on it (a long upload stored in batches holds it across awaits). That wait is bounded
   * like the wait for another process's lock (the 5 s busy timeout): past it, 503.
   */
  let ctx: TestContext;
  let user: TestUser;
  let release: () => void = () => {};

  afterEach(async () => {
    release();
    await ctx.close();
  });

  it("answers a write 503 after 5 s while another of this process's transactions holds the writer, reads going on; then writes again", async () => {
    ctx = await buildTestApp();
    user = await ctx.given.user();
    expect((await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token })).statusCode).toBe(200);
    // A transaction of the app's own database that holds the write connection until released.
    let holding: () => void = () => {};
    const held = new Promise<void>((resolve) => (holding = resolve));
    const done = ctx.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ name: 'Holding the writer' }).where('id', '=', user.id).execute();
      holding();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await held;

    const started = performance.now();
    const created = await ctx.request({
      method: 'POST',
      url: '/api/v1/projects',
      token: user.token,
      body: { name: 'Waits for the writer', framework_version: '11', description: 'D37' },
    });
    const ms = performance.now() - started;
    expect({ status: created.statusCode, body: created.json() }).toEqual({ status: 503, body: UNAVAILABLE });
    expect(created.headers['retry-after']).toBe(DATABASE_RETRY_AFTER);
    // The busy timeout's 5 s, not a hang (slack for a busy machine).
    expect(ms).toBeGreaterThanOrEqual(4_500);
    expect(ms).toBeLessThan(7_000);
    // Reads do not wait for the writer.
    expect((await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token })).statusCode).toBe(200);

    release();
    await done;
    const again = await ctx.request({
      method: 'POST',
      url: '/api/v1/projects',
      token: user.token,
      body: { name: 'After the writer', framework_version: '11', description: 'D37' },
    });
    expect(again.statusCode, again.body).toBe(201);
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
