import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/migrate.js';
import type { App } from '../../src/http/app-types.js';
import { createStatementCounter } from '../../src/http/sql-statement-count.js';
import { operatorFeatures } from '../../src/operator-features.js';

// The benchmark's cost per request (issue 6): with SQL_STATEMENT_HEADER, each answer says how many
// SQL statements its request ran, counted per request even when requests interleave.
describe('X-SQL-Statements (SQL_STATEMENT_HEADER)', () => {
  let dir: string;
  let db: Db;
  let app: App;
  afterEach(async () => {
    await app.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the statements of each request, and only its own', async () => {
    dir = mkdtempSync(join(tmpdir(), 'scoreboard-sql-'));
    const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, LOG_LEVEL: 'silent', SQL_STATEMENT_HEADER: 'true' });
    expect(config.sqlStatementHeader).toBe(true);
    const statementCounter = createStatementCounter();
    db = openDatabase(config, { onQuery: statementCounter.onQuery });
    await migrateToLatest(db);
    app = await createApp(config, { db, statementCounter });
    const { token } = await operatorFeatures(db, systemClock).accounts.createUser({
      email: 'sql@example.com',
      name: null,
      plan: 'solo',
      withTeam: true,
      abilities: ['read', 'write', 'admin'],
    });
    const get = (url: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

    // The first use reads the token cache's generation (issue 15), looks the token up and writes
    // last_used_at (D9); afterwards: the generation (the token is cached) and the token list.
    expect((await get('/api/v1/tokens')).headers['x-sql-statements']).toBe('4');
    expect((await get('/api/v1/tokens')).headers['x-sql-statements']).toBe('2');
    // Concurrent requests keep their own counts: the generation, then the list (or team count and page).
    const answers = await Promise.all([get('/api/v1/tokens'), get('/api/v1/projects'), get('/api/v1/tokens')]);
    expect(answers.map((answer) => answer.headers['x-sql-statements'])).toEqual(['2', '2', '2']);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).headers['x-sql-statements']).toBe('0');
  });
});
