/**
 * CLIENT-WIRE.md "Quirks of a PHP sender", one quirk at a time: what PHP's json_encode makes of the
 * client's arrays and numbers is accepted and stored in the canonical shape.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { decodeResults } from '../../src/reports/results/results-encoding.js';
import { freshAddress } from '../helpers/contract.js';
import {
  clientCall,
  expectClientAnswer,
  expectClientUnauthenticated,
  minimalReport,
  readProject,
  readReport,
  storedRows,
  upload,
} from '../helpers/client-wire.js';

const it = appTest
  /** Uploads `body` (an object, or raw JSON text to control key order) and returns the stored detail. */
  .extend(
    'uploadAndRead',
    ({ apiToken, ctx, user }) =>
      async function uploadAndRead(body: unknown): Promise<Record<string, any>> {
        const report = expectReceived(await upload(ctx, apiToken, body));
        return readReport(ctx, user, report.uuid);
      },
  )
  /** The stored JSON of the only report's column. */
  .extend(
    'storedJson',
    ({ ctx }) =>
      async function storedJson(column: 'results' | 'metadata' | 'configuration'): Promise<any> {
        if (column === 'results')
          return decodeResults(await ctx.db.selectFrom('reports').select(['results', 'results_br']).executeTakeFirstOrThrow());
        const row = await ctx.db.selectFrom('reports').select(column).executeTakeFirstOrThrow();
        return JSON.parse(row[column] as string);
      },
  );

function expectReceived(response: LightMyRequestResponse): Record<string, any> {
  expect(response.statusCode, response.body.slice(0, 500)).toBe(201);
  const body = expectClientAnswer(response);
  expect(body).toMatchObject({ success: true, message: 'Report received.' });
  return body.report;
}

/** One failed result with the given issues (list or raw object). */
const resultWith = (issues: unknown, extra: Record<string, unknown> = {}) => ({
  analyzer_id: 'sql-injection',
  status: 'failed',
  message: 'Found issues',
  issues,
  execution_time: 0.25,
  metadata: { name: 'SQL Injection Analyzer', category: 'security' },
  suppressed_issues: [],
  ...extra,
});

const issue = (message: string, extra: Record<string, unknown> = {}) => ({
  message,
  severity: 'high',
  recommendation: 'Fix it.',
  location: { file: 'app/Models/User.php', line: 10 },
  ...extra,
});

