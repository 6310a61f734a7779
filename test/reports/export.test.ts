/**
 * E3 over HTTP: `GET /api/v1/reports/{report}/export?format=sarif|csv`. SARIF logs are validated
 * against the OASIS SARIF 2.1.0 schema (test/fixtures/sarif/, draft-04), CSV files are read back
 * with a strict RFC 4180 reader, and both are compared with the report detail, the oracle for a
 * report's issues (E1.5: fingerprint and change per issue).
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import Ajv04Module from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { createHeavyWork } from '../../src/reports/threads/heavy-work.js';
import { createReportExportService } from '../../src/reports/export/report-export.service.js';
import type { Clock } from '../../src/clock.js';
import type { Db } from '../../src/db/database.js';
import type { ReportRow } from '../../src/reports/store/report-rows.js';
import { createExportRowsRepository } from '../../src/reports/export/export-rows.js';
import {
  JSON_UTF8,
  NOT_FOUND,
  SUBSCRIPTION_REQUIRED,
  UNAUTHENTICATED,
  expectError,
  expectValidationError,
  freshAddress,
  missingAbility,
} from '../helpers/contract.js';
import { MISSING_REPORT } from '../helpers/endpoints.js';
import { sendRaw } from '../helpers/raw-http.js';
import { result, type UploadIssue, uploadBody } from '../helpers/reports-world.js';
import { loadFixture, SEVERITIES, type Severity, uploadOk } from '../helpers/client-wire.js';

// ---------------------------------------------------------------------------------------------
// The oracle: the official schema, a strict CSV reader, the report detail

/** The schema is JSON Schema draft-04 (`$schema`, `id`): Ajv's draft-04 class, with the formats it uses. */
const sarifSchema = JSON.parse(readFileSync(new URL('../fixtures/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8')) as {
  $schema: string;
};
const Ajv04 = Ajv04Module.default;
const ajv = new Ajv04({ allErrors: true, strict: false });
(addFormats as unknown as (ajv: InstanceType<typeof Ajv04>) => void)(ajv);
const validateSarif = ajv.compile(sarifSchema);

function expectValidSarif(log: unknown): void {
  const valid = validateSarif(log);
  expect(valid ? [] : ajv.errorsText(validateSarif.errors, { separator: '\n' }).split('\n').slice(0, 20)).toEqual([]);
}

/**
 * RFC 4180, strictly: records end with CRLF (ours always do, the last one too), fields are
 * separated by commas, a quoted field doubles its quotes, and an unquoted field holds no quote, CR
 * or LF. Anything else throws, so a writer that breaks the rules fails the test.
 */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let at = 0;
  while (at < text.length) {
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (text[at] === '"') {
        at += 1;
        for (;;) {
          const quote = text.indexOf('"', at);
          if (quote < 0) throw new Error(`unterminated quoted field at ${at}`);
          field += text.slice(at, quote);
          at = quote + 1;
          if (text[at] !== '"') break;
          field += '"';
          at += 1;
        }
      } else {
        const end = /[,\r\n"]/g;
        end.lastIndex = at;
        const stop = end.exec(text)?.index ?? text.length;
        if (text[stop] === '"' || (text[stop] === '\r' && text[stop + 1] !== '\n') || text[stop] === '\n') {
          throw new Error(`bare ${JSON.stringify(text[stop])} in an unquoted field at ${stop}`);
        }
        field = text.slice(at, stop);
        at = stop;
      }
      record.push(field);
      if (text[at] === ',') {
        at += 1;
        continue;
      }
      if (text.startsWith('\r\n', at)) {
        at += 2;
        break;
      }
      throw new Error(`expected a comma or CRLF at ${at}, found ${JSON.stringify(text.slice(at, at + 10))}`);
    }
    records.push(record);
  }
  return records;
}

const HEADER = ['analyzer_id', 'analyzer_name', 'category', 'severity', 'message', 'file', 'line', 'fingerprint', 'change', 'state'];
const LEVELS: Record<Severity, string> = { critical: 'error', high: 'error', medium: 'warning', low: 'note', info: 'note' };
const SRCROOT = '%SRCROOT%';
const NO_FILE_LOCATION = {
  physicalLocation: { artifactLocation: { uri: 'composer.json', uriBaseId: SRCROOT } },
  message: { text: 'This issue names no file; it is shown at the application root.' },
};
const FIXTURES = ['report-small', 'report-full', 'report-large', 'report-php-quirks'] as const;

