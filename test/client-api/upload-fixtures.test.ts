/**
 * CLIENT-WIRE.md "POST /api/reports body" and "What the service does with a report": the bodies the
 * published client really sent (shared/fixtures/reports) are accepted as they are, their summary is
 * recomputed from `results`, and the stored report reads back through the v1 report endpoints.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { UUID_V7, ISO_UTC } from '../helpers/contract.js';
import {
  clientCall,
  countResults,
  countSuppressed,
  expectClientAnswer,
  expectClientUnauthenticated,
  expectRateLimitHeaders,
  expectedResult,
  fixtureText,
  listReports,
  loadFixture,
  minimalReport,
  readProject,
  readReport,
  storedRows,
  upload,
  type FixtureName,
  allPassedSummary,
} from '../helpers/client-wire.js';
import { CLOCK_START, REPORT_SUMMARY_KEYS } from '../projects/project-expectations.js';

const it = appTest({ project: { name: 'Acme Shop' } })
  /** The upload reads back the same through project, report list and report detail (CLIENT-WIRE.md, D19). */
  .extend(
    'expectReadsBack',
    ({ ctx, projectId, user }) =>
      async function expectReadsBack(sent: any, summary: Record<string, any>) {
        expect((await readProject(ctx, user, projectId)).latest_report).toEqual(summary);

        const list = await listReports(ctx, user, projectId);
        expect(list.data).toEqual([expectedListItem(sent, summary)]);
        expect(list.meta).toMatchObject({ current_page: 1, per_page: 20, total: 1 });

        const detail = await readReport(ctx, user, summary.uuid);
        const { results, metadata, configuration, ...rest } = detail;
        expect(rest).toEqual({
          ...expectedListItem(sent, summary),
          project_id: projectId,
          pro_package_version: sent.pro_package_version ?? null,
          suppressed_issues: countSuppressed(sent.results),
        });
        expect(metadata).toEqual(Array.isArray(sent.metadata) ? {} : sent.metadata);
        if (!Array.isArray(sent.configuration)) {
          expect(configuration).toMatchObject(configurationWithoutPhpObjects(sent.configuration));
          expect(Object.keys(configuration).sort()).toEqual(Object.keys(sent.configuration).sort());
        }
        expect(results).toHaveLength(sent.results.length);
        // Same order as sent, each result with its issues, snippets and suppressed issues.
        for (const [index, result] of (sent.results as any[]).entries())
          expect(results[index], result.analyzer_id).toEqual(expectedResult(result));
      },
  );

/** The 201 of an upload: exact keys, `success: true`, `Report received.`; returns the report summary. */
function expectReceived(response: LightMyRequestResponse): { id: number; uuid: string } & Record<string, any> {
  expect(response.statusCode, response.body.slice(0, 500)).toBe(201);
  const body = expectClientAnswer(response);
  expect(Object.keys(body).sort()).toEqual(['gate', 'message', 'report', 'success']);
  expect(body.success).toBe(true);
  expect(body.message).toBe('Report received.');
  expect(Object.keys(body.report).sort()).toEqual(REPORT_SUMMARY_KEYS);
  expect(Number.isInteger(body.report.id)).toBe(true);
  expect(body.report.uuid).toMatch(UUID_V7);
  return body.report;
}

/** The report summary the service must answer for `sent`, all computed here from the body. */
function expectedSummary(sent: any, report: { id: number; uuid: string }) {
  return {
    id: report.id,
    uuid: report.uuid,
    ...countResults(sent.results),
    framework_version: sent.laravel_version ?? sent.framework_version ?? null,
    package_version: sent.package_version ?? null,
    total_execution_time: sent.total_execution_time,
    triggered_by: sent.triggered_by ?? null,
    analyzed_at: new Date(sent.analyzed_at).toISOString(),
    created_at: CLOCK_START,
  };
}

/**
 * The configuration as sent, without the fields a PHP sender may send as `[]` (php-quirks.test.ts
 * checks those are stored as `{}`).
 */
function configurationWithoutPhpObjects(configuration: any): Record<string, unknown> {
  const { ignore_errors: _i, environment_mapping: _e, categories: _c, ...rest } = configuration;
  return rest;
}

/**
 * E1.5: a list item adds the run's git context (from the metadata the client sent), the stored
 * gate and the changes: none for a project's first report.
 */
function expectedListItem(sent: any, summary: Record<string, any>) {
  const metadata = Array.isArray(sent.metadata) ? {} : (sent.metadata ?? {});
  return {
    ...summary,
    branch: metadata.git_branch ?? null,
    commit: metadata.git_commit ?? null,
    pull_request: metadata.pr_number ?? null,
    base_branch: metadata.base_branch ?? null,
    gate: { passed: true, reasons: [], dismissed: 0 },
    changes: { baseline: null, new: null, fixed: null, unchanged: null },
  };
}