describe('Quirk: an empty PHP associative array arrives as [] and is stored as {}', () => {
  it('stores and returns top-level metadata [] as {}', async ({ uploadAndRead, storedJson }) => {
    const detail = await uploadAndRead(minimalReport({ metadata: [] }));
    expect(detail.metadata).toEqual({});
    expect(await storedJson('metadata')).toEqual({});
  });

  it('stores and returns top-level configuration [] as {}', async ({ uploadAndRead, storedJson }) => {
    const detail = await uploadAndRead(minimalReport({ configuration: [] }));
    expect(detail.configuration).toEqual({});
    expect(await storedJson('configuration')).toEqual({});
  });

  it('stores configuration.ignore_errors, environment_mapping and categories sent as [] as {}', async ({ uploadAndRead, storedJson }) => {
    // "with the default configuration configuration.ignore_errors and configuration.environment_mapping always do"
    const configuration = {
      paths: ['app'],
      excluded_paths: [],
      categories: [],
      disabled_analyzers: [],
      dont_report: [],
      ignore_errors: [],
      environment_mapping: [],
      ci_mode: false,
      ci_mode_analyzers: [],
      ci_mode_exclude_analyzers: [],
      timeout: 300,
      memory_limit: '512M',
      fail_on: 'high',
      fail_threshold: null,
    };
    const detail = await uploadAndRead(minimalReport({ configuration }));
    const expected = { ...configuration, categories: {}, ignore_errors: {}, environment_mapping: {} };
    expect(detail.configuration).toEqual(expected);
    expect(await storedJson('configuration')).toEqual(expected);
  });

  it('accepts results[].metadata [] and names the analyzer from the catalogue', async ({ uploadAndRead, storedJson }) => {
    const detail = await uploadAndRead(
      minimalReport({
        results: [
          {
            analyzer_id: 'debug-mode',
            status: 'passed',
            message: 'ok',
            issues: [],
            execution_time: 0.1,
            metadata: [],
            suppressed_issues: [],
          },
        ],
      }),
    );
    // analyzers.json: debug-mode is "Debug Mode" in "security".
    expect(detail.results[0]).toMatchObject({ analyzer_id: 'debug-mode', analyzer_name: 'Debug Mode', category: 'security' });
    expect((await storedJson('results'))[0].metadata).toEqual({});
  });

  it('derives the name of an analyzer unknown to the catalogue, sent with metadata [], and gives it no category', async ({
    uploadAndRead,
  }) => {
    const detail = await uploadAndRead(
      minimalReport({
        results: [
          { analyzer_id: 'custom-analyzer', status: 'failed', message: 'x', issues: [issue('a')], execution_time: 2, metadata: [] },
        ],
      }),
    );
    expect(detail.results[0]).toMatchObject({ analyzer_id: 'custom-analyzer', analyzer_name: 'Custom Analyzer', category: null });
  });

  it("prefers the name and category the result's metadata gives over the catalogue", async ({ uploadAndRead }) => {
    const detail = await uploadAndRead(
      minimalReport({
        results: [
          {
            analyzer_id: 'debug-mode',
            status: 'passed',
            message: 'ok',
            issues: [],
            execution_time: 0,
            metadata: { id: 'debug-mode', name: 'Debug Mode Analyzer', category: 'reliability' },
          },
        ],
      }),
    );
    expect(detail.results[0]).toMatchObject({ analyzer_name: 'Debug Mode Analyzer', category: 'reliability' });
  });

  it('accepts code_snippet.lines [] and returns lines {}', async ({ uploadAndRead }) => {
    const snippet = { file: '/tmp/app/app/Models/User.php', target_line: 3, lines: [], context_lines: 8 };
    const detail = await uploadAndRead(minimalReport({ results: [resultWith([issue('empty snippet', { code_snippet: snippet })])] }));
    expect(detail.results[0].issues[0].code_snippet).toEqual({ ...snippet, lines: {} });
  });

  it('accepts issue metadata [] and leaves metadata out of the issue (only sent non-empty metadata is shown)', async ({
    uploadAndRead,
    storedJson,
  }) => {
    const detail = await uploadAndRead(minimalReport({ results: [resultWith([issue('no metadata', { metadata: [] })])] }));
    const shown = detail.results[0].issues[0];
    expect(shown).toEqual({
      message: 'no metadata',
      severity: 'high',
      recommendation: 'Fix it.',
      location: { file: 'app/Models/User.php', line: 10 },
      // E1.5: the first report of a project has no baseline.
      fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
      change: null,
      // E8.3: nobody decided about it.
      state: expect.objectContaining({ fingerprint: shown.fingerprint, status: 'open' }),
    });
    expect((await storedJson('results'))[0].issues[0].metadata ?? {}).toEqual({});
  });

  it('accepts suppression [] on a suppressed issue', async ({ ctx, apiToken }) => {
    const response = await upload(
      ctx,
      apiToken,
      minimalReport({ results: [resultWith([], { suppressed_issues: [{ ...issue('s'), suppression: [] }] })] }),
    );
    expect(response.statusCode, response.body).toBe(201);
  });
});

