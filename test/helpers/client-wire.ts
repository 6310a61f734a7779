/**
 * What the published client package sends and expects (CLIENT-WIRE.md): its recorded fixtures, its
 * headers, the one upload helper of the suite (`upload`, `uploadOk`), the analyzer catalogue, the
 * severities, and the checks every `/api` answer must pass. Bodies built from named results are
 * in reports-world.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { JSON_UTF8, expectFieldErrors, expectNoInternals } from './contract.js';
import { countRows, type TestContext, type TestUser } from './test-app.js';

/** The recorded request bodies of the published client (a copy of shared/fixtures/reports). */
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/client-wire/reports', import.meta.url));

/** The project id written into the fixtures (report-php-quirks.json says `unknown` instead). */
export const FIXTURE_PROJECT_ID = '0190c8a0-0000-7000-8000-000000000001';

export type FixtureName = 'report-small' | 'report-full' | 'report-php-quirks' | 'report-large' | 'failure';

const rawCache = new Map<FixtureName, string>();

/** The fixture's exact bytes (as text), with the fixture project id replaced by `projectId`. */
export function fixtureText(name: FixtureName, projectId?: string): string {
  let raw = rawCache.get(name);
  if (raw === undefined) {
    raw = readFileSync(join(FIXTURES_DIR, `${name}.json`), 'utf8');
    rawCache.set(name, raw);
  }
  return projectId === undefined ? raw : raw.split(FIXTURE_PROJECT_ID).join(projectId);
}

/** The fixture parsed, with the fixture project id replaced by `projectId` (a fresh copy each call). */
export function loadFixture(name: FixtureName, projectId?: string): any {
  return JSON.parse(fixtureText(name, projectId));
}

/** CLIENT-WIRE.md / request-headers.json: what Guzzle sends on a POST. No Accept header. */
export const CLIENT_POST_HEADERS = { 'user-agent': 'GuzzleHttp/7', 'content-type': 'application/json' } as const;
/** ... and on a GET: no Content-Type, no Accept. */
export const CLIENT_GET_HEADERS = { 'user-agent': 'GuzzleHttp/7' } as const;

export interface ClientCallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  url?: string;
  /** Extra or replacing headers; a header set to `undefined` is left out. */
  headers?: Record<string, string | undefined>;
  remoteAddress?: string;
}

/**
 * A request the way the client package makes it: `Authorization: Bearer <token>` (just `Bearer` for
 * an empty token, `null` for no header at all), `User-Agent: GuzzleHttp/7`, no Accept; a body (an
 * object is serialised, a string or Buffer sent as is) gets `Content-Type: application/json`.
 */
export function clientCall(
  ctx: TestContext,
  token: string | null,
  body?: unknown,
  options: ClientCallOptions = {},
): Promise<LightMyRequestResponse> {
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { ...(body === undefined ? CLIENT_GET_HEADERS : CLIENT_POST_HEADERS) };
  if (token !== null) headers.authorization = token === '' ? 'Bearer' : `Bearer ${token}`;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  let payload: string | Buffer | undefined;
  if (body !== undefined) payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return ctx.app.inject({
    method,
    url: options.url ?? '/api/reports',
    headers,
    payload,
    ...(options.remoteAddress !== undefined && { remoteAddress: options.remoteAddress }),
  });
}

/** `POST /api/reports` (or `options.url`) with the client's headers. */
export function upload(
  ctx: TestContext,
  token: string | null,
  body: unknown,
  options: Omit<ClientCallOptions, 'method'> = {},
): Promise<LightMyRequestResponse> {
  return clientCall(ctx, token, body, { ...options, method: 'POST' });
}

/** Uploads and expects 201; returns the answer body (`{success, message, report, gate}`). */
export async function uploadOk(ctx: TestContext, apiToken: string, body: unknown): Promise<Record<string, any>> {
  const response = await upload(ctx, apiToken, body);
  expect(response.statusCode, response.body).toBe(201);
  const answer = response.json();
  expect(answer.success).toBe(true);
  return answer;
}

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];
export type Status = 'passed' | 'failed' | 'warning' | 'skipped' | 'error';

export interface ExpectedCounts {
  score: number;
  total: number;
  passed: number;
  failed: number;
  warnings: number;
  skipped: number;
  errors: number;
  total_issues: number;
  issues_by_severity: Record<Severity, number>;
}

/** A client `summary` claiming `passed` analyzers, all passed, no issue: what the service must never trust. */
export function allPassedSummary(passed: number): ExpectedCounts {
  return { ...noCounts(), total: passed, passed, score: 100 };
}

/** Nothing counted: every status, issue and severity at 0. */
function noCounts(): ExpectedCounts {
  return {
    score: 0,
    total: 0,
    passed: 0,
    failed: 0,
    warnings: 0,
    skipped: 0,
    errors: 0,
    total_issues: 0,
    issues_by_severity: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
  };
}

