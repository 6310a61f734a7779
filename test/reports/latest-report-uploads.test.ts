import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { IDENTIFICATION_STATEMENT, type TestContext } from '../helpers/test-app.js';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { NewReport } from '../../src/reports/store/report-rows.js';
import { createReportStore } from '../../src/reports/store/report-store.js';
import { REPORT_SUMMARY_KEYS, result, uploadBody } from '../helpers/reports-world.js';
import { allPassedSummary, uploadOk } from '../helpers/client-wire.js';
import { onPostgres } from '../helpers/test-backend.js';

const it = appTest({ user: { plan: 'enterprise' } })
  .extend('latestOnShow', ({ ctx, projectId, user }) => async (id = projectId) => {
    const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${id}`, token: user.token });
    expect(response.statusCode).toBe(200);
    return response.json().data.latest_report as Record<string, any> | null;
  })
  .extend(
    'listProjects',
    ({ ctx, user }) =>
      () =>
        ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token }),
  )
  .extend('latestInList', ({ listProjects, projectId }) => async (id = projectId) => {
    const response = await listProjects();
    expect(response.statusCode).toBe(200);
    return (response.json().data as { id: string; latest_report: Record<string, any> | null }[]).find((p) => p.id === id)!.latest_report;
  })
  /** The latest report as the client package reads its project (CLIENT-WIRE.md `GET /api/project`). */
  .extend('latestForClient', ({ apiToken, ctx }) => async (token = apiToken) => {
    const response = await ctx.request({ method: 'GET', url: '/api/project', token });
    expect(response.statusCode).toBe(200);
    return response.json().data.latest_report as Record<string, any> | null;
  })
  .extend(
    'uploadAt',
    ({ apiToken, ctx }) =>
      async (analyzedAt: string, token = apiToken, extra: Record<string, unknown> = {}) =>
        (await uploadOk(ctx, token, uploadBody([result('csrf-protection', 'passed')], { analyzed_at: analyzedAt, ...extra })))
          .report as Record<string, any>,
  );

// D19: latest_report is the report with the latest analyzed_at (ties: highest id), kept up to date
// by uploads (CLIENT-WIRE.md: "It becomes the project's latest_report when its analyzed_at is the newest").
describe('latest_report through uploads (D19)', () => {
  it('the first upload becomes latest_report, equal to the summary the upload answered', async ({
    latestOnShow,
    latestInList,
    latestForClient,
    uploadAt,
  }) => {
    expect(await latestOnShow()).toBeNull();
    const report = await uploadAt('2026-11-21T09:00:00+00:00');
    expect(Object.keys(report).sort()).toEqual(REPORT_SUMMARY_KEYS);
    expect(await latestOnShow()).toEqual(report);
    expect(await latestInList()).toEqual(report);
    expect(await latestForClient()).toEqual(report);
  });

  it('keeps the newest analyzed_at as latest_report when many uploads arrive at once', async ({
    ctx,
    user,
    projectId,
    latestOnShow,
    uploadAt,
  }) => {
    const times = Array.from({ length: 12 }, (_, i) => `2026-11-21T09:00:${String((i * 7) % 12).padStart(2, '0')}+00:00`);
    const reports = await Promise.all(times.map((at) => uploadAt(at)));
    const newest = reports.find((report) => report.analyzed_at === '2026-11-21T09:00:11.000Z')!;
    expect(await latestOnShow()).toEqual(newest);
    const list = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/reports`, token: user.token });
    expect(list.json().meta.total).toBe(12);
  });

  // PostgreSQL runs transactions side by side under READ COMMITTED: an older upload whose statements
  // started before a newer upload committed must still leave the newer one latest. (SQLite's write
  // transactions are serial, and its synchronous driver cannot hold one open while another waits.)
  it.skipIf(!onPostgres)(
    'an older upload that waits on a newer upload still in its transaction does not take latest_report',
    async ({ ctx, projectId, latestOnShow, uploadAt }) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let newerId = 0;
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      // A newer report and its pointer update, in a transaction kept open (its UPDATE holds the
      // project's row until it commits).
      const newer = ctx.db.transaction().execute(async (trx) => {
        const reports = createReportStore(trx);
        newerId = await reports.insert(reportRow(projectId, '2026-11-21T10:00:00.000Z'));
        await reports.refreshLatest(projectId);
        holding();
        await released;
      });
      await held;
      const older = uploadAt('2026-11-21T09:00:00+00:00');
      await untilSomeoneWaitsOnALock(ctx);
      release();
      await newer;
      await older;
      expect((await latestOnShow())?.id).toBe(newerId);
    },
  );

  it('a newer analyzed_at uploaded later replaces latest_report', async ({ latestOnShow, latestInList, uploadAt }) => {
    await uploadAt('2026-11-21T09:00:00+00:00');
    const newer = await uploadAt('2026-11-21T09:00:01+00:00');
    expect(await latestOnShow()).toEqual(newer);
    expect(await latestInList()).toEqual(newer);
  });

  it('an older analyzed_at uploaded later does not replace latest_report', async ({
    ctx,
    latestOnShow,
    latestInList,
    latestForClient,
    uploadAt,
  }) => {
    const latest = await uploadAt('2026-11-21T09:00:00+00:00');
    ctx.clock.advance(3_600_000); // received an hour later...
    const late = await uploadAt('2026-11-21T08:59:59+00:00'); // ...but analysed earlier
    expect(late.id).toBeGreaterThan(latest.id);
    expect(late.created_at > latest.created_at).toBe(true);
    expect(await latestOnShow()).toEqual(latest);
    expect(await latestInList()).toEqual(latest);
    expect(await latestForClient()).toEqual(latest);
  });

  it('compares instants, not the text the client wrote (offsets)', async ({ latestOnShow, uploadAt }) => {
    const latest = await uploadAt('2026-11-21T09:00:00+00:00');
    // 10:30+02:00 is 08:30Z: earlier, although its text sorts later.
    await uploadAt('2026-11-21T10:30:00+02:00');
    expect((await latestOnShow())!.id).toBe(latest.id);
    // 05:00-05:00 is 10:00Z: later, although its text sorts earlier.
    const later = await uploadAt('2026-11-21T05:00:00-05:00');
    expect((await latestOnShow())!.id).toBe(later.id);
    expect(later.analyzed_at).toBe('2026-11-21T10:00:00.000Z');
  });

  it('with equal analyzed_at the later upload (higher id) wins', async ({ latestOnShow, uploadAt }) => {
    const first = await uploadAt('2026-11-21T09:00:00+00:00');
    // Another run at the same instant: a body identical to the first would be a retry of it (D40).
    const second = await uploadAt('2026-11-21T09:00:00+00:00', undefined, { triggered_by: 'schedule' });
    expect(second.id).toBeGreaterThan(first.id);
    expect((await latestOnShow())!.id).toBe(second.id);
    // The same instant written with another offset is still a tie.
    const third = await uploadAt('2026-11-21T11:00:00+02:00');
    expect((await latestOnShow())!.id).toBe(third.id);
  });

  it('carries the counts recomputed from the results, not the client summary', async ({ ctx, apiToken, latestOnShow, latestInList }) => {
    const body = uploadBody(
      [
        result('sql-injection', 'failed', ['critical', 'critical', 'medium']),
        result('csrf-protection', 'passed'),
        result('debug-mode', 'warning', ['low']),
        result('phpstan', 'skipped'),
      ],
      {
        summary: allPassedSummary(99),
      },
    );
    const answer = await uploadOk(ctx, apiToken, body);
    const latest = await latestOnShow();
    // 1 passed of 4 - 1 skipped: round(33.3) = 33.
    expect(latest).toMatchObject({
      id: answer.report.id,
      score: 33,
      total: 4,
      passed: 1,
      failed: 1,
      warnings: 1,
      skipped: 1,
      errors: 0,
      total_issues: 4,
      issues_by_severity: { critical: 2, high: 0, medium: 1, low: 1, info: 0 },
    });
    expect(await latestInList()).toEqual(latest);
  });

  it("is per project: an upload to one project does not move another's latest_report", async ({
    ctx,
    user,
    latestOnShow,
    latestForClient,
    uploadAt,
  }) => {
    const other = await ctx.given.project(user, { name: 'Other' });
    const mine = await uploadAt('2026-11-20T09:00:00+00:00');
    const theirs = await uploadAt('2026-11-21T09:30:00+00:00', other.apiToken);
    expect((await latestOnShow())!.id).toBe(mine.id);
    expect((await latestOnShow(other.project.id))!.id).toBe(theirs.id);
    expect((await latestForClient(other.apiToken))!.id).toBe(theirs.id);
  });

  it('costs the same SQL statements to list 20 projects with one report each or with many each', async ({
    ctx,
    user,
    projectId,
    apiToken,
    listProjects,
    uploadAt,
  }) => {
    const projects = [{ id: projectId, token: apiToken }];
    for (let i = 1; i < 20; i++) {
      const created = await ctx.given.project(user, { name: `P${i}` });
      projects.push({ id: created.project.id, token: created.apiToken });
    }
    const statementsFor = async (request: () => Promise<{ statusCode: number }>) => {
      ctx.queries.length = 0;
      const response = await request();
      expect(response.statusCode).toBe(200);
      // Identifying the caller is the same whatever the projects hold (and the token cache's doing).
      return ctx.queries.filter((query) => !IDENTIFICATION_STATEMENT.test(query));
    };

    for (const { token } of projects) await uploadAt('2026-11-01T00:00:00+00:00', token);
    const withOne = await statementsFor(listProjects);

    // Five more uploads per project, the newest analysis in the middle, one older than the first.
    const days = ['2026-11-03', '2026-10-01', '2026-11-20', '2026-11-05', '2026-11-02'];
    const expectedLatest = new Map<string, number>();
    for (const { id, token } of projects) {
      for (const day of days) {
        const report = await uploadAt(`${day}T00:00:00+00:00`, token);
        if (day === '2026-11-20') expectedLatest.set(id, report.id);
      }
    }
    const withMany = await statementsFor(listProjects);

    expect(withMany).toEqual(withOne);
    expect(withOne.length).toBeGreaterThan(0);

    const data = (await listProjects()).json().data as { id: string; latest_report: { id: number } }[];
    expect(data).toHaveLength(20);
    for (const project of data) expect(project.latest_report.id).toBe(expectedLatest.get(project.id));
    expect(await ctx.db.selectFrom('reports').select('id').execute()).toHaveLength(20 * 6);
  });
});