describe('Quirk: a filtered PHP list keeps its keys and arrives as an object keyed by position', () => {
  it('returns issues {"2","10","1"} as the list of values in numeric key order 1, 2, 10', async ({ ctx, user, apiToken }) => {
    // Raw text: a JavaScript object literal would reorder integer keys before we could send them.
    const raw =
      '{"project_id":"unknown","results":[{"analyzer_id":"xss-vulnerabilities","status":"warning","message":"m",' +
      '"issues":{"2":{"message":"two","severity":"low","recommendation":""},' +
      '"10":{"message":"ten","severity":"critical","recommendation":""},' +
      '"1":{"message":"one","severity":"info","recommendation":""}},' +
      '"execution_time":0.1,"metadata":[],"suppressed_issues":[]}]}';
    const response = await upload(ctx, apiToken, raw);
    const report = expectReceived(response);
    expect(report).toMatchObject({ total_issues: 3, issues_by_severity: { critical: 1, high: 0, medium: 0, low: 1, info: 1 } });
    const detail = await readReport(ctx, user, report.uuid);
    expect(Array.isArray(detail.results[0].issues)).toBe(true);
    expect(detail.results[0].issues.map((i: any) => i.message)).toEqual(['one', 'two', 'ten']);
  });

  it('accepts the keyed object the client\'s ignore filter leaves ({"1":…,"2":…}) and counts every value', async ({ uploadAndRead }) => {
    const detail = await uploadAndRead(
      minimalReport({ results: [resultWith({ 1: issue('first', { severity: 'low' }), 2: issue('second', { severity: 'medium' }) })] }),
    );
    expect(detail.total_issues).toBe(2);
    expect(detail.issues_by_severity).toEqual({ critical: 0, high: 0, medium: 1, low: 1, info: 0 });
    expect(detail.results[0].issues.map((i: any) => i.message)).toEqual(['first', 'second']);
  });

  it('accepts suppressed_issues as a keyed object and returns them as a list', async ({ uploadAndRead }) => {
    const suppressed = { ...issue('hidden'), suppression: { type: 'baseline', description: 'baseline hash: abc' } };
    const detail = await uploadAndRead(minimalReport({ results: [resultWith([], { suppressed_issues: { 3: suppressed } })] }));
    expect(detail.results[0].suppressed_issues).toEqual([
      {
        message: 'hidden',
        severity: 'high',
        recommendation: 'Fix it.',
        location: { file: 'app/Models/User.php', line: 10 },
        suppression: { type: 'baseline', description: 'baseline hash: abc' },
      },
    ]);
    expect(detail.suppressed_issues).toEqual({ inline: 0, config: 0, baseline: 1, total: 1 });
    expect(detail.total_issues).toBe(0);
  });
});

describe('Quirk: code_snippet.lines keyed 0..n-1 arrives as a JSON list', () => {
  it('returns a lines list as an object keyed "0".."n-1"', async ({ uploadAndRead }) => {
    const snippet = {
      file: '/tmp/app/resources/views/orders/index.blade.php',
      target_line: 2,
      lines: ["@extends('layouts.app')", '', "@section('content')"],
      context_lines: 8,
    };
    const detail = await uploadAndRead(minimalReport({ results: [resultWith([issue('list lines', { code_snippet: snippet })])] }));
    expect(detail.results[0].issues[0].code_snippet).toEqual({
      ...snippet,
      lines: { 0: "@extends('layouts.app')", 1: '', 2: "@section('content')" },
    });
  });

  it('keeps lines sent as an object keyed by line number as they are', async ({ uploadAndRead }) => {
    const lines = { 41: '    public function index()', 42: '    {', 43: '        return view("x");' };
    const snippet = { file: '/tmp/app/app/A.php', target_line: 42, lines, context_lines: 1 };
    const detail = await uploadAndRead(minimalReport({ results: [resultWith([issue('object lines', { code_snippet: snippet })])] }));
    expect(detail.results[0].issues[0].code_snippet.lines).toEqual({ '41': lines[41], '42': lines[42], '43': lines[43] });
  });
});

describe('Quirk: PHP floats may arrive as integers', () => {
  it('accepts execution_time 2 and 0 and total_execution_time 3, returning them as numbers', async ({ uploadAndRead }) => {
    const body = minimalReport({
      total_execution_time: 3,
      results: [
        { analyzer_id: 'debug-mode', status: 'passed', message: '', issues: [], execution_time: 2, metadata: [] },
        { analyzer_id: 'phpstan', status: 'skipped', message: '', issues: [], execution_time: 0, metadata: [] },
      ],
    });
    const detail = await uploadAndRead(body);
    expect(detail.total_execution_time).toBe(3);
    expect(detail.results.map((r: any) => r.execution_time)).toEqual([2, 0]);
  });

  it('still accepts real floats', async ({ uploadAndRead }) => {
    const detail = await uploadAndRead(minimalReport({ total_execution_time: 0.0001 }));
    expect(detail.total_execution_time).toBe(0.0001);
  });
});

describe('Quirk: project_id is "unknown" when the user did not configure it', () => {
  it('stores a report sent with project_id "unknown" under the token\'s project', async ({ ctx, user, projectId, apiToken }) => {
    const report = expectReceived(await upload(ctx, apiToken, minimalReport({ project_id: 'unknown' })));
    expect((await readReport(ctx, user, report.uuid)).project_id).toBe(projectId);
    expect((await readProject(ctx, user, projectId)).latest_report.uuid).toBe(report.uuid);
  });

  it("accepts the project's own id, also in upper case", async ({ ctx, projectId, apiToken }) => {
    expectReceived(await upload(ctx, apiToken, minimalReport({ project_id: projectId })));
    expectReceived(await upload(ctx, apiToken, minimalReport({ project_id: projectId.toUpperCase() })));
  });

  it('treats a left-out or null project_id like "unknown" (older clients)', async ({ ctx, apiToken }) => {
    const body = minimalReport();
    delete body.project_id;
    expectReceived(await upload(ctx, apiToken, body));
    expectReceived(await upload(ctx, apiToken, minimalReport({ project_id: null })));
    expect(await storedRows(ctx)).toEqual({ reports: 2, failures: 0 });
  });
});

