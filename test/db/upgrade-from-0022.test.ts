import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/migrate.js';
import { loadFixture } from '../helpers/client-wire.js';
import { type ReleaseModule, upgradeFrom } from '../helpers/previous-release.js';
import { TEST_SECRET_KEY } from '../helpers/test-app.js';

/**
 * Issue 35's upgrade (E11, migrations 0023 to 0025): the release before them, built from git,
 * stores a user and their tokens, a project with settings, a webhook and reports; after `scoreboard
 * migrate` the current release answers them as the previous one did, apart from the one new field
 * (a webhook's `format`, `standard` for every webhook stored before), the same tokens still work,
 * and every user has E11.2's default choices.
 */

const CLOCK: Clock = { now: () => new Date('2026-11-21T12:00:00.000Z') };
const ENV = { LOG_LEVEL: 'silent', WORKER_THREADS: '0', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

describe('the upgrade to E11 (migrations 0023-0025) of what the previous release stored', () => {
  const upgrade = upgradeFrom('src/db/migrations/0023-webhook-formats.ts', 'scoreboard-upgrade-0022-');

  it('answers the tokens, the project, its webhook and its reports as before', async () => {
    const previous = await upgrade.modules();
    const store = await upgrade.freshStore();
    const env = { ...store.env, ...ENV, SECRET_KEY: TEST_SECRET_KEY };

    // The previous release: its schema (0022), a user and a second token, a project with settings,
    // a webhook, two runs on main.
    const oldDb = previous.database.createDatabase(store.env.DATABASE_URL);
    await previous.migrate.migrateToLatest(oldDb);
    const applied = await oldDb.selectFrom('kysely_migration').select('name').orderBy('name', 'desc').executeTakeFirst();
    expect(applied.name).toBe('0022-code-hosts');
    const accounts = previous.operator.operatorFeatures(oldDb, CLOCK).accounts;
    const { token } = await accounts.createUser({
      email: 'ada@example.com',
      name: 'Ada',
      plan: 'business',
      withTeam: true,
      abilities: ['read', 'write', 'admin'],
    });
    const { token: readToken } = await accounts.createToken({ email: 'ada@example.com', name: 'ci', abilities: ['read'], expiresAt: null });
    const oldApp = await previous.app.createApp(previous.config.loadConfig(env), { db: oldDb, clock: CLOCK });
    const call = (app: ReleaseModule, method: string, url: string, payload?: unknown, bearer = token) =>
      app.inject({ method, url, headers: { authorization: `Bearer ${bearer}` }, ...(payload !== undefined && { payload }) });
    const created = await call(oldApp, 'POST', '/api/v1/projects', {
      name: 'Shop',
      framework_version: '12',
      settings: { fail_on: 'high', fail_threshold: 70 },
    });
    expect(created.statusCode, created.body).toBe(201);
    const projectId: string = created.json().project.id;
    const apiToken: string = created.json().api_token;
    const hook = await call(oldApp, 'POST', `/api/v1/projects/${projectId}/webhooks`, {
      url: 'https://hooks.example.com/scoreboard',
      events: ['report.created'],
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const uuids: string[] = [];
    for (const [run, analyzedAt] of ['2026-11-20T09:00:00Z', '2026-11-20T10:00:00Z'].entries()) {
      const fixture = loadFixture('report-full', projectId);
      const uploaded = await oldApp.inject({
        method: 'POST',
        url: '/api/reports',
        headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
        payload: {
          ...fixture,
          analyzed_at: analyzedAt,
          total_execution_time: run + 1,
          metadata: { ...fixture.metadata, git_branch: 'main', git_commit: String(run).repeat(40) },
        },
      });
      expect(uploaded.statusCode, uploaded.body).toBe(201);
      uuids.push(uploaded.json().report.uuid);
    }
    const urls = [
      '/api/v1/tokens',
      '/api/v1/user',
      `/api/v1/projects/${projectId}`,
      `/api/v1/projects/${projectId}/reports`,
      `/api/v1/projects/${projectId}/webhooks`,
      ...uuids.flatMap((uuid) => [`/api/v1/reports/${uuid}`, `/api/v1/reports/${uuid}/changes`]),
    ];
    const readAll = (app: ReleaseModule, bearer = token) =>
      Promise.all(
        urls.map(async (url) => {
          const response = await call(app, 'GET', url, undefined, bearer);
          expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
          return response.body as string;
        }),
      );
    // The read-only token reads once first, so that both releases list it as used.
    const beforeRead = (await call(oldApp, 'GET', `/api/v1/projects/${projectId}`, undefined, readToken)).body;
    const before = await readAll(oldApp);
    await oldApp.close();
    await oldDb.destroy();

    // `scoreboard migrate`, then the current release on the same database.
    const db: Db = createDatabase(store.env.DATABASE_URL!);
    try {
      await migrateToLatest(db);
      const app = await createApp(loadConfig(env), { db, clock: CLOCK });
      try {
        const after = await readAll(app);
        for (const [i, url] of urls.entries()) {
          // The one new field: a webhook stored before E11.5 is sent in E6's own body.
          const expected = url.endsWith('/webhooks')
            ? before[i]!.replace(/"description":null,/g, '"description":null,"format":"standard",')
            : before[i]!;
          expect(after[i], url).toBe(expected);
        }
        expect(JSON.parse(after[urls.indexOf(`/api/v1/projects/${projectId}/webhooks`)]!).data[0].format).toBe('standard');
        // The read-only token still reads, and still may not write.
        expect((await call(app, 'GET', `/api/v1/projects/${projectId}`, undefined, readToken)).body).toBe(beforeRead);
        expect((await call(app, 'POST', '/api/v1/projects', { name: 'Blog', framework_version: '12' }, readToken)).statusCode).toBe(403);
        // E11.2's defaults for a user stored before, and no email on a server without SMTP.
        const choices = await call(app, 'GET', '/api/v1/user/notifications');
        expect(choices.json()).toEqual({
          data: {
            gate_failed: true,
            new_issues: 'critical',
            weekly_digest: false,
            assigned: true,
            muted_projects: [],
            email_available: false,
          },
        });
      } finally {
        await app.close();
      }
    } finally {
      await db.destroy();
    }
  }, 120_000);
});
