import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { expectApiHeaders, expectNotFound } from '../helpers/contract.js';
import { MISSING_REPORT } from '../helpers/endpoints.js';
import { toReportDetail } from '../../src/reports/answer/detail-shape.js';
import { createReportStore } from '../../src/reports/store/report-store.js';
import { REPORT_LIST_ITEM_KEYS, REPORT_SUMMARY_KEYS, issue, result, uploadBody } from '../helpers/reports-world.js';
import { analyzerCatalogue, loadFixture, uploadOk } from '../helpers/client-wire.js';

const it = appTest({ user: { plan: 'business' } }).extend('show', ({ ctx, user }) => async (uuid: string) => {
  const response = await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}`, token: user.token });
  expect(response.statusCode, response.body).toBe(200);
  expectApiHeaders(response);
  const body = response.json();
  expect(Object.keys(body)).toEqual(['data']);
  return body.data as Record<string, any>;
});

/** The detail adds these to the 2.2 summary keys. */
const DETAIL_KEYS = [
  ...REPORT_LIST_ITEM_KEYS,
  'configuration',
  'metadata',
  'pro_package_version',
  'project_id',
  'results',
  'suppressed_issues',
].sort();

const RESULT_KEYS = ['analyzer_id', 'analyzer_name', 'category', 'execution_time', 'issues', 'message', 'status', 'suppressed_issues'];

/** What the detail should show for an issue the client sent: code_snippet and metadata only when sent (non-empty). */
function expectedIssue(sent: Record<string, any>): Record<string, unknown> {
  const expected: Record<string, unknown> = {
    message: sent.message,
    severity: sent.severity,
    location: sent.location ?? null,
    recommendation: sent.recommendation,
    // E1.5: the reports here are their project's first: no baseline.
    fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
    change: null,
    // E8.3: nobody decided about any of them.
    state: expect.objectContaining({ status: 'open', updated_at: null }),
  };
  if (sent.code_snippet) expected.code_snippet = sent.code_snippet;
  if (sent.metadata && !Array.isArray(sent.metadata) && Object.keys(sent.metadata).length > 0) expected.metadata = sent.metadata;
  return expected;
}

describe('GET /api/v1/reports/{uuid}', () => {
  describe('the recorded full report (report-full.json)', () => {
    let sent: Record<string, any>;
    let data: Record<string, any>;
    let answer: Record<string, any>;
    it.beforeEach(async ({ ctx, projectId, apiToken, show }) => {
      sent = loadFixture('report-full', projectId);
      answer = await uploadOk(ctx, apiToken, sent);
      data = await show(answer.report.uuid);
    });

    it('has exactly the summary keys plus project_id, pro_package_version, suppressed_issues, metadata, configuration, results', () => {
      expect(Object.keys(data).sort()).toEqual(DETAIL_KEYS);
      expect(Object.keys(data.suppressed_issues).sort()).toEqual(['baseline', 'config', 'inline', 'total']);
    });

    it('carries the summary recomputed from the results, identical to the upload answer', ({ projectId }) => {
      const results = sent.results as { status: string; issues: { severity: string }[] }[];
      const count = (status: string) => results.filter((r) => r.status === status).length;
      const issues = results.flatMap((r) => r.issues);
      const severity = (s: string) => issues.filter((i) => i.severity === s).length;
      const passed = count('passed');
      const skipped = count('skipped');
      expect(data).toMatchObject({
        id: answer.report.id,
        uuid: answer.report.uuid,
        project_id: projectId,
        score: Math.round((100 * passed) / (results.length - skipped)),
        total: results.length,
        passed,
        failed: count('failed'),
        warnings: count('warning'),
        skipped,
        errors: count('error'),
        total_issues: issues.length,
        issues_by_severity: {
          critical: severity('critical'),
          high: severity('high'),
          medium: severity('medium'),
          low: severity('low'),
          info: severity('info'),
        },
        framework_version: sent.laravel_version,
        package_version: sent.package_version,
        pro_package_version: sent.pro_package_version,
        total_execution_time: sent.total_execution_time,
        triggered_by: sent.triggered_by,
        analyzed_at: new Date(sent.analyzed_at).toISOString(),
        created_at: '2026-11-21T10:00:00.000Z',
      });
      const summary = Object.fromEntries(REPORT_SUMMARY_KEYS.map((key) => [key, data[key]]));
      expect(summary).toEqual(answer.report);
    });

    it('returns the run metadata and the configuration as sent', () => {
      expect(data.metadata).toEqual(sent.metadata);
      expect(data.metadata).toMatchObject({
        git_branch: 'feature/checkout-hardening',
        git_commit: '3f9c2a1b7d4e5f60718293a4b5c6d7e8f9012345',
        ci_provider: 'github_actions',
        environment: 'production',
        php_version: '8.2.35',
      });
      expect(data.configuration).toEqual(sent.configuration);
    });

    it('counts suppressed issues by suppression type', () => {
      const suppressions = (sent.results as { suppressed_issues: { suppression: { type: string } }[] }[]).flatMap((r) =>
        r.suppressed_issues.map((s) => s.suppression.type),
      );
      const byType = (type: string) => suppressions.filter((t) => t === type).length;
      expect(suppressions.length).toBeGreaterThan(0);
      expect(data.suppressed_issues).toEqual({
        inline: byType('inline'),
        config: byType('config'),
        baseline: byType('baseline'),
        total: suppressions.length,
      });
    });

    it('lists every result in the order sent, named from its own metadata', () => {
      expect(data.results).toHaveLength(sent.results.length);
      for (const [index, shown] of (data.results as Record<string, any>[]).entries()) {
        const original = sent.results[index];
        expect(Object.keys(shown).sort()).toEqual(RESULT_KEYS);
        expect({ ...shown, issues: undefined, suppressed_issues: undefined }).toEqual({
          analyzer_id: original.analyzer_id,
          analyzer_name: original.metadata.name,
          category: original.metadata.category,
          status: original.status,
          message: original.message,
          execution_time: original.execution_time,
          issues: undefined,
          suppressed_issues: undefined,
        });
      }
    });

    it('shows each issue with message, severity, location, recommendation, and code_snippet/metadata only when sent', () => {
      let withSnippet = 0;
      let withoutSnippet = 0;
      let withoutLocation = 0;
      for (const [index, shown] of (data.results as Record<string, any>[]).entries()) {
        const original = sent.results[index];
        expect(shown.issues).toEqual(original.issues.map(expectedIssue));
        expect(shown.suppressed_issues).toEqual(
          // A suppressed issue is not an issue of the run: it gets no fingerprint or change (E1.2).
          original.suppressed_issues.map((s: Record<string, any>) => {
            const { fingerprint: _fingerprint, change: _change, state: _state, ...shownSuppressed } = expectedIssue(s);
            return { ...shownSuppressed, suppression: s.suppression };
          }),
        );
        for (const i of shown.issues) {
          if ('code_snippet' in i) withSnippet += 1;
          else withoutSnippet += 1;
          if (i.location === null) withoutLocation += 1;
        }
      }
      // The fixture exercises every branch.
      expect(withSnippet).toBeGreaterThan(0);
      expect(withoutSnippet).toBeGreaterThan(0);
      expect(withoutLocation).toBeGreaterThan(0);
    });

    it('keeps the code snippet lines keyed by line number', () => {
      const cashier = data.results.find((r: { analyzer_id: string }) => r.analyzer_id === 'cashier-paddle');
      const snippet = cashier.issues[0].code_snippet;
      expect(snippet.file).toBe('/tmp/real-client-app/app/Http/Controllers/OrderController.php');
      expect(snippet.target_line).toBe(37);
      expect(snippet.context_lines).toBe(8);
      expect(snippet.lines['37']).toBe('    public function show(Request $request, int $id)');
      expect(Object.keys(snippet.lines)[0]).toBe('29');
      expect('code_snippet' in cashier.issues[2]).toBe(false);
      expect(cashier.issues[1].metadata).toEqual({ threshold: 50, actual: 87 });
      expect('metadata' in cashier.issues[0]).toBe(false);
    });
  });

  describe('analyzer name and category', () => {
    const known = analyzerCatalogue();

    it('come from the catalogue when the result has no metadata or sends []', async ({ ctx, apiToken, show }) => {
      const withoutMetadata = known.get('app-key-security')!;
      const emptyMetadata = known.get('csrf-protection')!;
      expect(withoutMetadata).toBeDefined();
      expect(emptyMetadata).toBeDefined();
      const answer = await uploadOk(
        ctx,
        apiToken,
        uploadBody([result('app-key-security', 'passed'), result('csrf-protection', 'passed', [], { metadata: [] })]),
      );
      const data = await show(answer.report.uuid);
      expect(data.results.map((r: Record<string, unknown>) => [r.analyzer_id, r.analyzer_name, r.category])).toEqual([
        ['app-key-security', withoutMetadata.name, withoutMetadata.category],
        ['csrf-protection', emptyMetadata.name, emptyMetadata.category],
      ]);
    });

    it("prefer the result's own metadata over the catalogue", async ({ ctx, apiToken, show }) => {
      const answer = await uploadOk(
        ctx,
        apiToken,
        uploadBody([result('app-key-security', 'passed', [], { metadata: { name: 'Key Checker 2000', category: 'custom-cat' } })]),
      );
      const data = await show(answer.report.uuid);
      expect(known.get('app-key-security')!.name).not.toBe('Key Checker 2000');
      expect(data.results[0]).toMatchObject({ analyzer_name: 'Key Checker 2000', category: 'custom-cat' });
    });

    it('fall back to the catalogue field by field when the metadata lacks one', async ({ ctx, apiToken, show }) => {
      const entry = known.get('app-key-security')!;
      const answer = await uploadOk(
        ctx,
        apiToken,
        uploadBody([result('app-key-security', 'passed', [], { metadata: { name: 'Only A Name' } })]),
      );
      const data = await show(answer.report.uuid);
      expect(data.results[0]).toMatchObject({ analyzer_name: 'Only A Name', category: entry.category });
    });

    it('for an id the catalogue does not know: a name derived from the id and a null category', async ({ ctx, apiToken, show }) => {
      expect(known.has('custom-analyzer')).toBe(false);
      const answer = await uploadOk(ctx, apiToken, uploadBody([result('custom-analyzer', 'failed', ['low'])]));
      const data = await show(answer.report.uuid);
      expect(data.results[0]).toMatchObject({ analyzer_id: 'custom-analyzer', analyzer_name: 'Custom Analyzer', category: null });
    });
  });

  describe('a minimal upload', () => {
    it('shows nulls and empty objects for what an older client did not send', async ({ ctx, apiToken, show }) => {
      const answer = await uploadOk(ctx, apiToken, { results: [result('csrf-protection', 'passed')] });
      const data = await show(answer.report.uuid);
      expect(Object.keys(data).sort()).toEqual(DETAIL_KEYS);
      expect(data).toMatchObject({
        framework_version: null,
        package_version: null,
        pro_package_version: null,
        triggered_by: null,
        metadata: {},
        configuration: {},
        suppressed_issues: { inline: 0, config: 0, baseline: 0, total: 0 },
        // no analyzed_at sent: taken as the time of receipt
        analyzed_at: '2026-11-21T10:00:00.000Z',
      });
    });

    it('stores metadata [] as {} (CLIENT-WIRE.md quirks)', async ({ ctx, apiToken, show }) => {
      const answer = await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'passed')], { metadata: [], configuration: [] }));
      const data = await show(answer.report.uuid);
      expect(data.metadata).toEqual({});
      expect(data.configuration).toEqual({});
    });

    it('shows an issue without location as location null, and its location fields as sent', async ({ ctx, apiToken, show }) => {
      const answer = await uploadOk(
        ctx,
        apiToken,
        uploadBody([
          result('sql-injection', 'failed', [], {
            issues: [
              { ...issue('high', 'no location'), recommendation: 'Fix it.' },
              { ...issue('low', 'with location'), location: { file: 'app/Models/User.php', line: 12, column: 4 } },
            ],
          }),
        ]),
      );
      const data = await show(answer.report.uuid);
      const fingerprint = expect.stringMatching(/^[0-9a-f]{32}$/);
      const state = expect.objectContaining({ status: 'open' });
      expect(data.results[0].issues).toEqual([
        { message: 'no location', severity: 'high', location: null, recommendation: 'Fix it.', fingerprint, change: null, state },
        {
          message: 'with location',
          severity: 'low',
          location: { file: 'app/Models/User.php', line: 12, column: 4 },
          recommendation: '',
          fingerprint,
          change: null,
          state,
        },
      ]);
    });
  });

  describe('D2: timestamps in UTC with Z', () => {
    it('normalises an analyzed_at with offset to UTC', async ({ ctx, apiToken, show }) => {
      const answer = await uploadOk(
        ctx,
        apiToken,
        uploadBody([result('csrf-protection', 'passed')], { analyzed_at: '2026-05-12T11:00:00+02:00' }),
      );
      expect(answer.report.analyzed_at).toBe('2026-05-12T09:00:00.000Z');
      const data = await show(answer.report.uuid);
      expect(data.analyzed_at).toBe('2026-05-12T09:00:00.000Z');
      expect(data.created_at).toBe('2026-11-21T10:00:00.000Z');
    });
  });

  describe('D11: unknown or malformed ids', () => {
    it.for(['not-a-uuid', '12345', '0190a8f4-7c1d-7a4b-9f2e', `${MISSING_REPORT}x`])(
      'answers 404 for the malformed id %s',
      async (id, { ctx, user, apiToken }) => {
        await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'passed')]));
        expectNotFound(await ctx.request({ method: 'GET', url: `/api/v1/reports/${id}`, token: user.token }));
      },
    );

    it('answers 404 for a well-formed uuid that names no report', async ({ ctx, user, apiToken }) => {
      await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'passed')]));
      expectNotFound(await ctx.request({ method: 'GET', url: `/api/v1/reports/${MISSING_REPORT}`, token: user.token }));
    });

    it('answers 404 for a project id used as a report id', async ({ ctx, user, projectId, apiToken }) => {
      await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'passed')]));
      expectNotFound(await ctx.request({ method: 'GET', url: `/api/v1/reports/${projectId}`, token: user.token }));
    });

    it('makes no detail of a report deleted between reading its row and its issue rows (the route answers 404)', async ({
      ctx,
      user,
      apiToken,
    }) => {
      const { report } = await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'failed', ['high', 'low'])]));
      const row = (await createReportStore(ctx.db).findForMember(report.uuid, user.id))!;
      const marks = await createReportStore(ctx.db).issueMarks(row.id);
      const results = (await createReportStore(ctx.db).resultsOf(row.id))!;
      expect(toReportDetail(row, results, marks)!.results[0]!.issues).toHaveLength(2);
      expect(toReportDetail(row, results, [])).toBeNull();
    });
  });
});