/** An issue of the report detail, with its analyzer. */
interface DetailIssue {
  analyzer_id: string;
  analyzer_name: string;
  category: string | null;
  severity: Severity;
  message: string;
  location: { file: string; line?: number; column?: number } | null;
  fingerprint: string;
  change: 'new' | 'unchanged' | null;
}

/** A spreadsheet formula guard as E3 states it, for the oracle's own CSV rows. */
const guarded = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

function csvRowOf(issue: DetailIssue): string[] {
  return [
    guarded(issue.analyzer_id),
    guarded(issue.analyzer_name),
    guarded(issue.category ?? ''),
    issue.severity,
    guarded(issue.message),
    guarded(issue.location?.file ?? ''),
    issue.location?.line === undefined ? '' : String(issue.location.line),
    issue.fingerprint,
    issue.change ?? '',
    // E8.7: nobody decided about these issues (test/reports/export-states.test.ts decides).
    'open',
  ];
}

// ---------------------------------------------------------------------------------------------

/** A fresh app for each test, with a Business user and a project (the uploader) and the export's readers bound to them. */
const it = appTest({ user: { plan: 'business' } })
  .extend(
    'exportOf',
    ({ ctx, user }) =>
      (uuid: string, query: string, token: string | undefined = user.token) =>
        ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}/export${query}`, token }),
  )
  .extend('sarifOf', ({ exportOf }) => async (uuid: string): Promise<Record<string, any>> => {
    const response = await exportOf(uuid, '?format=sarif');
    expect(response.statusCode, response.body.slice(0, 500)).toBe(200);
    expect(response.headers['content-type']).toBe('application/sarif+json');
    const log = response.json();
    expectValidSarif(log);
    return log;
  })
  .extend('csvOf', ({ exportOf }) => async (uuid: string): Promise<{ text: string; records: string[][] }> => {
    const response = await exportOf(uuid, '?format=csv');
    expect(response.statusCode, response.body.slice(0, 500)).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    return { text: response.body, records: parseCsv(response.body) };
  })
  .extend('issuesOf', ({ ctx, user }) => async (uuid: string): Promise<DetailIssue[]> => {
    const response = await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}`, token: user.token });
    expect(response.statusCode).toBe(200);
    const results = response.json().data.results as (Record<string, any> & { issues: Record<string, any>[] })[];
    return results.flatMap((r) =>
      r.issues.map((issue) => ({
        ...(issue as DetailIssue),
        analyzer_id: r.analyzer_id,
        analyzer_name: r.analyzer_name,
        category: r.category,
      })),
    );
  })
  /** Uploads one analyzer's issues, as the client sends them; returns the report uuid. */
  .extend(
    'uploadIssues',
    ({ ctx, apiToken }) =>
      async (issues: (Partial<UploadIssue> & { analyzer?: string })[], extra: Record<string, unknown> = {}): Promise<string> => {
        const byAnalyzer = new Map<string, UploadIssue[]>();
        for (const { analyzer = 'sql-injection', ...issue } of issues) {
          byAnalyzer.set(analyzer, [
            ...(byAnalyzer.get(analyzer) ?? []),
            { message: 'An issue', severity: 'high', recommendation: '', ...issue },
          ]);
        }
        const results = [...byAnalyzer].map(([analyzer, list]) => result(analyzer, 'failed', [], { issues: list }));
        return (await uploadOk(ctx, apiToken, uploadBody(results, extra))).report.uuid as string;
      },
  );

