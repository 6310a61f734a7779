import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectTooManyRequests } from '../helpers/contract.js';
import { LogCapture } from '../helpers/log-capture.js';
import { buildTestApp, type TestContext } from '../helpers/test-app.js';

/**
 * D8 with REDIS_URL: rate-limit counters in Redis, shared by every instance, and the documented
 * fallback when Redis is unreachable (fail open to this instance's memory, warn at most once a
 * minute, say so in /readyz and /metrics). Each test runs its own redis-server on a free port, so
 * it can stop and restart it; the file is skipped where the machine has no redis-server.
 */
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
if (!hasRedisServer) console.warn('redis-counters.test.ts skipped: redis-server is not installed on this machine');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function isUp(url: string): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

class RedisServer {
  private process: ChildProcess | null = null;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.process = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    for (let attempt = 0; attempt < 250; attempt++) {
      if (await isUp(this.url)) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`redis-server did not start on port ${this.port}`);
  }

  async stop(): Promise<void> {
    const child = this.process;
    if (!child) return;
    this.process = null;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

describe.skipIf(!hasRedisServer)('rate-limit counters in Redis (D8, REDIS_URL)', () => {
  let redis: RedisServer;
  let ctx: TestContext | undefined;
  let other: TestContext | undefined;
  let log: LogCapture;

  beforeAll(async () => {
    redis = new RedisServer(await freePort());
    await redis.start();
  });
  afterAll(async () => redis.stop());
  afterEach(async () => {
    await ctx?.close();
    await other?.close();
    ctx = other = undefined;
    if (!(await isUp(redis.url))) await redis.start();
  });

  async function appOnRedis(prefix: string): Promise<TestContext> {
    log = new LogCapture();
    return buildTestApp({
      env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix },
      deps: { logger: pino({ level: 'info' }, log) },
    });
  }

  /**
   * Waits until the app counts in Redis: its client connects in the background, and until then (or
   * while Redis is down) counts fall back to memory. Each probe is a counted request from an address
   * no test uses; a count that reaches Redis clears the fallback state.
   */
  async function untilCountersInRedis(app: TestContext): Promise<void> {
    for (let attempt = 0; attempt < 250; attempt++) {
      await app.request({ method: 'GET', url: '/api/v1/nope', remoteAddress: '198.51.100.250' });
      const ready = await app.request({ method: 'GET', url: '/readyz' });
      if (ready.json().rate_limit_counters === 'redis') return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the app never reached Redis');
  }

  it('keeps the counters in Redis under the configured prefix, with the same limits and headers as in memory', async () => {
    ctx = await appOnRedis('test-a:');
    await untilCountersInRedis(ctx);
    const user = await ctx.given.user();
    for (let i = 1; i <= 120; i++) {
      const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-remaining']).toBe(String(120 - i));
    }
    const over = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
    expect(expectTooManyRequests(over)).toBe(60);

    const client = new Redis(redis.url);
    try {
      const window = await client.hgetall(`test-a:user:${user.id}`);
      expect(window).toEqual({ count: '121', reset_at: String(ctx.clock.now().getTime() + 60_000) });
    } finally {
      client.disconnect();
    }
  });

  it('resets a window on the service clock: 60 s later the budget is whole again', async () => {
    ctx = await appOnRedis('test-b:');
    await untilCountersInRedis(ctx);
    const user = await ctx.given.user();
    for (let i = 0; i < 120; i++) await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
    ctx.clock.advance(30_000);
    expect(expectTooManyRequests(await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token }))).toBe(30);
    ctx.clock.advance(30_000);
    const fresh = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['x-ratelimit-remaining']).toBe('119');
  });

  it('shares one budget between two instances with the same prefix', async () => {
    ctx = await appOnRedis('test-c:');
    other = await appOnRedis('test-c:');
    await untilCountersInRedis(ctx);
    await untilCountersInRedis(other);
    // Anonymous requests from one address: 10 a minute across both instances.
    for (let i = 0; i < 10; i++) {
      const app = i % 2 === 0 ? ctx : other;
      expect((await app.request({ method: 'GET', url: '/api/v1/projects', remoteAddress: '203.0.113.7' })).statusCode).toBe(401);
    }
    expectTooManyRequests(await ctx.request({ method: 'GET', url: '/api/v1/projects', remoteAddress: '203.0.113.7' }));
    expectTooManyRequests(await other.request({ method: 'GET', url: '/api/v1/projects', remoteAddress: '203.0.113.7' }));
  });

  it('fails open to in-memory counters while Redis is down: no 500, limits still enforced, /readyz and /metrics say so, one warning a minute', async () => {
    ctx = await appOnRedis('test-d:');
    await untilCountersInRedis(ctx);
    const user = await ctx.given.user();
    await redis.stop();

    for (let i = 1; i <= 120; i++) {
      const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('120');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(120 - i));
    }
    expectTooManyRequests(await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token }));

    const ready = await ctx.request({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok', database: 'ok', rate_limit_counters: 'memory (redis unavailable)' });
    const metrics = await ctx.request({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^scoreboard_rate_limit_fallback 1$/m);
    expect(log.text.match(/Redis unavailable/g)).toHaveLength(1);

    ctx.clock.advance(60_000);
    await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token });
    expect(log.text.match(/Redis unavailable/g)).toHaveLength(2);
  });

  it('goes back to Redis without a restart once it answers again', async () => {
    ctx = await appOnRedis('test-e:');
    await untilCountersInRedis(ctx);
    await redis.stop();
    expect((await ctx.request({ method: 'GET', url: '/api/v1/projects', remoteAddress: '203.0.113.8' })).statusCode).toBe(401);
    expect((await ctx.request({ method: 'GET', url: '/readyz' })).json().rate_limit_counters).toBe('memory (redis unavailable)');

    await redis.start();
    await untilCountersInRedis(ctx);
    const metrics = await ctx.request({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^scoreboard_rate_limit_fallback 0$/m);
    expect(log.text).toMatch(/Redis is answering again/);
  });
});
