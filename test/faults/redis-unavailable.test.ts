import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, okJson, type Sandbox } from '../cli/cli-process.js';
import { CLIENT_POST_HEADERS, minimalReport } from '../helpers/client-wire.js';
import { TOO_MANY_MESSAGE, UNAUTHENTICATED } from '../helpers/contract.js';
import { http, startServerProcess, type HttpAnswer, type ServerProcess } from '../helpers/server-process.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { onPostgres } from '../helpers/test-backend.js';
import { HANG_MS } from '../helpers/eventually.js';

/**
 * Issue 7, faults: Redis (the shared rate-limit counters) goes away under a real `scoreboard serve`
 * process. README "Running in production": the service keeps answering, each instance falls back to
 * its own in-memory counters (limits still apply), `/readyz` stays 200 and says
 * `memory (redis unavailable)`, `/metrics` says `scoreboard_rate_limit_fallback 1`, and it goes back
 * to Redis by itself. test/rate-limit/redis-counters.test.ts proves the store's rules in process
 * (full budgets, once-a-minute warning on the fake clock); this file proves the process as deployed:
 * its real ioredis connection cut by a proxy, or left open and silent (a partition), and healed.
 * Only on the postgres backend, whose instances use Redis.
 */
describe.skipIf(!onPostgres)('scoreboard serve when Redis goes away', () => {
  let sandbox: Sandbox;
  let proxy: TcpProxy;
  let server: ServerProcess;
  let redis: Redis;
  let user: { id: number; token: string };
  let project: { id: string; apiToken: string };

  beforeEach(async () => {
    sandbox = await createSandbox();
    proxy = await TcpProxy.for(sandbox.env.REDIS_URL!, 6379);
    // The default command timeout, which the partition test measures (the suite's store sets a longer one).
    server = await startServerProcess(sandbox, { REDIS_URL: proxy.rewrite(sandbox.env.REDIS_URL!), REDIS_COMMAND_TIMEOUT_MS: '500' });
    // A direct connection (not through the proxy) to read the counters the server keeps.
    redis = new Redis(sandbox.env.REDIS_URL!);
    const created = await okJson<{ user: { id: number }; token: string }>(sandbox, 'users:create', '--email', 'redis-fault@example.com');
    user = { id: created.user.id, token: created.token };
    const answer = await http(server, 'POST', '/api/v1/projects', { token: user.token, body: { name: 'Shop', framework_version: '11' } });
    expect(answer.status).toBe(201);
    project = { id: answer.body.project.id, apiToken: answer.body.api_token };
  });

  afterEach(async () => {
    await server.kill();
    redis.disconnect();
    await proxy.close();
    await sandbox.cleanup();
  });

  /** The user's count in the current Redis window (what `X-RateLimit-Remaining` is computed from). */
  const countInRedis = async () => Number(await redis.hget(`${sandbox.env.REDIS_KEY_PREFIX}user:${user.id}`, 'count'));
  const readiness = async () => (await http(server, 'GET', '/readyz')).body;
  const fallbackGauge = async () => /^scoreboard_rate_limit_fallback (\d)$/m.exec((await http(server, 'GET', '/metrics')).body)?.[1];
  const asUser = () => http(server, 'GET', '/api/v1/projects', { token: user.token });

  function expectLimitHeaders(answer: HttpAnswer, limit: number, remaining: number): void {
    expect(answer.headers.get('x-ratelimit-limit')).toBe(String(limit));
    expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  }

  /** Counted requests until one reaches Redis again (ioredis reconnects by itself, within ~2 s). */
  async function untilBackOnRedis(): Promise<void> {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      expect((await asUser()).status).toBe(200);
      if ((await readiness()).rate_limit_counters === 'redis') return;
      if (Date.now() > deadline) throw new Error(`the server never went back to Redis\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Back on Redis: the answer's remaining budget is computed from the shared count in Redis again. */
  async function expectCountingInRedis(): Promise<void> {
    const answer = await asUser();
    expect(answer.status).toBe(200);
    expectLimitHeaders(answer, 120, 120 - (await countInRedis()));
    expect(await fallbackGauge()).toBe('0');
  }

  it('keeps answering with in-memory limits while Redis is down, says so on /readyz and /metrics, and goes back to Redis by itself', async () => {
    // Healthy: counted in Redis (the project creation and this read).
    const before = await asUser();
    expectLimitHeaders(before, 120, 118);
    expect(await countInRedis()).toBe(2);
    expect(await readiness()).toEqual({ status: 'ok', database: 'ok', rate_limit_counters: 'redis' });

    await proxy.down();

    // A user's requests never fail because of Redis; this instance counts them itself, from a fresh window.
    for (let i = 1; i <= 3; i++) {
      const answer = await asUser();
      expect(answer.status).toBe(200);
      expectLimitHeaders(answer, 120, 120 - i);
    }
    // Writes and the client package's uploads too, each with its own budget.
    const created = await http(server, 'POST', '/api/v1/projects', {
      token: user.token,
      body: { name: 'During', framework_version: '11' },
    });
    expect(created.status).toBe(201);
    const upload = await http(server, 'POST', '/api/reports', {
      token: project.apiToken,
      headers: { ...CLIENT_POST_HEADERS },
      body: minimalReport(),
    });
    expect(upload.status).toBe(201);
    expect(upload.body.success).toBe(true);
    expectLimitHeaders(upload, 60, 59);

    // Limits still apply: D8's 10 anonymous requests a minute per address, then 429.
    for (let i = 1; i <= 10; i++) {
      const anonymous = await http(server, 'GET', '/api/v1/projects');
      expect({ status: anonymous.status, body: anonymous.body }).toEqual({ status: 401, body: UNAUTHENTICATED });
      expectLimitHeaders(anonymous, 10, 10 - i);
    }
    const over = await http(server, 'GET', '/api/v1/projects');
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: 'Too Many Requests', message: TOO_MANY_MESSAGE, retry_after: expect.any(Number) });
    expect(over.headers.get('retry-after')).toBe(String(over.body.retry_after));

    expect(await readiness()).toEqual({ status: 'ok', database: 'ok', rate_limit_counters: 'memory (redis unavailable)' });
    expect(await fallbackGauge()).toBe('1');
    // One warning for the whole outage so far (at most one a minute), as a log line, never a crash.
    expect(server.output().match(/Redis unavailable/g)).toHaveLength(1);
    // Nothing of the outage reached Redis.
    expect(await countInRedis()).toBe(2);

    await proxy.up();
    await untilBackOnRedis();
    await expectCountingInRedis();
    expect(server.output()).toMatch(/Redis is answering again/);
    expect(server.alive()).toBe(true);
  });

  it('answers within the command timeout while Redis holds the connection open and never answers (a partition), then goes back to it', async () => {
    expect((await asUser()).status).toBe(200);
    proxy.stall();

    for (let i = 1; i <= 3; i++) {
      const started = performance.now();
      const answer = await asUser();
      // REDIS_COMMAND_TIMEOUT_MS=500 gives each command 500 ms before the in-memory counters take over.
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(answer.status).toBe(200);
      expectLimitHeaders(answer, 120, 120 - i);
    }
    expect(await readiness()).toMatchObject({ rate_limit_counters: 'memory (redis unavailable)' });

    // The partition heals: the held-back traffic flows and the same connection serves again.
    await proxy.up();
    await untilBackOnRedis();
    await expectCountingInRedis();
    expect(server.alive()).toBe(true);
  });
});
