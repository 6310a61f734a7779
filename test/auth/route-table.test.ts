import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/migrate.js';

// D6: the ability check is declared per route; a new /api/v1 route without one must not ship.
describe('route table', () => {
  let dir: string;
  let db: Db;
  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  async function freshApp() {
    dir = mkdtempSync(join(tmpdir(), 'scoreboard-routes-'));
    const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, LOG_LEVEL: 'silent' });
    db = createDatabase(config.databaseUrl);
    await migrateToLatest(db);
    return createApp(config, { db });
  }

  it('refuses to start with an /api/v1 route that declares no ability', async () => {
    const app = await freshApp();
    app.register(async (scope) => {
      scope.get('/api/v1/forgotten', async () => ({ ok: true }));
    });
    await expect(app.ready()).rejects.toThrow(/GET \/api\/v1\/forgotten must declare the ability/);
  });

  it('starts with every shipped /api/v1 route declaring one', async () => {
    const app = await freshApp();
    await expect(app.ready()).resolves.toBeDefined();
    await app.close();
  });
});
