import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/migrate.js';
import { loadFixture } from '../helpers/client-wire.js';
import { type ReleaseModule, upgradeFrom } from '../helpers/previous-release.js';

/**
 * Issue 32's upgrade (E8, migration 0019): the previous release, built from git (the commit before
 * migration 0019 was added), stores reports and their answers (D28) as it did; after `scoreboard
 * migrate` the current release answers the report detail, the report list, the changes and the
 * trend byte for byte as the previous one did, apart from the new fields (each issue's `state`, all
 * open here, and the stored gate's `dismissed`), and the answers stored before E8 are built again.
 */

const CLOCK: Clock = { now: () => new Date('2026-11-21T12:00:00.000Z') };
const ENV = { LOG_LEVEL: 'silent', WORKER_THREADS: '0' };

/** What E8 added to these answers, left out: an open state (no nested object) and a gate's `dismissed`. */
const withoutE8 = (text: string) => text.replace(/,"state":\{[^{}]*\}/g, '').replace(/,"dismissed":\d+/g, '');

describe('the upgrade to E8 (migration 0019) of what the previous release stored', () => {
  const upgrade = upgradeFrom('src/db/migrations/0019-issue-states.ts', 'scoreboard-upgrade-0018-');

  it('answers the detail, the list, the changes and the trend as before, plus the states', async () => {
    const previous = await upgrade.modules();
    const store = await upgrade.freshStore();

    // The previous release: its schema (0018), a user, a project with a gate, three runs on main.
    const oldDb = previous.database.createDatabase(store.env.DATABASE_URL);
    await previous.migrate.migrateToLatest(oldDb);
    const applied = await oldDb.selectFrom('kysely_migration').select('name').orderBy('name', 'desc').executeTakeFirst();
    expect(applied.name).toBe('0018-pull-request-index');
    const { token } = await previous.operator.operatorFeatures(oldDb, CLOCK).accounts.createUser({
      email: 'ada@example.com',
      name: 'Ada',
      plan: 'business',
      withTeam: true,
      abilities: ['read', 'write', 'admin'],
    });
    const oldApp = await previous.app.createApp(previous.config.loadConfig({ ...store.env, ...ENV }), { db: oldDb, clock: CLOCK });
    const created = await oldApp.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'Shop', framework_version: '12', settings: { fail_on: 'high', fail_threshold: 70 } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const projectId: string = created.json().project.id;
    const uuids: string[] = [];
    const runs = [
      { name: 'report-small', analyzed_at: '2026-11-20T09:00:00Z' },
      { name: 'report-full', analyzed_at: '2026-11-20T10:00:00Z' },
      { name: 'report-full', analyzed_at: '2026-11-20T11:00:00Z' },
    ] as const;
    for (const [run, { name, analyzed_at }] of runs.entries()) {
      const fixture = loadFixture(name, projectId);
      const uploaded = await oldApp.inject({
        method: 'POST',
        url: '/api/reports',
        headers: { authorization: `Bearer ${created.json().api_token}`, 'content-type': 'application/json' },
        payload: {
          ...fixture,
          analyzed_at,
          total_execution_time: run + 1,
          metadata: { ...fixture.metadata, git_branch: 'main', git_commit: String(run).repeat(40) },
        },
      });
      expect(uploaded.statusCode, uploaded.body).toBe(201);
      uuids.push(uploaded.json().report.uuid);
    }
    const urls = [
      `/api/v1/projects/${projectId}/reports`,
      `/api/v1/projects/${projectId}/trend`,
      ...uuids.flatMap((uuid) => [`/api/v1/reports/${uuid}`, `/api/v1/reports/${uuid}/changes`, `/api/v1/reports/${uuid}/changes?page=2`]),
    ];
    const readAll = async (app: ReleaseModule) =>
      Promise.all(
        urls.map(async (url) => {
          const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
          expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
          return response.body as string;
        }),
      );
    const before = await readAll(oldApp);
    await oldApp.close();
    // Every report's answer was stored by the previous release.
    expect(await oldDb.selectFrom('report_bodies').select('id').execute()).toHaveLength(uuids.length);
    await oldDb.destroy();

    // `scoreboard migrate`, then the current release on the same database.
    const db: Db = createDatabase(store.env.DATABASE_URL!);
    try {
      await migrateToLatest(db);
      // The answers stored before E8 show no states: the migration drops them rather than copy them.
      expect(await db.selectFrom('report_bodies').select('id').execute()).toEqual([]);
      const app = await createApp(loadConfig({ ...store.env, ...ENV }), { db, clock: CLOCK });
      try {
        const after = await readAll(app);
        for (const [i, url] of urls.entries()) expect(withoutE8(after[i]!), url).toBe(before[i]!);
        // Not vacuous: every issue of each detail and every changes item now has its (open) state.
        for (const [i, url] of urls.entries()) {
          if (!url.includes('/reports/')) continue;
          const answer = JSON.parse(after[i]!).data;
          const issues = Array.isArray(answer) ? answer : answer.results.flatMap((result: { issues: unknown[] }) => result.issues);
          if (!url.endsWith('page=2')) expect(issues.length, url).toBeGreaterThan(0);
          for (const issue of issues) expect(issue.state, url).toMatchObject({ fingerprint: issue.fingerprint, status: 'open' });
        }
        // Each answer was built again at its first read, with the project's generation.
        const bodies = await db.selectFrom('report_bodies').select(['states_generation', 'superseded_at']).orderBy('id').execute();
        expect(bodies.map((body) => [body.states_generation, body.superseded_at])).toEqual(uuids.map(() => [0, null]));
      } finally {
        await app.close();
      }
    } finally {
      await db.destroy();
    }
  }, 120_000);
});
