/**
 * Issue 13: reports stored before E1 get fingerprints, git context, baselines and changes from the
 * data step that runs after the migrations, in D19 order, in batches, safe to run again. Tested by
 * uploading runs, taking their E1 data away as if they had been stored before the migration, and
 * checking that a migration run brings back exactly what the uploads had recorded.
 */
import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { migrateToLatest } from '../../src/migrate.js';
import { decodeResults } from '../../src/reports/results/results-encoding.js';
import { loadFixture, uploadOk } from '../helpers/client-wire.js';

const it = appTest({ user: { plan: 'business' } })
  .extend('get', ({ ctx, user }) => async (url: string) => {
    const response = await ctx.request({ method: 'GET', url, token: user.token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  })
  /** Everything E1 shows of a report: its detail (gate aside), and its whole changes list. */
  .extend(
    'e1View',
    ({ get }) =>
      async function e1View(uuid: string) {
        const { data } = await get(`/api/v1/reports/${uuid}`);
        const { gate: _gate, ...detail } = data;
        const changes = [];
        for (let page = 1; ; page++) {
          const answer = await get(`/api/v1/reports/${uuid}/changes?page=${page}`);
          changes.push(...answer.data);
          if (page >= answer.meta.last_page) break;
        }
        return { detail, changes };
      },
  )
  /** Puts the reports back as a pre-E1 main stored them: no E1 columns, no issue rows, plain results. */
  .extend(
    'forgetE1',
    ({ ctx }) =>
      async function forgetE1() {
        const rows = await ctx.db.selectFrom('reports').select(['id', 'results', 'results_br']).execute();
        for (const row of rows) {
          await ctx.db
            .updateTable('reports')
            .set({
              results: JSON.stringify(decodeResults(row)),
              results_br: null,
              git_branch: null,
              git_commit: null,
              pull_request: null,
              base_branch: null,
              baseline_report_id: null,
              changes_new: null,
              changes_fixed: null,
              changes_unchanged: null,
              gate: null,
              fingerprinted_at: null,
            })
            .where('id', '=', row.id)
            .execute();
        }
        await ctx.db.deleteFrom('report_issues').execute();
        // Stored answers (D28) came after E1: a database from before it has none.
        await ctx.db.deleteFrom('report_bodies').execute();
      },
  )
  .extend(
    'issueRows',
    ({ ctx }) =>
      () =>
        ctx.db.selectFrom('report_issues').selectAll().orderBy('report_id').orderBy('id').execute(),
  )
  /** Three runs, uploaded in analysis order: main, then main again with an issue fixed, then a pull request into main. */
  .extend(
    'uploadHistory',
    ({ apiToken, ctx, projectId }) =>
      async function uploadHistory(): Promise<string[]> {
        const small = loadFixture('report-small', projectId);
        const later = (minutes: number) => new Date(Date.parse(small.analyzed_at) + minutes * 60_000).toISOString();
        const fewer = structuredClone(small);
        const withIssues = fewer.results.find((r: { issues: unknown[] }) => r.issues.length > 0);
        withIssues.issues.pop();
        const uuids: string[] = [];
        for (const body of [
          small,
          { ...fewer, analyzed_at: later(30) },
          { ...loadFixture('report-full', projectId), analyzed_at: later(60) },
        ]) {
          uuids.push((await uploadOk(ctx, apiToken, body)).report.uuid);
        }
        return uuids;
      },
  );

/**
 * E1.2 "the same fingerprint on every instance and database, forever": the fingerprints of
 * report-small's issues as stored, in upload order, hashed. The same constant on both backends.
 */
const REPORT_SMALL_FINGERPRINTS_SHA256 = '8abea9bf3a88ad43888a66ab913fb4249893b57ddf6366f9e0508cdf1b42221b';

describe('back-filling E1 for reports stored before it', () => {
  it('restores what the uploads recorded: fingerprints, git context, baselines, counts and the changes lists', async ({
    ctx,
    get,
    e1View,
    forgetE1,
    issueRows,
    uploadHistory,
  }) => {
    const uuids = await uploadHistory();
    const recorded = await Promise.all(uuids.map(e1View));
    expect(recorded[1]!.detail.changes).toMatchObject({ baseline: { uuid: uuids[0] }, new: 0, fixed: 1 });
    expect(recorded[2]!.detail.changes.baseline).toMatchObject({ uuid: uuids[1] });
    const rowsBefore = (await issueRows()).map(({ id: _id, ...row }) => row);

    await forgetE1();
    expect(await ctx.db.selectFrom('reports').select('id').where('fingerprinted_at', 'is not', null).execute()).toEqual([]);
    // Until the back-fill reaches it (another instance may be running it), a report shows the
    // fingerprints it will get, and no changes.
    const waiting = (await get(`/api/v1/reports/${uuids[1]}`)).data;
    expect(waiting.results).toEqual(
      recorded[1]!.detail.results.map((result: { issues: object[] }) => ({
        ...result,
        issues: result.issues.map((issue) => ({ ...issue, change: null })),
      })),
    );

    await migrateToLatest(ctx.db);
    expect(await Promise.all(uuids.map(e1View))).toEqual(recorded);
    expect((await issueRows()).map(({ id: _id, ...row }) => row)).toEqual(rowsBefore);
    // The settings of that time are unknown: no gate is made up.
    for (const uuid of uuids) expect((await get(`/api/v1/reports/${uuid}`)).data.gate).toBeNull();
  });

  it('is safe to run again: a second run changes nothing', async ({ ctx, forgetE1, issueRows, uploadHistory }) => {
    const uuids = await uploadHistory();
    await forgetE1();
    await migrateToLatest(ctx.db);
    const rows = await issueRows();
    const reports = await ctx.db.selectFrom('reports').selectAll().orderBy('id').execute();
    await migrateToLatest(ctx.db);
    expect(await issueRows()).toEqual(rows);
    expect(await ctx.db.selectFrom('reports').selectAll().orderBy('id').execute()).toEqual(reports);
    expect(uuids).toHaveLength(3);
  });

  it('finishes an interrupted run: reports already done are kept, the rest are done', async ({ ctx, e1View, forgetE1, uploadHistory }) => {
    const uuids = await uploadHistory();
    const recorded = await Promise.all(uuids.map(e1View));
    await forgetE1();
    // As if a run had been stopped after the first report: its rows are there, its flag is set.
    await migrateToLatest(ctx.db);
    const first = await ctx.db.selectFrom('reports').select('id').where('uuid', '=', uuids[0]!).executeTakeFirstOrThrow();
    await ctx.db.updateTable('reports').set({ fingerprinted_at: null }).where('id', '!=', first.id).execute();
    await ctx.db.deleteFrom('report_issues').where('report_id', '!=', first.id).execute();
    await migrateToLatest(ctx.db);
    expect(await Promise.all(uuids.map(e1View))).toEqual(recorded);
  });

  it('replays history in D19 order: a pull request uploaded late is compared with the base-branch run before it in analysis time', async ({
    ctx,
    projectId,
    apiToken,
    e1View,
    forgetE1,
  }) => {
    const small = loadFixture('report-small', projectId);
    const later = (minutes: number) => new Date(Date.parse(small.analyzed_at) + minutes * 60_000).toISOString();
    const main1 = (await uploadOk(ctx, apiToken, small)).report.uuid;
    const main2 = (await uploadOk(ctx, apiToken, { ...small, analyzed_at: later(60) })).report.uuid;
    // Analysed between the two main runs, uploaded after both: its upload compares it with the latest, main2.
    const pr = (await uploadOk(ctx, apiToken, { ...loadFixture('report-full', projectId), analyzed_at: later(30) })).report.uuid;
    expect((await e1View(pr)).detail.changes.baseline.uuid).toBe(main2);
    await forgetE1();
    await migrateToLatest(ctx.db);
    expect((await e1View(pr)).detail.changes.baseline.uuid).toBe(main1);
    expect((await e1View(main2)).detail.changes.baseline.uuid).toBe(main1);
  });

  it('handles more reports than one batch, each project in D19 order', async ({ ctx, user, projectId, apiToken, e1View, forgetE1 }) => {
    const base = loadFixture('report-small', projectId);
    const other = await ctx.given.project(user, { name: 'Other' });
    const at = (n: number) => new Date(Date.parse(base.analyzed_at) + n * 60_000).toISOString();
    for (let n = 0; n < 60; n++) {
      const body = { ...base, analyzed_at: at(n), results: base.results.slice(0, 1 + (n % 5)) };
      if (n % 2 === 0) await uploadOk(ctx, apiToken, body);
      else await uploadOk(ctx, other.apiToken, { ...body, project_id: other.project.id });
    }
    const uuids = (await ctx.db.selectFrom('reports').select('uuid').orderBy('id').execute()).map((r) => r.uuid);
    const recorded = await Promise.all(uuids.map(e1View));
    await forgetE1();
    await migrateToLatest(ctx.db);
    expect(await Promise.all(uuids.map(e1View))).toEqual(recorded);
  });

  it('gives the same fingerprints on this database as on every other, forever (E1.2)', async ({ ctx, projectId, apiToken, get }) => {
    const { report } = await uploadOk(ctx, apiToken, loadFixture('report-small', projectId));
    const { data } = await get(`/api/v1/reports/${report.uuid}`);
    const fingerprints = (data.results as { issues: { fingerprint: string }[] }[]).flatMap((r) => r.issues.map((i) => i.fingerprint));
    expect(fingerprints.length).toBeGreaterThan(0);
    expect(createHash('sha256').update(fingerprints.join('\n')).digest('hex')).toBe(REPORT_SMALL_FINGERPRINTS_SHA256);
  });
});