describe('Quirk: with no token configured the client sends just "Bearer"', () => {
  const calls = [
    { name: 'POST /api/reports', url: '/api/reports', body: minimalReport() },
    { name: 'POST /api/reports/failure', url: '/api/reports/failure', body: { project_id: 'unknown', failure_reason: 'no_analyzers_ran' } },
    { name: 'GET /api/project', url: '/api/project', body: undefined },
  ];
  for (const { name, url, body } of calls) {
    it(`answers ${name} with "Authorization: Bearer" by 401 {success:false}`, async ({ ctx }) => {
      const response = await clientCall(ctx, '', body, { url, remoteAddress: freshAddress() });
      expectClientUnauthenticated(response);
    });
  }

  it('answers GET /api/token/verify with "Authorization: Bearer" by 401 {success:false, valid:false}', async ({ ctx }) => {
    const response = await clientCall(ctx, '', undefined, { url: '/api/token/verify', remoteAddress: freshAddress() });
    expectClientUnauthenticated(response, { valid: false });
  });

  it('stores nothing for an upload with an empty Bearer', async ({ ctx }) => {
    await clientCall(ctx, '', minimalReport(), { remoteAddress: freshAddress() });
    expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 0 });
  });
});

describe('Quirk: the client sends no Accept header', () => {
  it('answers every client call without an Accept header in JSON with its success status', async ({ ctx, apiToken }) => {
    const calls = [
      { url: '/api/reports', body: minimalReport(), status: 201 },
      { url: '/api/reports/failure', body: { project_id: 'unknown', failure_reason: 'uncaught_exception' }, status: 201 },
      { url: '/api/token/verify', body: undefined, status: 200 },
      { url: '/api/project', body: undefined, status: 200 },
    ];
    for (const { url, body, status } of calls) {
      const response = await clientCall(ctx, apiToken, body, { url, headers: { accept: undefined } });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(status);
      expect(expectClientAnswer(response).success).toBe(true);
    }
  });

  it('does not care about an unusual Accept either', async ({ ctx, apiToken }) => {
    const response = await upload(ctx, apiToken, minimalReport(), { headers: { accept: 'text/html' } });
    expect(response.statusCode).toBe(201);
    expect(expectClientAnswer(response).success).toBe(true);
  });
});

describe('Quirk: location line/column only mean something from 1 on', () => {
  it('drops a line or column below 1 and keeps the rest of the location', async ({ uploadAndRead }) => {
    const detail = await uploadAndRead(
      minimalReport({
        results: [
          resultWith([
            issue('zero both', { location: { file: 'a.php', line: 0, column: 0 } }),
            issue('negative line', { location: { file: 'b.php', line: -1, column: 5 } }),
            issue('zero column', { location: { file: 'c.php', line: 1, column: 0 } }),
            issue('good', { location: { file: 'd.php', line: 7, column: 3 } }),
            issue('file only', { location: { file: 'e.php' } }),
            issue('null location', { location: null }),
          ]),
        ],
      }),
    );
    expect(detail.results[0].issues.map((i: any) => i.location)).toEqual([
      { file: 'a.php' },
      { file: 'b.php', column: 5 },
      { file: 'c.php', line: 1 },
      { file: 'd.php', line: 7, column: 3 },
      { file: 'e.php' },
      null,
    ]);
  });

  it('returns location null for an issue sent without one, and recommendation "" when sent empty', async ({ uploadAndRead }) => {
    const sent = { message: 'bare', severity: 'info', recommendation: '' };
    const detail = await uploadAndRead(minimalReport({ results: [resultWith([sent])] }));
    expect(detail.results[0].issues[0]).toEqual({
      message: 'bare',
      severity: 'info',
      recommendation: '',
      location: null,
      fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
      change: null,
      state: expect.objectContaining({ status: 'open' }),
    });
  });
});