/**
 * The summary the service must compute, counted here from the body's `results` (the client's own
 * `summary` is never read): issues may be a list or an object keyed by position; suppressed
 * issues are not issues; score = round(100 * passed / (total - skipped)), 100 when nothing ran.
 */
export function countResults(results: any[]): ExpectedCounts {
  const counts: ExpectedCounts = { ...noCounts(), total: results.length };
  const byStatus: Record<string, keyof ExpectedCounts> = {
    passed: 'passed',
    failed: 'failed',
    warning: 'warnings',
    skipped: 'skipped',
    error: 'errors',
  };
  for (const result of results) {
    const key = byStatus[result.status];
    if (key === undefined) throw new Error(`unexpected status ${result.status}`);
    (counts[key] as number) += 1;
    const issues: any[] = Array.isArray(result.issues) ? result.issues : Object.values(result.issues ?? {});
    for (const issue of issues) {
      counts.total_issues += 1;
      counts.issues_by_severity[issue.severity as Severity] += 1;
    }
  }
  const ran = counts.total - counts.skipped;
  counts.score = ran === 0 ? 100 : Math.round((100 * counts.passed) / ran);
  return counts;
}

/**
 * CLIENT-WIRE.md "How the client reads the answer": a JSON object with boolean `success` and string
 * `message`, never internals. Returns the body.
 */
export function expectClientAnswer(response: LightMyRequestResponse): Record<string, any> {
  expect(response.statusCode, response.body).toBeLessThan(500);
  expect(response.headers['content-type']).toBe(JSON_UTF8);
  expectNoInternals(response);
  const body = response.json();
  expect(body !== null && typeof body === 'object' && !Array.isArray(body)).toBe(true);
  expect(typeof body.success).toBe('boolean');
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  return body;
}

/**
 * An `/api` error: exact status, `{success: false, error, message[, ...extra]}` and nothing else.
 * `message` may be an exact string or a pattern. Returns the body.
 */
export function expectClientError(
  response: LightMyRequestResponse,
  status: number,
  error: string,
  message?: string | RegExp,
  extra: Record<string, unknown> = {},
): Record<string, any> {
  expect(response.statusCode, response.body).toBe(status);
  const body = expectClientAnswer(response);
  expect(Object.keys(body).sort()).toEqual(['error', 'message', 'success', ...Object.keys(extra)].sort());
  expect(body.success).toBe(false);
  expect(body.error).toBe(error);
  if (typeof message === 'string') expect(body.message).toBe(message);
  else if (message instanceof RegExp) expect(body.message).toMatch(message);
  for (const [key, value] of Object.entries(extra)) expect(body[key]).toEqual(value);
  return body;
}

/** D3's 401 on /api, plus `success: false` (CLIENT-WIRE.md). */
export function expectClientUnauthenticated(response: LightMyRequestResponse, extra: Record<string, unknown> = {}): void {
  expectClientError(response, 401, 'Unauthenticated', 'Authentication required.', extra);
}

/**
 * An `/api` 422: `{success:false, error:'Validation Failed', message, errors}` with exactly `fields`
 * as keys of `errors`, each a non-empty list of strings, and `message` the first field message.
 */
export function expectClientValidationError(response: LightMyRequestResponse, fields: string[]): Record<string, any> {
  expect(response.statusCode, response.body).toBe(422);
  const body = expectClientAnswer(response);
  expect(Object.keys(body).sort()).toEqual(['error', 'errors', 'message', 'success']);
  expect(body.success).toBe(false);
  expectFieldErrors(body, fields);
  expect(body.message).toBe(Object.values(body.errors as Record<string, string[]>)[0]![0]);
  return body;
}

