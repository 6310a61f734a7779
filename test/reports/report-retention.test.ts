/**
 * Issue 15 / REPORT_RETENTION_DAYS and REPORT_RETENTION_KEEP: the job deletes the reports past the
 * retention, never a project's latest report nor that report's baseline, and what it deleted is
 * gone over HTTP as after a `DELETE` (D11, D19, E1.4). Run on both backends.
 */
import { afterEach, describe, expect, vi } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { loadConfig } from '../../src/config.js';
import { pruneReports, startReportRetention, type ReportRetention } from '../../src/reports/report-retention.js';
import { result, uploadBody } from '../helpers/reports-world.js';
import { uploadOk } from '../helpers/client-wire.js';
import { eventually, nextTurn } from '../helpers/eventually.js';

const it = appTest({ user: { plan: 'business' } })
  /**
   * Uploads a report analysed and stored now (the fake clock's), on `branch`, with one issue per
   * name in `issues` (each its own analyzer and message, so each has its own fingerprint), then
   * moves the clock an hour on. To the test's project, or to the project of `token`.
   */
  .extend('uploadNow', ({ apiToken, ctx }) => async (branch: string | null, issues: string[] = [], token = apiToken): Promise<string> => {
    const results = issues.length === 0 ? [result('csrf-protection', 'passed')] : issues.map((name) => result(name, 'failed', ['high']));
    const body = uploadBody(results, {
      analyzed_at: ctx.clock.now().toISOString(),
      ...(branch !== null && { metadata: { git_branch: branch, git_commit: 'a'.repeat(40) } }),
    });
    const uuid = (await uploadOk(ctx, token, body)).report.uuid as string;
    ctx.clock.advance(HOUR);
    return uuid;
  })
  .extend(
    'prune',
    ({ ctx }) =>
      (retention: ReportRetention) =>
        pruneReports({ db: ctx.db, clock: ctx.clock, retention }),
  )
  .extend(
    'get',
    ({ ctx, user }) =>
      (url: string) =>
        ctx.request({ method: 'GET', url, token: user.token }),
  )
  .extend('listed', ({ get, projectId }) => async (id = projectId): Promise<string[]> => {
    const response = await get(`/api/v1/projects/${id}/reports?per_page=100`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().data as { uuid: string }[]).map((report) => report.uuid);
  })
  .extend('latest', ({ get, projectId }) => async (): Promise<string | null> => {
    const response = await get(`/api/v1/projects/${projectId}`);
    expect(response.statusCode).toBe(200);
    return (response.json().data.latest_report as { uuid: string } | null)?.uuid ?? null;
  });

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

