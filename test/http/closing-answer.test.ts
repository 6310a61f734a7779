/**
 * D38, D39: a request that reaches an instance after its shutdown began (a keep-alive connection,
 * or one accepted before the server stopped listening) gets D3's 503 with `Retry-After`, so the
 * client tries again and reaches another instance, instead of Fastify's bare 503.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMigratedTestStore } from '../helpers/test-backend.js';

describe('a request while the app is closing', () => {
  it('is answered 503 with Retry-After in the D3 envelope', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scoreboard-closing-'));
    const store = await createMigratedTestStore(dir);
    const config = loadConfig({ ...store.env, DATABASE_POOL_MAX: '2', LOG_LEVEL: 'silent' });
    const db = openDatabase(config);
    const app = await createApp(config, { db, clock: new FakeClock() });
    // Holds the shutdown between its start and the server's close, as serve's drain of webhook
    // attempts may, so that the server still accepts while the app is closing.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let closingStarted!: () => void;
    const closing = new Promise<void>((resolve) => (closingStarted = resolve));
    app.addHook('preClose', async () => {
      closingStarted();
      await held;
    });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as { port: number };
      const closed = app.close();
      await closing;

      for (const path of ['/api/v1/projects', '/healthz', '/api/reports']) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        expect(response.status, path).toBe(503);
        expect(response.headers.get('retry-after'), path).toMatch(/^[1-9]\d*$/);
        expect(response.headers.get('connection'), path).toBe('close');
        const body = (await response.json()) as Record<string, unknown>;
        expect(body, path).toMatchObject({ error: 'Service Unavailable', retry_after: Number(response.headers.get('retry-after')) });
        expect(body.message, path).toMatch(/shutting down/);
      }
      release();
      await closed;
    } finally {
      release();
      await app.close();
      await db.destroy();
      await store.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