describe('GET /api/v1/reports/{report}/export (E3)', () => {
  describe('SARIF', () => {
    it('gives one result per issue with its rule, level, message, location and fingerprint (report-full.json)', async ({
      ctx,
      projectId,
      apiToken,
      sarifOf,
      issuesOf,
    }) => {
      const sent = loadFixture('report-full', projectId);
      const uuid = (await uploadOk(ctx, apiToken, sent)).report.uuid as string;
      const log = await sarifOf(uuid);
      const issues = await issuesOf(uuid);

      expect(log.$schema).toBe('https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json');
      expect(log.version).toBe('2.1.0');
      expect(log.runs).toHaveLength(1);
      const [run] = log.runs;
      expect(run.tool.driver.name).toBe('Scoreboard');
      // The report's issues, then the 8 the client suppressed (E8.7, test/reports/export-states.test.ts).
      expect(run.results).toHaveLength(issues.length + 8);

      // Rules: exactly the analyzers with issues, each once, in the order of their first issue.
      const analyzers = [...new Map(issues.map((issue) => [issue.analyzer_id, issue])).values()];
      const described = new Map<string, Record<string, unknown>>(
        (sent.results as { analyzer_id: string; metadata: Record<string, unknown> }[]).map((r) => [r.analyzer_id, r.metadata]),
      );
      expect(run.tool.driver.rules).toEqual(
        analyzers.map((issue) => ({
          id: issue.analyzer_id,
          name: issue.analyzer_name,
          shortDescription: { text: issue.analyzer_name },
          // The client's own description of the analyzer is the help text (the catalogue has none).
          fullDescription: { text: described.get(issue.analyzer_id)!.description },
          help: { text: described.get(issue.analyzer_id)!.description },
          helpUri: described.get(issue.analyzer_id)!.docsUrl,
          properties: { category: issue.category, tags: [issue.category] },
        })),
      );

      run.results.slice(0, issues.length).forEach((sarif: Record<string, any>, i: number) => {
        const issue = issues[i]!;
        const region =
          issue.location?.line === undefined
            ? undefined
            : { startLine: issue.location.line, ...(issue.location.column !== undefined && { startColumn: issue.location.column }) };
        expect(sarif).toEqual({
          ruleId: issue.analyzer_id,
          ruleIndex: analyzers.findIndex((a) => a.analyzer_id === issue.analyzer_id),
          level: LEVELS[issue.severity],
          message: { text: issue.message },
          locations: [
            issue.location === null
              ? NO_FILE_LOCATION
              : { physicalLocation: { artifactLocation: { uri: issue.location.file, uriBaseId: SRCROOT }, ...(region && { region }) } },
          ],
          partialFingerprints: { 'scoreboard/v1': issue.fingerprint },
          properties: { severity: issue.severity, category: issue.category },
        });
      });
      // The fixture has issues of every shape the mapping distinguishes.
      expect(issues.some((issue) => issue.location === null)).toBe(true);
      expect(issues.some((issue) => issue.location !== null && issue.location.line === undefined)).toBe(true);
      expect(issues.some((issue) => issue.location?.column !== undefined)).toBe(true);
    });

    it.for(FIXTURES)(
      "is valid against the OASIS SARIF 2.1.0 schema, with the detail's fingerprints in order (%s.json)",
      async (name, { ctx, projectId, apiToken, sarifOf, issuesOf }) => {
        const uuid = (await uploadOk(ctx, apiToken, loadFixture(name, projectId))).report.uuid as string;
        const log = await sarifOf(uuid);
        const issues = await issuesOf(uuid);
        const [run] = log.runs;
        // The report's issues first; the client's suppressed issues after them, each marked so (E8.7).
        const own = run.results.slice(0, issues.length);
        expect(run.results.slice(issues.length).every((r: any) => r.suppressions?.length === 1 && !r.partialFingerprints)).toBe(true);
        expect(own.map((r: any) => r.partialFingerprints['scoreboard/v1'])).toEqual(issues.map((issue) => issue.fingerprint));
        expect(own.map((r: any) => r.level)).toEqual(issues.map((issue) => LEVELS[issue.severity]));
        expect(run.tool.driver.rules.map((rule: any) => rule.id)).toEqual([...new Set(issues.map((issue) => issue.analyzer_id))]);
        for (const r of run.results) expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
      },
    );

    it('maps critical and high to error, medium to warning, low and info to note', async ({ sarifOf, uploadIssues }) => {
      const uuid = await uploadIssues(SEVERITIES.map((severity) => ({ severity, message: `A ${severity} one` })));
      const { results } = (await sarifOf(uuid)).runs[0];
      expect(results.map((r: any) => [r.message.text, r.level, r.properties.severity])).toEqual([
        ['A critical one', 'error', 'critical'],
        ['A high one', 'error', 'high'],
        ['A medium one', 'warning', 'medium'],
        ['A low one', 'note', 'low'],
        ['A info one', 'note', 'info'],
      ]);
    });

    it('writes files as relative URI references under %SRCROOT%, percent-encoded; absolute paths as file URIs', async ({
      sarifOf,
      csvOf,
      uploadIssues,
    }) => {
      const files: [string, Record<string, unknown> | null][] = [
        ['app/Http/Kernel.php', { uri: 'app/Http/Kernel.php', uriBaseId: SRCROOT }],
        ['resources/views/my page #1?.blade.php', { uri: 'resources/views/my%20page%20%231%3F.blade.php', uriBaseId: SRCROOT }],
        ['app/100%.php', { uri: 'app/100%25.php', uriBaseId: SRCROOT }],
        ['app/Ünïcødé/日本.php', { uri: 'app/%C3%9Cn%C3%AFc%C3%B8d%C3%A9/%E6%97%A5%E6%9C%AC.php', uriBaseId: SRCROOT }],
        ['./app/Models/User.php', { uri: 'app/Models/User.php', uriBaseId: SRCROOT }],
        ['app\\Windows\\Path.php', { uri: 'app/Windows/Path.php', uriBaseId: SRCROOT }],
        ['c:weird.php', { uri: 'c%3Aweird.php', uriBaseId: SRCROOT }],
        ['/srv/app/config/app.php', { uri: 'file:///srv/app/config/app.php' }],
        ['C:\\work\\app\\x y.php', { uri: 'file:///C:/work/app/x%20y.php' }],
        ['./', null],
        ['', null],
      ];
      const uuid = await uploadIssues(files.map(([file], i) => ({ message: `Issue ${i}`, location: { file, line: i + 1 } })));
      const log = await sarifOf(uuid);
      const { results } = log.runs[0];
      expect(results.map((r: any) => r.locations[0].physicalLocation.artifactLocation)).toEqual(
        files.map(([, location]) => location ?? NO_FILE_LOCATION.physicalLocation.artifactLocation),
      );
      // A file that names nothing has no line to show either.
      expect(results.map((r: any) => r.locations[0].physicalLocation.region?.startLine)).toEqual(
        files.map(([, location], i) => (location === null ? undefined : i + 1)),
      );
      // The CSV keeps the file as sent.
      const { records } = await csvOf(uuid);
      expect(records.slice(1).map((record) => record[5])).toEqual(files.map(([file]) => file));
    });

    it('shows an issue without a location at the application root, with no region, and says so', async ({
      sarifOf,
      csvOf,
      uploadIssues,
    }) => {
      const uuid = await uploadIssues([
        { message: 'APP_DEBUG is on' },
        { message: 'No line', location: { file: 'config/app.php' } },
        { message: 'Line and column', location: { file: 'config/app.php', line: 12, column: 7 } },
      ]);
      const { results } = (await sarifOf(uuid)).runs[0];
      expect(results.map((r: any) => r.locations)).toEqual([
        [NO_FILE_LOCATION],
        [{ physicalLocation: { artifactLocation: { uri: 'config/app.php', uriBaseId: SRCROOT } } }],
        [
          {
            physicalLocation: {
              artifactLocation: { uri: 'config/app.php', uriBaseId: SRCROOT },
              region: { startLine: 12, startColumn: 7 },
            },
          },
        ],
      ]);
      const { records } = await csvOf(uuid);
      expect(records.slice(1).map((record) => [record[4], record[5], record[6]])).toEqual([
        ['APP_DEBUG is on', '', ''],
        ['No line', 'config/app.php', ''],
        ['Line and column', 'config/app.php', '12'],
      ]);
    });

    it('gives an analyzer the client did not describe no help text, and names it from the catalogue or its id', async ({
      sarifOf,
      uploadIssues,
    }) => {
      const uuid = await uploadIssues([{ analyzer: 'debug-mode' }, { analyzer: 'custom-thing' }]);
      const { rules } = (await sarifOf(uuid)).runs[0].tool.driver;
      expect(rules).toEqual([
        {
          id: 'debug-mode',
          name: expect.any(String),
          shortDescription: { text: expect.any(String) },
          properties: { category: expect.any(String), tags: [expect.any(String)] },
        },
        { id: 'custom-thing', name: 'Custom Thing', shortDescription: { text: 'Custom Thing' } },
      ]);
    });

    it('is an empty but valid log for a report without issues', async ({ ctx, apiToken, sarifOf, csvOf }) => {
      const uuid = (await uploadOk(ctx, apiToken, uploadBody([result('debug-mode', 'passed')]))).report.uuid as string;
      const log = await sarifOf(uuid);
      expect(log.runs[0].tool.driver.rules).toEqual([]);
      expect(log.runs[0].results).toEqual([]);
      const { records } = await csvOf(uuid);
      expect(records).toEqual([HEADER]);
    });
  });

  describe('against a baseline (E1)', () => {
    const main = { metadata: { git_branch: 'main' } };
    const A = { analyzer: 'sql-injection', severity: 'critical' as const, message: 'Raw SQL', location: { file: 'app/A.php', line: 1 } };
    const B = {
      analyzer: 'xss-vulnerabilities',
      severity: 'high' as const,
      message: 'Unescaped output',
      location: { file: 'app/B.php', line: 2 },
    };
    const C = { analyzer: 'debug-mode', severity: 'medium' as const, message: 'Debug on', location: { file: '.env', line: 3 } };

    it("states new and unchanged issues, and leaves out the baseline's fixed ones", async ({
      ctx,
      user,
      sarifOf,
      csvOf,
      issuesOf,
      uploadIssues,
    }) => {
      const first = await uploadIssues([A, B], { ...main, analyzed_at: '2026-11-21T08:00:00+00:00' });
      const second = await uploadIssues([B, C], { ...main, analyzed_at: '2026-11-21T09:00:00+00:00' });
      const [a] = await issuesOf(first);
      const issues = await issuesOf(second);
      expect(issues.map((issue) => [issue.message, issue.change])).toEqual([
        ['Unescaped output', 'unchanged'],
        ['Debug on', 'new'],
      ]);
      // The fixed issue is stored with the second report (E1.6)...
      const fixed = await ctx.request({ method: 'GET', url: `/api/v1/reports/${second}/changes?kind=fixed`, token: user.token });
      expect(fixed.json().data.map((item: any) => item.fingerprint)).toEqual([a!.fingerprint]);

      // ...and is in neither export.
      const { results, tool } = (await sarifOf(second)).runs[0];
      expect(results.map((r: any) => [r.partialFingerprints['scoreboard/v1'], r.baselineState])).toEqual(
        issues.map((issue) => [issue.fingerprint, issue.change]),
      );
      expect(tool.driver.rules.map((rule: any) => rule.id)).toEqual(['xss-vulnerabilities', 'debug-mode']);
      const { records } = await csvOf(second);
      expect(records).toEqual([HEADER, ...issues.map(csvRowOf)]);
      expect(records.map((record) => record[8])).toEqual(['change', 'unchanged', 'new']);
    });

    it('states no baseline state, and an empty change, for a report without a baseline', async ({ sarifOf, csvOf, uploadIssues }) => {
      const uuid = await uploadIssues([A], main);
      const [sarif] = (await sarifOf(uuid)).runs[0].results;
      expect(sarif).not.toHaveProperty('baselineState');
      const { records } = await csvOf(uuid);
      expect(records[1]![8]).toBe('');
    });
  });

  describe('CSV', () => {
    it.for(['report-full', 'report-php-quirks'] as const)(
      "reads back as exactly the report's issues (%s.json)",
      async (name, { ctx, projectId, apiToken, csvOf, issuesOf }) => {
        const uuid = (await uploadOk(ctx, apiToken, loadFixture(name, projectId))).report.uuid as string;
        const { text, records } = await csvOf(uuid);
        const issues = await issuesOf(uuid);
        // The header first (no byte order mark), every record ended by CRLF.
        expect(text.startsWith(`${HEADER.join(',')}\r\n`)).toBe(true);
        expect(records).toEqual([HEADER, ...issues.map(csvRowOf)]);
      },
    );

    it("prefixes every text cell that starts like a formula with ', and only those", async ({ csvOf, uploadIssues }) => {
      const starts = ['=SUM(A1:A9)', '+1 more', '-1 less', '@cmd', '\tTabbed', '\rCarriage', 'a=b is fine', " 'quoted' is fine"];
      const uuid = await uploadIssues([
        ...starts.map((message) => ({ message })),
        { analyzer: '-leading-dash', message: 'id', location: { file: '=HYPERLINK("http://x")', line: 5 } },
      ]);
      const { records } = await csvOf(uuid);
      expect(records.slice(1, starts.length + 1).map((record) => record[4])).toEqual([
        "'=SUM(A1:A9)",
        "'+1 more",
        "'-1 less",
        "'@cmd",
        "'\tTabbed",
        "'\rCarriage",
        'a=b is fine',
        " 'quoted' is fine",
      ]);
      const last = records[starts.length + 1]!;
      expect([last[0], last[4], last[5], last[6]]).toEqual(["'-leading-dash", 'id', '\'=HYPERLINK("http://x")', '5']);
    });

    it('quotes commas, quotes, CR and LF so that they round-trip; UTF-8 as is', async ({ exportOf, uploadIssues }) => {
      const messages = ['a, b', 'say "hi"', 'two\nlines', 'crlf\r\nline', 'plain', 'Ünïcødé ✓ 日本 😀', '"', ','];
      const uuid = await uploadIssues(messages.map((message) => ({ message, location: { file: 'dir, with "quotes"/x.php', line: 1 } })));
      const response = await exportOf(uuid, '?format=csv');
      expect(response.rawPayload.subarray(0, 3).toString('latin1')).toBe('ana');
      const records = parseCsv(response.rawPayload.toString('utf8'));
      expect(records.slice(1).map((record) => record[4])).toEqual(messages);
      expect(records.slice(1).map((record) => record[5])).toEqual(messages.map(() => 'dir, with "quotes"/x.php'));
      expect(response.body).toContain('"say ""hi"""');
    });

    it('quotes a cell holding ; or a tab (D35), so that a spreadsheet splitting on them sees no cell starting with =', async ({
      exportOf,
      uploadIssues,
    }) => {
      const messages = ["a;=cmd|' /C calc'!A0", 'x\t=1+1', 'semicolon; only'];
      const uuid = await uploadIssues(messages.map((message) => ({ message })));
      const response = await exportOf(uuid, '?format=csv');
      const lines = response.body.split('\r\n');
      expect(lines[1]).toContain(`,"a;=cmd|' /C calc'!A0",`);
      expect(lines[2]).toContain(',"x\t=1+1",');
      expect(lines[3]).toContain(',"semicolon; only",');
      expect(
        parseCsv(response.body)
          .slice(1)
          .map((record) => record[4]),
      ).toEqual(messages);
    });
  });

  describe('headers', () => {
    it.for([
      ['sarif', 'application/sarif+json'],
      ['csv', 'text/csv; charset=utf-8'],
    ])(
      '%s: a download named after the report, uncached, with D8 and the API security headers',
      async ([format, type], { exportOf, uploadIssues }) => {
        const uuid = await uploadIssues([{ message: 'x' }]);
        const response = await exportOf(uuid, `?format=${format}`);
        expect(response.statusCode).toBe(200);
        const h = response.headers;
        expect(h['content-type']).toBe(type);
        expect(h['content-disposition']).toBe(`attachment; filename="scoreboard-${uuid}.${format}"`);
        expect(h['cache-control']).toBe('no-store');
        expect(h['x-ratelimit-limit']).toBe('360');
        expect(h['x-ratelimit-remaining']).toMatch(/^\d+$/);
        expect(h['x-content-type-options']).toBe('nosniff');
        expect(h['x-frame-options']).toBe('DENY');
        expect(String(h['content-security-policy'])).toContain("default-src 'none'");
        expect(h['referrer-policy']).toBe('no-referrer');
        expect(h['cross-origin-resource-policy']).toBe('same-origin');
        expect(h['x-powered-by']).toBeUndefined();
      },
    );

    it('streams over a real connection: chunked, no Content-Length, every header on it', async ({
      ctx,
      user,
      projectId,
      apiToken,
      port,
    }) => {
      const uuid = (await uploadOk(ctx, apiToken, loadFixture('report-full', projectId))).report.uuid as string;
      for (const format of ['sarif', 'csv']) {
        const response = await sendRaw(port, {
          method: 'GET',
          target: `/api/v1/reports/${uuid}/export?format=${format}`,
          headers: [['Authorization', `Bearer ${user.token}`]],
        });
        expect(response.status).toBe(200);
        expect(response.headers['transfer-encoding']).toBe('chunked');
        expect(response.headers['content-length']).toBeUndefined();
        expect(response.headers['content-disposition']).toBe(`attachment; filename="scoreboard-${uuid}.${format}"`);
        expect(response.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
        expect(response.headers['content-security-policy']).toContain("default-src 'none'");
        if (format === 'sarif') expectValidSarif(JSON.parse(response.body));
        else expect(parseCsv(response.body)[0]).toEqual(HEADER);
      }
    });

    it('answers HEAD with the same headers and no body, reading no issue', async ({ ctx, user, exportOf, uploadIssues }) => {
      const uuid = await uploadIssues([{ message: 'x' }]);
      const get = await exportOf(uuid, '?format=csv');
      let issueQueries = 0;
      const stop = ctx.onQuery((text) => void (/from "report_issues"/.test(text) && (issueQueries += 1)));
      const head = await ctx.request({ method: 'HEAD', url: `/api/v1/reports/${uuid}/export?format=csv`, token: user.token });
      stop();
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
      expect(issueQueries).toBe(0);
      const ignored = new Set(['date', 'x-ratelimit-remaining', 'content-length', 'transfer-encoding']);
      const comparable = (headers: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(headers).filter(([name]) => !ignored.has(name)));
      expect(comparable(head.headers)).toEqual(comparable(get.headers));
    });
  });

  describe('streaming from the database', () => {
    /**
     * The export service on the real repositories, recording each batch it asks for when it asks
     * (a query in flight counts at once, and can be waited for).
     */
    function recordedExports(db: Db, clock: Clock) {
      const batches: Promise<unknown>[] = [];
      const service = createReportExportService({
        db,
        clock,
        heavyWork: createHeavyWork({ workerThreads: 0, workerQueueMax: 1, workerInlineMaxBytes: 0 }),
        rows: (() => {
          const rows = createExportRowsRepository(db);
          const issuesAfter: typeof rows.issuesAfter = (...args) => {
            const batch = rows.issuesAfter(...args);
            batches.push(batch);
            return batch;
          };
          return { ...rows, issuesAfter };
        })(),
      });
      return { service, batches, settled: () => Promise.allSettled(batches) };
    }
    const ticks = async (count: number) => {
      for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
    };

    it('reads a 3,000-issue report in batches of 500, only as fast as the stream is consumed', async ({
      ctx,
      projectId,
      apiToken,
      issuesOf,
    }) => {
      const uuid = (await uploadOk(ctx, apiToken, loadFixture('report-large', projectId))).report.uuid as string;
      const issues = (await issuesOf(uuid)).length;
      expect(issues).toBeGreaterThan(3000);
      const row = await ctx.db.selectFrom('reports').selectAll().where('uuid', '=', uuid).executeTakeFirstOrThrow();
      const report: ReportRow = { ...row, baseline_uuid: null, baseline_analyzed_at: null, baseline_branch: null, baseline_commit: null };

      for (const format of ['sarif', 'csv'] as const) {
        // Opened, not read: the first batch only (so that a failure there is still an error answer).
        const abandoned = recordedExports(ctx.db, ctx.clock);
        const stream = await abandoned.service.open(report, format);
        expect(stream.readable).toBe(true);
        await ticks(5);
        expect(abandoned.batches).toHaveLength(1);

        // A reader that takes one piece and goes away: at most the batch read ahead, never the rest.
        for await (const _piece of stream) break;
        await abandoned.settled();
        await ticks(5);
        expect(stream.destroyed).toBe(true);
        expect(abandoned.batches.length).toBeLessThanOrEqual(2);

        // Read to the end: one query per 500 issues, the last one short.
        const complete = recordedExports(ctx.db, ctx.clock);
        const chunks: Buffer[] = [];
        for await (const chunk of await complete.service.open(report, format)) chunks.push(chunk as Buffer);
        expect(complete.batches).toHaveLength(Math.floor(issues / 500) + 1);
        // Pieces of bounded size, never the whole document at once.
        const largest = Math.max(...chunks.map((chunk) => chunk.length));
        const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
        expect(chunks.length).toBeGreaterThan(Math.floor(issues / 500));
        expect(largest).toBeLessThan(total / 4);
        if (format === 'sarif') expect(JSON.parse(Buffer.concat(chunks).toString('utf8')).runs[0].results).toHaveLength(issues);
        else expect(parseCsv(Buffer.concat(chunks).toString('utf8'))).toHaveLength(issues + 1);
      }
    });

    it('answers a failure before the first byte with the D3 envelope, without the download headers', async ({
      ctx,
      exportOf,
      uploadIssues,
    }) => {
      const uuid = await uploadIssues([{ message: 'x' }]);
      await sql`alter table report_issues rename to report_issues_away`.execute(ctx.db);
      try {
        for (const format of ['sarif', 'csv']) {
          const response = await exportOf(uuid, `?format=${format}`);
          expectError(response, 500, { error: 'Server Error', message: 'Something went wrong on our side. Please try again later.' });
          expect(response.headers['content-type']).toBe(JSON_UTF8);
          expect(response.headers['content-disposition']).toBeUndefined();
          expect(response.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
        }
      } finally {
        await sql`alter table report_issues_away rename to report_issues`.execute(ctx.db);
      }
    });
  });

  describe('errors, in the order of D4', () => {
    it('answers 422 without a format, or with another one', async ({ exportOf, uploadIssues }) => {
      const uuid = await uploadIssues([{ message: 'x' }]);
      expectValidationError(await exportOf(uuid, ''), ['format'], { format: 'The format field is required.' });
      expect((await exportOf(uuid, '')).json().message).toBe('The format field is required.');
      for (const query of ['?format=pdf', '?format=SARIF', '?format=', '?format=sarif&format=csv']) {
        const response = await exportOf(uuid, query);
        expectValidationError(response, ['format'], { format: 'The selected format is invalid.' });
        expect(response.headers['x-ratelimit-remaining'], query).toMatch(/^\d+$/);
      }
    });

    it("answers 404 for another team's report, a missing one and a malformed id, before the format's 422", async ({
      ctx,
      exportOf,
      uploadIssues,
    }) => {
      const uuid = await uploadIssues([{ message: 'x' }]);
      const stranger = await ctx.given.user({ plan: 'business' });
      for (const query of ['?format=sarif', '?format=csv', '', '?format=pdf']) {
        expectError(await exportOf(uuid, query, stranger.token), 404, NOT_FOUND);
        expectError(await exportOf(MISSING_REPORT, query), 404, NOT_FOUND);
        expectError(await exportOf('not-a-uuid', query), 404, NOT_FOUND);
      }
      // The other team's answer says no more than a missing report's.
      expect((await exportOf(uuid, '?format=csv', stranger.token)).body).toBe((await exportOf(MISSING_REPORT, '?format=csv')).body);
    });

    it('answers 401, then 403 Subscription Required, then 403 for the ability, before 404 and 422', async ({
      ctx,
      user,
      exportOf,
      uploadIssues,
    }) => {
      const uuid = await uploadIssues([{ message: 'x' }]);
      const anonymous = await ctx.request({
        method: 'GET',
        url: `/api/v1/reports/${MISSING_REPORT}/export`,
        remoteAddress: freshAddress(),
      });
      expectError(anonymous, 401, UNAUTHENTICATED);

      const lapsed = await ctx.given.user({ plan: null });
      expectError(await exportOf(MISSING_REPORT, '', lapsed.token), 403, SUBSCRIPTION_REQUIRED);

      const noAbility = await ctx.given.token(user, { abilities: [] });
      expectError(await exportOf(MISSING_REPORT, '', noAbility), 403, missingAbility('read'));
      expectError(await exportOf(uuid, '?format=csv', noAbility), 403, missingAbility('read'));
    });

    it('lets every member of the team export, a readonly one too (D15 view)', async ({ ctx, user, exportOf, uploadIssues }) => {
      const uuid = await uploadIssues([{ message: 'x' }]);
      const reader = await ctx.given.user({ plan: 'solo', abilities: ['read'] });
      await ctx.given.member(user.teamId!, reader, 'readonly');
      const response = await exportOf(uuid, '?format=sarif', reader.token);
      expect(response.statusCode).toBe(200);
      expectValidSarif(response.json());
    });
  });
});

/** The SARIF schema itself: a vendored copy of the official file, used as it is. */
describe('test/fixtures/sarif', () => {
  it('is the draft-04 OASIS schema, and rejects what SARIF forbids', () => {
    expect(sarifSchema.$schema).toBe('http://json-schema.org/draft-04/schema#');
    expect((sarifSchema as { id?: string }).id).toBe(
      'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json',
    );
    const minimal = { version: '2.1.0', runs: [{ tool: { driver: { name: 'Scoreboard' } }, results: [] }] };
    expect(validateSarif(minimal)).toBe(true);
    expect(validateSarif({ ...minimal, version: '2.0.0' })).toBe(false);
    const result = (uri: string) => ({ message: { text: 'x' }, locations: [{ physicalLocation: { artifactLocation: { uri } } }] });
    expect(validateSarif({ ...minimal, runs: [{ ...minimal.runs[0], results: [result('app/a b.php')] }] })).toBe(false);
    expect(validateSarif({ ...minimal, runs: [{ ...minimal.runs[0], results: [result('app/a%20b.php')] }] })).toBe(true);
    expect(validateSarif({ ...minimal, runs: [{ ...minimal.runs[0], results: [{ message: { text: 'x' }, level: 'fatal' }] }] })).toBe(
      false,
    );
  });
});