describe('report retention', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('does nothing when no retention is set (the default)', async ({ ctx, uploadNow, prune, listed }) => {
    for (let i = 0; i < 3; i++) await uploadNow('main');
    ctx.clock.advance(400 * DAY);
    expect(await prune({})).toBe(0);
    expect(await listed()).toHaveLength(3);
    const config = loadConfig({});
    expect(config.reportRetention).toEqual({ days: undefined, keep: undefined });
  });

  it('REPORT_RETENTION_DAYS: deletes what was stored before the cut; the latest report and its baseline stay', async ({
    ctx,
    uploadNow,
    prune,
    get,
    listed,
    latest,
  }) => {
    const [old1, old2, old3] = [await uploadNow('main', ['a']), await uploadNow('main', ['a']), await uploadNow('main', ['a', 'b'])];
    ctx.clock.advance(10 * DAY);
    const recent = await uploadNow('feature/x');
    // The latest report (by analyzed_at) is on main again: its baseline is old3, stored 10 days ago.
    const newest = await uploadNow('main', ['b']);

    expect(await prune({ days: 7 })).toBe(2);
    expect(await listed()).toEqual([newest, recent, old3]);
    for (const uuid of [old1, old2]) expect((await get(`/api/v1/reports/${uuid}`)).statusCode).toBe(404);
    expect(await latest()).toBe(newest);
    // The latest report's changes still read its baseline: issue "a" is fixed, "b" unchanged.
    const changes = await get(`/api/v1/reports/${newest}/changes`);
    expect(changes.statusCode).toBe(200);
    expect((changes.json().data as { change: string; analyzer_id: string }[]).map((c) => [c.change, c.analyzer_id])).toEqual([
      ['fixed', 'a'],
      ['unchanged', 'b'],
    ]);
    // Nothing more to do until time passes.
    expect(await prune({ days: 7 })).toBe(0);
    ctx.clock.advance(30 * DAY);
    expect(await prune({ days: 7 })).toBe(1); // `recent`; `newest` and its baseline stay however old
    expect(await listed()).toEqual([newest, old3]);
  });

  it("never deletes a project's only, latest report, however old", async ({ ctx, uploadNow, prune, listed }) => {
    const only = await uploadNow(null);
    ctx.clock.advance(1000 * DAY);
    expect(await prune({ days: 1, keep: 1 })).toBe(0);
    expect(await listed()).toEqual([only]);
  });

  it("REPORT_RETENTION_KEEP: keeps each project's newest N by analyzed_at, and the latest report's baseline beyond them", async ({
    ctx,
    user,
    uploadNow,
    prune,
    get,
    listed,
  }) => {
    const baseline = await uploadNow('main', ['a']);
    const features = [];
    for (let i = 0; i < 5; i++) features.push(await uploadNow(`feature/${i}`));
    const newest = await uploadNow('main', ['a']);
    // Another project, under the limit: untouched.
    const other = await ctx.given.project(user);
    const otherUuid = (
      await uploadOk(ctx, other.apiToken, uploadBody([result('csrf-protection', 'passed')], { analyzed_at: ctx.clock.now().toISOString() }))
    ).report.uuid as string;

    expect(await prune({ keep: 2 })).toBe(4);
    expect(await listed()).toEqual([newest, features[4], baseline]);
    expect(await listed(other.project.id)).toEqual([otherUuid]);
    const shown = await get(`/api/v1/reports/${newest}`);
    expect(shown.json().data.changes).toMatchObject({ baseline: { uuid: baseline }, new: 0, fixed: 0, unchanged: 1 });
  });

  it('a report whose baseline was deleted keeps its counts and shows baseline null, in its stored answer too', async ({
    projectId,
    uploadNow,
    prune,
    get,
  }) => {
    const first = await uploadNow('main', ['a']);
    const second = await uploadNow('main', ['a', 'b']);
    await uploadNow('main', ['a', 'b']);
    // Read once, so its answer (naming `first` as baseline) is stored (D28), then delete `first`.
    const before = await get(`/api/v1/reports/${second}`);
    expect(before.json().data.changes).toEqual({
      baseline: expect.objectContaining({ uuid: first }),
      new: 1,
      fixed: 0,
      unchanged: 1,
    });

    expect(await prune({ keep: 2 })).toBe(1);
    const after = await get(`/api/v1/reports/${second}`);
    expect(after.statusCode).toBe(200);
    expect(after.json().data.changes).toEqual({ baseline: null, new: 1, fixed: 0, unchanged: 1 });
    const item = (await get(`/api/v1/projects/${projectId}/reports`)).json().data.find((r: { uuid: string }) => r.uuid === second);
    expect(item.changes).toEqual({ baseline: null, new: 1, fixed: 0, unchanged: 1 });
  });

  it('is safe when several instances run it at once: the work is shared, the same reports go, nothing fails', async ({
    ctx,
    user,
    projectId,
    apiToken,
    uploadNow,
    prune,
    listed,
  }) => {
    const projects = [{ projectId, apiToken }];
    for (let i = 0; i < 3; i++) {
      const created = await ctx.given.project(user);
      projects.push({ projectId: created.project.id, apiToken: created.apiToken });
    }
    const kept = new Map<string, string[]>();
    for (const project of projects) {
      const uuids = [];
      // More than one batch of the job's per project.
      for (let i = 0; i < 60; i++) uuids.push(await uploadNow(i % 2 === 0 ? 'main' : 'dev', [], project.apiToken));
      kept.set(project.projectId, uuids.slice(-3).reverse());
    }
    const runs = await Promise.all([1, 2, 3].map(() => prune({ keep: 3 })));
    expect(runs.reduce((sum, n) => sum + n, 0)).toBe(4 * 57);
    for (const project of projects) expect(await listed(project.projectId)).toEqual(kept.get(project.projectId));
  });

  it('runs soon after start and then at every interval, until stopped; not at all when unset', async ({ ctx, uploadNow, listed }) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    const logger = { info: vi.fn(), warn: vi.fn() } as unknown as Parameters<typeof startReportRetention>[0]['logger'];
    for (let i = 0; i < 3; i++) await uploadNow('main');
    const settled = async (count: number) => {
      // The run is database work, on real I/O: let it finish before looking.
      await eventually(async () => (await listed()).length === count, { pause: nextTurn });
      expect(await listed()).toHaveLength(count);
    };

    const unset = startReportRetention({ db: ctx.db, clock: ctx.clock, retention: {}, logger });
    vi.advanceTimersByTime(2 * HOUR);
    await settled(3);
    unset();

    const stop = startReportRetention({ db: ctx.db, clock: ctx.clock, retention: { keep: 2 }, logger, intervalMs: 60_000 });
    vi.advanceTimersByTime(1_000);
    await settled(2);
    expect(logger.info).toHaveBeenCalledWith({ deleted: 1, retention: { keep: 2 } }, expect.any(String));
    await uploadNow('main');
    vi.advanceTimersByTime(60_000);
    await settled(2);
    stop();
    await uploadNow('main');
    vi.advanceTimersByTime(10 * 60_000);
    for (let i = 0; i < 20; i++) await listed();
    expect(await listed()).toHaveLength(3);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('reads both settings from the environment, and refuses values below 1', () => {
    expect(loadConfig({ REPORT_RETENTION_DAYS: '90', REPORT_RETENTION_KEEP: '500' }).reportRetention).toEqual({ days: 90, keep: 500 });
    expect(() => loadConfig({ REPORT_RETENTION_DAYS: '0' })).toThrow(/REPORT_RETENTION_DAYS/);
    expect(() => loadConfig({ REPORT_RETENTION_KEEP: '-3' })).toThrow(/REPORT_RETENTION_KEEP/);
  });
});