describe('CLIENT-WIRE.md: every recorded client body is accepted and stored with recomputed counts', () => {
  const fixtures: { name: FixtureName; note: string }[] = [
    { name: 'report-small', note: '10 analyzers, every status and severity' },
    { name: 'report-full', note: '155 analyzers, suppressed issues, customised configuration' },
    { name: 'report-php-quirks', note: 'project_id unknown, [] objects, issues keyed by position' },
    { name: 'report-large', note: '4.3 MB, 3,972 issues, sent with Expect: 100-Continue' },
  ];

  for (const { name, note } of fixtures) {
    it(`accepts ${name} (${note}) with the client's headers and reads it back with the same counts`, async ({
      ctx,
      projectId,
      apiToken,
      expectReadsBack,
    }) => {
      const raw = fixtureText(name, projectId);
      const sent = JSON.parse(raw);
      // The exact bytes the client sent, with exactly its headers (request-headers.json): no Accept.
      const headers = name === 'report-large' ? { expect: '100-Continue' } : {};
      const response = await upload(ctx, apiToken, raw, { headers });
      const report = expectReceived(response);
      expectRateLimitHeaders(response, 60, 59);

      const summary = expectedSummary(sent, report);
      expect(report).toEqual(summary);
      // With no settings the gate has nothing to fail on.
      expect(response.json().gate).toEqual({
        passed: true,
        fail_on: null,
        fail_threshold: null,
        fail_on_new: null,
        reasons: [],
        dismissed: 0,
      });

      await expectReadsBack(sent, summary);
      expect(await storedRows(ctx)).toEqual({ reports: 1, failures: 0 });
    });
  }

  it('counts report-small to the numbers the fixture README states, as an independent check of the counting', async ({
    ctx,
    projectId,
    apiToken,
  }) => {
    const report = expectReceived(await upload(ctx, apiToken, fixtureText('report-small', projectId)));
    expect(report).toMatchObject({
      score: 56,
      total: 10,
      passed: 5,
      failed: 2,
      warnings: 1,
      skipped: 1,
      errors: 1,
      total_issues: 7,
      issues_by_severity: { critical: 3, high: 1, medium: 1, low: 1, info: 1 },
    });
  });

  it('counts report-php-quirks with its issues-as-object result included (9 issues)', async ({ ctx, apiToken }) => {
    const report = expectReceived(await upload(ctx, apiToken, fixtureText('report-php-quirks')));
    expect(report).toMatchObject({
      score: 38,
      total: 9,
      passed: 3,
      failed: 2,
      warnings: 2,
      skipped: 1,
      errors: 1,
      total_issues: 9,
      issues_by_severity: { critical: 2, high: 1, medium: 2, low: 2, info: 2 },
    });
  });
});

describe('CLIENT-WIRE.md: the summary is recomputed from results; the client summary is never used', () => {
  it('stores the recomputed summary when the sent summary is wrong in every count and the score', async ({
    ctx,
    projectId,
    apiToken,
    expectReadsBack,
  }) => {
    const sent = loadFixture('report-small', projectId);
    sent.summary = { ...allPassedSummary(999), suppressed_issues: { inline: 7, config: 7, baseline: 7, total: 21 } };
    const report = expectReceived(await upload(ctx, apiToken, sent));
    const summary = expectedSummary(sent, report);
    expect(report).toEqual(summary);
    expect(report.score).toBe(56);
    await expectReadsBack(sent, summary);

    // "the client's summary is kept only as sent"
    const row = await ctx.db.selectFrom('reports').select('client_summary').where('uuid', '=', report.uuid).executeTakeFirstOrThrow();
    expect(JSON.parse(row.client_summary!)).toEqual(sent.summary);
  });

  it("recomputes when the summary is left out, or sent as PHP's empty []", async ({ ctx, projectId, apiToken }) => {
    for (const summaryValue of [undefined, []]) {
      const sent = loadFixture('report-full', projectId);
      if (summaryValue === undefined) delete sent.summary;
      else sent.summary = summaryValue;
      const report = expectReceived(await upload(ctx, apiToken, sent));
      expect(report).toEqual(expectedSummary(sent, report));
    }
  });

  it("counts suppressed issues apart: they are not in total_issues but in the detail's suppressed_issues", async ({
    ctx,
    user,
    projectId,
    apiToken,
  }) => {
    const sent = loadFixture('report-full', projectId);
    const report = expectReceived(await upload(ctx, apiToken, sent));
    const suppressed = countSuppressed(sent.results);
    expect(suppressed).toEqual({ inline: 3, config: 1, baseline: 4, total: 8 });
    expect(report.total_issues).toBe(95);
    expect((await readReport(ctx, user, report.uuid)).suppressed_issues).toEqual(suppressed);
  });

  it('answers score 100 when every result was skipped (total - skipped = 0)', async ({ ctx, user, projectId, apiToken }) => {
    const sent = minimalReport({
      results: ['debug-mode', 'phpstan', 'view-caching'].map((id) => ({
        analyzer_id: id,
        status: 'skipped',
        message: 'Not applicable',
        issues: [],
        execution_time: 0,
        metadata: [],
        suppressed_issues: [],
      })),
    });
    const report = expectReceived(await upload(ctx, apiToken, sent));
    expect(report).toMatchObject({ score: 100, total: 3, skipped: 3, passed: 0, failed: 0, total_issues: 0 });
    expect((await readProject(ctx, user, projectId)).latest_report.score).toBe(100);
  });

  it('answers score 100 and total 0 for an empty results list', async ({ ctx, apiToken }) => {
    const report = expectReceived(await upload(ctx, apiToken, minimalReport({ results: [] })));
    expect(report).toMatchObject({ score: 100, total: 0, passed: 0, skipped: 0, total_issues: 0 });
  });

  it('rounds the score like the client: round(100 * passed / (total - skipped))', async ({ ctx, apiToken }) => {
    // 2 passed of 3 run (one skipped): 66.67 -> 67; 1 of 8: 12.5 -> 13 (halves round up).
    const result = (status: string) => ({ analyzer_id: `a-${Math.random()}`, status, message: '', issues: [], execution_time: 0 });
    const first = expectReceived(
      await upload(ctx, apiToken, minimalReport({ results: ['passed', 'passed', 'failed', 'skipped'].map(result) })),
    );
    expect(first.score).toBe(67);
    const second = expectReceived(
      await upload(ctx, apiToken, minimalReport({ results: ['passed', ...Array(7).fill('warning')].map(result) })),
    );
    expect(second.score).toBe(13);
  });
});