/** CLIENT-WIRE.md "Rate limit for uploads ... with the same headers as D8": on every answer. */
export function expectRateLimitHeaders(response: LightMyRequestResponse, limit: number, remaining?: number): void {
  expect(response.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(response.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  if (remaining !== undefined) expect(response.headers['x-ratelimit-remaining']).toBe(String(remaining));
  if (response.statusCode !== 429) expect(response.headers['retry-after']).toBeUndefined();
}

/** Rows in `reports` and `run_failures`, to prove a refused request stored nothing. */
export async function storedRows(ctx: TestContext): Promise<{ reports: number; failures: number }> {
  return { reports: await countRows(ctx.db, 'reports'), failures: await countRows(ctx.db, 'run_failures') };
}

/** `GET /api/v1/projects/{id}` as `user`: the project (with latest_report and settings). */
export async function readProject(ctx: TestContext, user: TestUser, projectId: string): Promise<Record<string, any>> {
  const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}`, token: user.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

/** `GET /api/v1/reports/{uuid}` as `user`: the report detail. */
export async function readReport(ctx: TestContext, user: TestUser, uuid: string): Promise<Record<string, any>> {
  const response = await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}`, token: user.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

/** `GET /api/v1/projects/{id}/reports` as `user`: the whole envelope. */
export async function listReports(ctx: TestContext, user: TestUser, projectId: string, page = 1): Promise<Record<string, any>> {
  const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/reports?page=${page}`, token: user.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** A minimal valid upload for `projectId` (or for the token's project when left out). */
export function minimalReport(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    project_id: 'unknown',
    laravel_version: '11.44.2',
    package_version: 'v1.13.3',
    pro_package_version: null,
    triggered_by: 'manual',
    analyzed_at: '2026-11-21T09:00:00+00:00',
    total_execution_time: 1.5,
    summary: {},
    results: [
      { analyzer_id: 'debug-mode', status: 'passed', message: 'ok', issues: [], execution_time: 0.5, metadata: [], suppressed_issues: [] },
      {
        analyzer_id: 'sql-injection',
        status: 'failed',
        message: 'Found 1 issue',
        issues: [{ message: 'Raw query', severity: 'high', recommendation: 'Bind it.', location: { file: 'app/A.php', line: 3 } }],
        execution_time: 1,
        metadata: [],
        suppressed_issues: [],
      },
    ],
    metadata: { php_version: '8.3.0' },
    configuration: [],
    ...overrides,
  };
}

interface CatalogueEntry {
  id: string;
  name: string;
  category: string;
}
let catalogue: Map<string, CatalogueEntry> | undefined;
/** shared/data/analyzers.json, as copied into the repository's resources/. */
export function analyzerCatalogue(): Map<string, CatalogueEntry> {
  catalogue ??= new Map(
    (JSON.parse(readFileSync(new URL('../../resources/analyzers.json', import.meta.url), 'utf8')) as CatalogueEntry[]).map((entry) => [
      entry.id,
      entry,
    ]),
  );
  return catalogue;
}

const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** A list, or PHP's object keyed by position: the values in ascending numeric key order. */
export function listOfValues(value: unknown): any[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  return Object.keys(value as object)
    .sort((a, b) => Number(a) - Number(b))
    .map((key) => (value as Record<string, unknown>)[key]);
}

/** How GET /api/v1/reports/{uuid} must show an issue the client sent (CLIENT-WIRE.md, reports brief). */
export function expectedIssue(issue: any): Record<string, unknown> {
  const expected: Record<string, unknown> = {
    message: issue.message,
    severity: issue.severity,
    location: null,
    recommendation: issue.recommendation ?? '',
  };
  if (issue.location) {
    const location: Record<string, unknown> = { file: issue.location.file };
    if (typeof issue.location.line === 'number' && issue.location.line >= 1) location.line = issue.location.line;
    if (typeof issue.location.column === 'number' && issue.location.column >= 1) location.column = issue.location.column;
    expected.location = location;
  }
  if (issue.code_snippet) {
    const lines = issue.code_snippet.lines;
    expected.code_snippet = {
      file: issue.code_snippet.file ?? null,
      target_line: issue.code_snippet.target_line ?? null,
      lines: Array.isArray(lines) ? Object.fromEntries(lines.map((text: string, i: number) => [String(i), text])) : (lines ?? {}),
      context_lines: issue.code_snippet.context_lines ?? null,
    };
  }
  if (issue.metadata && !Array.isArray(issue.metadata) && Object.keys(issue.metadata).length > 0) expected.metadata = issue.metadata;
  return expected;
}

/** How the report detail must show a result: name and category from its metadata, the catalogue, or the id. */
/**
 * The detail of a result as sent. Its issues carry a fingerprint (E1.2, checked in shape here),
 * `change` (E1.5): null for a report without a baseline, such as a project's first, and their state
 * (E8.3): open, nobody having decided about them.
 */
export function expectedResult(result: any, change: 'new' | 'unchanged' | null = null): Record<string, unknown> {
  const metadata = result.metadata && !Array.isArray(result.metadata) ? result.metadata : {};
  const known = analyzerCatalogue().get(result.analyzer_id);
  const derived = (result.analyzer_id as string)
    .split(/[-_\s]+/)
    .filter((w) => w !== '')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
  return {
    analyzer_id: result.analyzer_id,
    analyzer_name: nonEmpty(metadata.name) ?? known?.name ?? derived,
    category: nonEmpty(metadata.category) ?? known?.category ?? null,
    status: result.status,
    message: result.message ?? '',
    execution_time: result.execution_time ?? 0,
    issues: listOfValues(result.issues).map((issue) => ({
      ...expectedIssue(issue),
      fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
      change,
      state: expect.objectContaining({ status: 'open', updated_at: null }),
    })),
    suppressed_issues: listOfValues(result.suppressed_issues).map((issue) => ({
      ...expectedIssue(issue),
      suppression: issue.suppression,
    })),
  };
}

/** The suppressed-issue counts of a body's results, by suppression type. */
export function countSuppressed(results: any[]): { inline: number; config: number; baseline: number; total: number } {
  const counts = { inline: 0, config: 0, baseline: 0, total: 0 };
  for (const result of results) {
    for (const issue of listOfValues(result.suppressed_issues)) {
      const type = issue.suppression?.type as 'inline' | 'config' | 'baseline';
      if (type in counts) counts[type] += 1;
      counts.total += 1;
    }
  }
  return counts;
}