function reportRow(projectId: string, analyzedAt: string): NewReport {
  return {
    uuid: uuidv7(),
    project_id: projectId,
    score: 100,
    total: 1,
    passed: 1,
    failed: 0,
    warnings: 0,
    skipped: 0,
    errors: 0,
    total_issues: 0,
    issues_critical: 0,
    issues_high: 0,
    issues_medium: 0,
    issues_low: 0,
    issues_info: 0,
    framework_version: null,
    package_version: null,
    total_execution_time: 0,
    triggered_by: null,
    analyzed_at: analyzedAt,
    created_at: analyzedAt,
    results: '[]',
    results_br: null,
    metadata: '{}',
    pro_package_version: null,
    client_summary: null,
    configuration: null,
    git_branch: null,
    git_commit: null,
    pull_request: null,
    base_branch: null,
    baseline_report_id: null,
    changes_new: null,
    changes_fixed: null,
    changes_unchanged: null,
    gate: null,
    fingerprinted_at: analyzedAt,
  };
}

/** Polls PostgreSQL until some session of this service waits on a lock (the upload behind ours). */
async function untilSomeoneWaitsOnALock(ctx: TestContext): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const { rows } = await sql<{ waiting: string }>`
      select count(*) as waiting from pg_stat_activity
      where application_name = 'scoreboard' and wait_event_type = 'Lock'`.execute(ctx.db);
    if (Number(rows[0]!.waiting) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the second upload never waited on the lock');
}