describe('CLIENT-WIRE.md "Older clients": POST /api/v1/reports is an alias of POST /api/reports', () => {
  it('accepts a fixture on the alias with the project token, with the same answer and read-back', async ({
    ctx,
    projectId,
    apiToken,
    expectReadsBack,
  }) => {
    const raw = fixtureText('report-small', projectId);
    const sent = JSON.parse(raw);
    const response = await upload(ctx, apiToken, raw, { url: '/api/v1/reports' });
    const report = expectReceived(response);
    // The upload limit applies (60 per project), not v1's per-user 120 or per-IP 10 (D8).
    expectRateLimitHeaders(response, 60, 59);
    const summary = expectedSummary(sent, report);
    expect(report).toEqual(summary);
    await expectReadsBack(sent, summary);
  });

  it('refuses a personal access token on the alias with 401 and success:false, storing nothing', async ({ ctx, user, projectId }) => {
    const response = await upload(ctx, user.token, fixtureText('report-small', projectId), { url: '/api/v1/reports' });
    expectClientUnauthenticated(response);
    expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 0 });
    expect((await readProject(ctx, user, projectId)).latest_report).toBeNull();
  });

  it('refuses a personal access token on POST /api/reports too', async ({ ctx, user, projectId }) => {
    expectClientUnauthenticated(await upload(ctx, user.token, fixtureText('report-small', projectId)));
    expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 0 });
  });

  it('accepts framework_version as an alias of laravel_version when laravel_version is absent', async ({
    ctx,
    user,
    projectId,
    apiToken,
  }) => {
    const sent = loadFixture('report-small', projectId);
    delete sent.laravel_version;
    sent.framework_version = '10.48.29';
    const report = expectReceived(await upload(ctx, apiToken, sent));
    expect(report.framework_version).toBe('10.48.29');
    expect((await readReport(ctx, user, report.uuid)).framework_version).toBe('10.48.29');
  });

  it("stores laravel_version as the report's framework_version", async ({ ctx, projectId, apiToken }) => {
    const report = expectReceived(await upload(ctx, apiToken, fixtureText('report-full', projectId)));
    expect(report.framework_version).toBe('12.21.0');
  });

  it('accepts an upload with only `results` (every other field optional)', async ({ ctx, user, projectId, apiToken }) => {
    const results = loadFixture('report-small').results;
    const sent = { results };
    const report = expectReceived(await upload(ctx, apiToken, sent));
    expect(report).toMatchObject({ ...countResults(results), framework_version: null, package_version: null, triggered_by: null });
    expect(report.analyzed_at).toMatch(ISO_UTC);
    const detail = await readReport(ctx, user, report.uuid);
    expect(detail).toMatchObject({ project_id: projectId, pro_package_version: null, metadata: {}, configuration: {} });
    expect((await readProject(ctx, user, projectId)).latest_report.uuid).toBe(report.uuid);
  });

  it('accepts a pre-1.6 body: no configuration, no suppressed_issues, no pro_package_version', async ({
    ctx,
    user,
    projectId,
    apiToken,
  }) => {
    const sent = loadFixture('report-small', projectId);
    delete sent.configuration;
    delete sent.pro_package_version;
    for (const result of sent.results) delete result.suppressed_issues;
    const report = expectReceived(await upload(ctx, apiToken, sent));
    expect(report).toEqual(expectedSummary(sent, report));
    const detail = await readReport(ctx, user, report.uuid);
    expect(detail.suppressed_issues).toEqual({ inline: 0, config: 0, baseline: 0, total: 0 });
    for (const result of detail.results) expect(result.suppressed_issues).toEqual([]);
  });
});

