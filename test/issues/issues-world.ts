/**
 * Helpers for the E8 tests: uploads whose issues the test names (through the client package's
 * endpoint, as a client sends them), the fingerprints a report's changes list shows, and requests to
 * the state endpoints.
 */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { uploadOk, type Severity } from '../helpers/client-wire.js';
import type { TestContext } from '../helpers/test-app.js';

/** An issue as the client sends it, at `file:line`, with the code of that line in its snippet. */
export interface Spot {
  analyzer: string;
  severity: Severity;
  message: string;
  file?: string;
  line?: number;
  code?: string;
}

export const SQL: Spot = {
  analyzer: 'sql-injection',
  severity: 'critical',
  message: 'Raw SQL with user input',
  file: 'app/Orders.php',
  line: 40,
  code: 'DB::select("select * from orders where id = $id");',
};
export const XSS: Spot = {
  analyzer: 'xss-vulnerabilities',
  severity: 'high',
  message: 'Unescaped output',
  file: 'resources/views/a.blade.php',
  line: 7,
  code: '{!! $name !!}',
};
export const DEBUG: Spot = {
  analyzer: 'debug-mode',
  severity: 'medium',
  message: 'APP_DEBUG is true',
  file: '.env',
  line: 3,
  code: 'APP_DEBUG=true',
};

/** `count` distinct issues of one analyzer (each its own message, so its own fingerprint). */
export function manySpots(count: number, analyzer = 'code-smells'): Spot[] {
  return Array.from({ length: count }, (_, i) => ({
    analyzer,
    severity: 'low' as const,
    message: `Smell number ${i}`,
    file: `app/File${i % 50}.php`,
    line: i + 1,
  }));
}

export type Git = { git_branch?: unknown; git_commit?: unknown; pr_number?: unknown; base_branch?: unknown };

export const MAIN: Git = { git_branch: 'main', git_commit: 'a'.repeat(40) };

/** An upload body holding `spots`, on `git`'s branch, analysed at `analyzedAt`. */
export function body(spots: Spot[], git: Git = MAIN, analyzedAt = '2026-11-21T09:00:00Z'): Record<string, unknown> {
  const byAnalyzer = new Map<string, Spot[]>();
  for (const spot of spots) byAnalyzer.set(spot.analyzer, [...(byAnalyzer.get(spot.analyzer) ?? []), spot]);
  return {
    analyzed_at: analyzedAt,
    metadata: { php_version: '8.3.4', ...git },
    results: [...byAnalyzer].map(([analyzer, issues]) => ({
      analyzer_id: analyzer,
      status: 'failed',
      message: `${analyzer} found issues`,
      issues: issues.map((spot) => ({
        message: spot.message,
        severity: spot.severity,
        recommendation: '',
        ...(spot.file !== undefined && { location: { file: spot.file, line: spot.line } }),
        ...(spot.code !== undefined && {
          code_snippet: {
            file: `/srv/app/${spot.file}`,
            target_line: spot.line,
            lines: { [String(spot.line)]: `    ${spot.code}` },
            context_lines: 0,
          },
        }),
      })),
    })),
  };
}

/** Uploads with the project's API token (201 expected); the report's uuid. */
export async function uploadSpots(ctx: TestContext, apiToken: string, spots: Spot[], git: Git = MAIN, analyzedAt?: string) {
  return (await uploadOk(ctx, apiToken, body(spots, git, analyzedAt))).report.uuid as string;
}

/** A report's changes items (every page), as GET /reports/{report}/changes lists them. */
export async function changesOf(ctx: TestContext, token: string, uuid: string, query = ''): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  for (let page = 1; ; page++) {
    const response = await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}/changes?${query}page=${page}`, token });
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json();
    items.push(...answer.data);
    if (answer.links.next === null) return items;
  }
}

/** The fingerprint of the issue of `spot`'s analyzer and message in the report. */
export async function fingerprintOf(ctx: TestContext, token: string, uuid: string, spot: Spot): Promise<string> {
  const item = (await changesOf(ctx, token, uuid)).find(
    (candidate) => candidate.analyzer_id === spot.analyzer && candidate.message === spot.message && candidate.change !== 'fixed',
  );
  if (!item) throw new Error(`no issue ${spot.analyzer}: ${spot.message} in ${uuid}`);
  return item.fingerprint as string;
}

/** PUT /projects/{project}/issues/{fingerprint}. */
export function putState(ctx: TestContext, token: string, projectId: string, fingerprint: string, payload: unknown) {
  return ctx.request({ method: 'PUT', url: `/api/v1/projects/${projectId}/issues/${fingerprint}`, token, body: payload });
}

/** POST /projects/{project}/issues/bulk. */
export function bulk(ctx: TestContext, token: string, projectId: string, payload: unknown) {
  return ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/issues/bulk`, token, body: payload });
}

/** The answer's body, once its status is checked. */
export function ok(response: LightMyRequestResponse, status = 200): Record<string, any> {
  expect(response.statusCode, response.body).toBe(status);
  return response.json();
}

/** The keys of E8.1's state with its issue (what PUT and bulk answer). */
export const TRACKED_ISSUE_KEYS = [
  'assignee',
  'comment',
  'expires_at',
  'fingerprint',
  'issue',
  'last_seen_report',
  'previous_fingerprints',
  'status',
  'ticket',
  'updated_at',
  'updated_by',
];

export const ISSUE_NOT_FOUND = { error: 'Not Found', message: 'Issue not found.' } as const;
