/**
 * E8.7 over HTTP: what `GET /api/v1/reports/{report}/export` says of issue states and of the issues
 * the client suppressed. SARIF: a result under a dismissal in force at export time carries an
 * external suppression justified by its status and comment, and the client's suppressed issues
 * follow the report's own as suppressed results; every log is validated against the OASIS schema.
 * CSV: a last column `state`, the status at export time. Time is the app's fake clock.
 */
import { readFileSync } from 'node:fs';
import Ajv04Module from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { loadFixture, uploadOk } from '../helpers/client-wire.js';
import { givenIssueState } from '../helpers/issue-states.js';
import { result, uploadBody } from '../helpers/reports-world.js';

const sarifSchema = JSON.parse(readFileSync(new URL('../fixtures/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
const ajv = new Ajv04Module.default({ allErrors: true, strict: false });
(addFormats as unknown as (ajv: InstanceType<typeof Ajv04Module.default>) => void)(ajv);
const validateSarif = ajv.compile(sarifSchema);

const LEVELS: Record<string, string> = { critical: 'error', high: 'error', medium: 'warning', low: 'note', info: 'note' };

const it = appTest({ user: { plan: 'business' } })
  .extend('sarifOf', ({ ctx, user }) => async (uuid: string): Promise<Record<string, any>> => {
    const response = await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}/export?format=sarif`, token: user.token });
    expect(response.statusCode, response.body.slice(0, 500)).toBe(200);
    const log = response.json();
    const valid = validateSarif(log);
    expect(valid ? [] : ajv.errorsText(validateSarif.errors, { separator: '\n' }).split('\n').slice(0, 20)).toEqual([]);
    return log;
  })
  .extend('csvOf', ({ ctx, user }) => async (uuid: string): Promise<string[][]> => {
    const response = await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}/export?format=csv`, token: user.token });
    expect(response.statusCode, response.body.slice(0, 500)).toBe(200);
    // The fields these tests write hold no comma, quote or line break.
    return response.body
      .split('\r\n')
      .slice(0, -1)
      .map((line) => line.split(','));
  })
  .extend('fingerprintsOf', ({ ctx, user }) => async (uuid: string): Promise<string[]> => {
    const detail = (await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}`, token: user.token })).json().data;
    return (detail.results as { issues: { fingerprint: string }[] }[]).flatMap((r) => r.issues.map((issue) => issue.fingerprint));
  });

/** One analyzer's five issues, A to E. */
const FIVE = uploadBody([
  result('sql-injection', 'failed', [], {
    issues: ['A', 'B', 'C', 'D', 'E'].map((name, i) => ({
      message: `Issue ${name}`,
      severity: 'high',
      recommendation: '',
      location: { file: 'app/A.php', line: i + 1 },
    })),
  }),
]);

describe('GET /api/v1/reports/{report}/export: issue states (E8.7)', () => {
  it('marks each issue under a dismissal in force with an external suppression, and ends each CSV row with its state', async ({
    ctx,
    user,
    projectId,
    apiToken,
    sarifOf,
    csvOf,
    fingerprintsOf,
  }) => {
    const uuid = (await uploadOk(ctx, apiToken, FIVE)).report.uuid as string;
    const [a, b, c, d, e] = await fingerprintsOf(uuid);
    const at = ctx.clock.now().toISOString();
    await givenIssueState(ctx.db, at, projectId, a!, { status: 'false_positive', comment: 'Only in tests', updated_by_id: user.id });
    await givenIssueState(ctx.db, at, projectId, b!, { status: 'wont_fix', comment: 'Legacy code, going away' });
    await givenIssueState(ctx.db, at, projectId, c!, { status: 'accepted', comment: 'Risk accepted: internal tool' });
    await givenIssueState(ctx.db, at, projectId, d!, { status: 'confirmed', comment: 'Real, fix next sprint' });

    const { results } = (await sarifOf(uuid)).runs[0];
    expect(results.map((r: any) => [r.partialFingerprints['scoreboard/v1'], r.suppressions])).toEqual([
      [a, [{ kind: 'external', status: 'accepted', justification: 'false_positive: Only in tests' }]],
      [b, [{ kind: 'external', status: 'accepted', justification: 'wont_fix: Legacy code, going away' }]],
      [c, [{ kind: 'external', status: 'accepted', justification: 'accepted: Risk accepted: internal tool' }]],
      // Confirmed is no dismissal, and an issue nobody decided about is open.
      [d, undefined],
      [e, undefined],
    ]);

    const records = await csvOf(uuid);
    expect(records[0]).toEqual([
      'analyzer_id',
      'analyzer_name',
      'category',
      'severity',
      'message',
      'file',
      'line',
      'fingerprint',
      'change',
      'state',
    ]);
    expect(records.slice(1).map((record) => [record[7], record[9]])).toEqual([
      [a, 'false_positive'],
      [b, 'wont_fix'],
      [c, 'accepted'],
      [d, 'confirmed'],
      [e, 'open'],
    ]);
    expect(records.slice(1).every((record) => record.length === 10)).toBe(true);
  });

  it('treats an acceptance whose expiry has come as open: no suppression, state open', async ({
    ctx,
    projectId,
    apiToken,
    sarifOf,
    csvOf,
    fingerprintsOf,
  }) => {
    const uuid = (await uploadOk(ctx, apiToken, FIVE)).report.uuid as string;
    const [a, b] = await fingerprintsOf(uuid);
    const at = ctx.clock.now().toISOString();
    await givenIssueState(ctx.db, at, projectId, a!, {
      status: 'accepted',
      comment: 'Until the vendor patch',
      expires_at: '2026-11-22T10:00:00.000Z',
    });
    await givenIssueState(ctx.db, at, projectId, b!, { status: 'accepted', comment: 'For good' });

    const before = (await sarifOf(uuid)).runs[0].results;
    expect(before.slice(0, 2).map((r: any) => r.suppressions?.[0]?.justification)).toEqual([
      'accepted: Until the vendor patch',
      'accepted: For good',
    ]);
    expect((await csvOf(uuid)).slice(1, 3).map((record) => record[9])).toEqual(['accepted', 'accepted']);

    // A moment before the expiry it still holds; from the expiry on it reads open (E8.1).
    ctx.clock.set('2026-11-22T09:59:59.999Z');
    expect((await sarifOf(uuid)).runs[0].results[0].suppressions).toHaveLength(1);
    ctx.clock.set('2026-11-22T10:00:00.000Z');
    const after = (await sarifOf(uuid)).runs[0].results;
    expect(after[0]).not.toHaveProperty('suppressions');
    expect(after[1].suppressions).toEqual([{ kind: 'external', status: 'accepted', justification: 'accepted: For good' }]);
    expect((await csvOf(uuid)).slice(1, 3).map((record) => record[9])).toEqual(['open', 'accepted']);
  });

  it("reads only the report's project's states", async ({ ctx, user, projectId, apiToken, sarifOf, csvOf, fingerprintsOf }) => {
    const other = await ctx.given.project(user);
    const mine = (await uploadOk(ctx, apiToken, FIVE)).report.uuid as string;
    const theirs = (await uploadOk(ctx, other.apiToken, FIVE)).report.uuid as string;
    const [a] = await fingerprintsOf(mine);
    // The same issue in both projects: the same fingerprint (E1.2).
    expect((await fingerprintsOf(theirs))[0]).toBe(a);
    await givenIssueState(ctx.db, ctx.clock.now().toISOString(), other.project.id, a!, { status: 'wont_fix', comment: 'Theirs' });

    expect((await sarifOf(mine)).runs[0].results[0]).not.toHaveProperty('suppressions');
    expect((await csvOf(mine))[1]![9]).toBe('open');
    expect((await sarifOf(theirs)).runs[0].results[0].suppressions).toHaveLength(1);
    expect((await csvOf(theirs))[1]![9]).toBe('wont_fix');
    expect(projectId).not.toBe(other.project.id);
  });
});

describe("GET /api/v1/reports/{report}/export: the client's suppressed issues (E8.7)", () => {
  it("lists them after the report's issues, inline ones inSource, the others external, justified by their description (report-full.json)", async ({
    ctx,
    user,
    projectId,
    apiToken,
    sarifOf,
    csvOf,
  }) => {
    const uuid = (await uploadOk(ctx, apiToken, loadFixture('report-full', projectId))).report.uuid as string;
    const detail = (await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}`, token: user.token })).json().data;
    const issues = (detail.results as Record<string, any>[]).flatMap((r) => r.issues);
    const suppressed = (detail.results as Record<string, any>[]).flatMap((r) =>
      (r.suppressed_issues as Record<string, any>[]).map(
        (issue): Record<string, any> => ({ ...issue, analyzer_id: r.analyzer_id, category: r.category }),
      ),
    );
    expect(suppressed.map((issue) => issue.suppression.type).sort()).toEqual([
      'baseline',
      'baseline',
      'baseline',
      'baseline',
      'config',
      'inline',
      'inline',
      'inline',
    ]);

    const [run] = (await sarifOf(uuid)).runs;
    expect(run.results).toHaveLength(issues.length + suppressed.length);
    const ruleIds = run.tool.driver.rules.map((rule: any) => rule.id);
    run.results.slice(issues.length).forEach((sarif: Record<string, any>, i: number) => {
      const issue = suppressed[i]!;
      const location = issue.location as { file: string; line?: number; column?: number } | null;
      expect(sarif).toEqual({
        ruleId: issue.analyzer_id,
        ruleIndex: ruleIds.indexOf(issue.analyzer_id),
        level: LEVELS[issue.severity],
        message: { text: issue.message },
        locations: [
          location === null
            ? expect.objectContaining({ physicalLocation: { artifactLocation: { uri: 'composer.json', uriBaseId: '%SRCROOT%' } } })
            : {
                physicalLocation: {
                  artifactLocation: { uri: location.file, uriBaseId: '%SRCROOT%' },
                  ...(location.line !== undefined && {
                    region: { startLine: location.line, ...(location.column !== undefined && { startColumn: location.column }) },
                  }),
                },
              },
        ],
        suppressions: [
          {
            kind: issue.suppression.type === 'inline' ? 'inSource' : 'external',
            status: 'accepted',
            justification: issue.suppression.description,
          },
        ],
        properties: { severity: issue.severity, category: issue.category, suppression_type: issue.suppression.type },
      });
    });
    // The report's own issues carry no suppression: nobody dismissed any.
    expect(run.results.slice(0, issues.length).some((r: any) => 'suppressions' in r)).toBe(false);
    // The CSV lists the report's issues only, as E3 does.
    expect(await csvOf(uuid)).toHaveLength(issues.length + 1);
  });

  it('gives an analyzer with only suppressed issues a rule; a suppression without a description has no justification', async ({
    ctx,
    apiToken,
    sarifOf,
  }) => {
    const suppressedIssue = (message: string, suppression: unknown) => ({ message, severity: 'low', recommendation: '', suppression });
    const body = uploadBody([
      result('sql-injection', 'failed', ['critical']),
      result('debug-mode', 'passed', [], {
        suppressed_issues: [
          suppressedIssue('Ignored inline', { type: 'inline' }),
          suppressedIssue('Ignored another way', { type: 'ignore-file', description: 'the client may add types' }),
          suppressedIssue('Ignored with no word', []),
        ],
      }),
    ]);
    const uuid = (await uploadOk(ctx, apiToken, body)).report.uuid as string;
    const [run] = (await sarifOf(uuid)).runs;
    expect(run.tool.driver.rules.map((rule: any) => rule.id)).toEqual(['sql-injection', 'debug-mode']);
    expect(run.results.map((r: any) => [r.ruleId, r.ruleIndex, r.message.text, r.suppressions, r.properties.suppression_type])).toEqual([
      ['sql-injection', 0, 'sql-injection issue 1', undefined, undefined],
      ['debug-mode', 1, 'Ignored inline', [{ kind: 'inSource', status: 'accepted' }], 'inline'],
      [
        'debug-mode',
        1,
        'Ignored another way',
        [{ kind: 'external', status: 'accepted', justification: 'the client may add types' }],
        'ignore-file',
      ],
      ['debug-mode', 1, 'Ignored with no word', [{ kind: 'external', status: 'accepted' }], undefined],
    ]);
  });
});