describe('CLIENT-WIRE.md "POST /api/reports/failure": failed runs are recorded', () => {
  it('answers 201 {success:true, message:"Failure recorded."} to failure.json and lists it under the project', async ({
    ctx,
    user,
    projectId,
    apiToken,
  }) => {
    const raw = fixtureText('failure', projectId);
    const sent = JSON.parse(raw);
    const response = await upload(ctx, apiToken, raw, { url: '/api/reports/failure' });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toEqual({ success: true, message: 'Failure recorded.' });
    expectClientAnswer(response);
    expectRateLimitHeaders(response, 60);

    const list = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/failures`, token: user.token });
    expect(list.statusCode).toBe(200);
    const { data, meta } = list.json();
    expect(meta).toMatchObject({ current_page: 1, per_page: 20, total: 1 });
    expect(data).toEqual([
      {
        id: expect.any(Number),
        uuid: expect.stringMatching(UUID_V7),
        failure_reason: 'uncaught_exception',
        failure_label: sent.failure_label,
        error_message: sent.error_message,
        triggered_by: 'ci_cd',
        framework_version: '11.44.2',
        package_version: '1.13.3.0',
        occurred_at: new Date(sent.occurred_at).toISOString(),
        metadata: sent.metadata,
        created_at: CLOCK_START,
      },
    ]);
    // A failed run is not a report.
    expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 1 });
    expect((await readProject(ctx, user, projectId)).latest_report).toBeNull();
  });

  it('records a failure sent with project_id "unknown" against the token\'s project', async ({ ctx, user, projectId, apiToken }) => {
    const sent = loadFixture('failure');
    sent.project_id = 'unknown';
    const response = await upload(ctx, apiToken, sent, { url: '/api/reports/failure' });
    expect(response.statusCode).toBe(201);
    const list = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/failures`, token: user.token });
    expect(list.json().meta.total).toBe(1);
  });

  it('lists failures newest occurred_at first', async ({ ctx, user, projectId, apiToken }) => {
    for (const occurred of ['2026-11-20T08:00:00+00:00', '2026-11-21T08:00:00+00:00', '2026-11-19T08:00:00+00:00']) {
      const sent = loadFixture('failure', projectId);
      sent.occurred_at = occurred;
      expect((await upload(ctx, apiToken, sent, { url: '/api/reports/failure' })).statusCode).toBe(201);
    }
    const list = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/failures`, token: user.token });
    expect(list.json().data.map((f: any) => f.occurred_at)).toEqual([
      '2026-11-21T08:00:00.000Z',
      '2026-11-20T08:00:00.000Z',
      '2026-11-19T08:00:00.000Z',
    ]);
  });
});

describe('D19 through uploads: latest_report follows analyzed_at, not upload order', () => {
  it('keeps the newer report as latest when an older analyzed_at is uploaded later', async ({ ctx, user, projectId, apiToken }) => {
    const newer = loadFixture('report-small', projectId);
    newer.analyzed_at = '2026-11-21T09:00:00+00:00';
    const older = loadFixture('report-full', projectId);
    older.analyzed_at = '2026-11-20T09:00:00+01:00';
    const first = expectReceived(await upload(ctx, apiToken, newer));
    const second = expectReceived(await upload(ctx, apiToken, older));
    expect(second.analyzed_at).toBe('2026-11-20T08:00:00.000Z');
    expect((await readProject(ctx, user, projectId)).latest_report).toEqual(first);
    const list = await listReports(ctx, user, projectId);
    expect(list.data.map((r: any) => r.uuid)).toEqual([first.uuid, second.uuid]);
  });
});

describe('CLIENT-WIRE.md: the GET a redirect would produce is never a success', () => {
  it('answers GET /api/reports with a JSON object whose success is false', async ({ ctx, apiToken }) => {
    const response = await clientCall(ctx, apiToken, undefined, { url: '/api/reports' });
    const body = expectClientAnswer(response);
    expect(body.success).toBe(false);
    expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 0 });
  });
});
