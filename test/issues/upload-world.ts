/**
 * Helpers for the E8.4/E8.5 upload tests: upload bodies built from issues at a file and line (their
 * fingerprints follow from analyzer, file, message and the target line's code, E1.2), the
 * fingerprints a report holds as its changes list shows them, and issue states, decided through
 * E8.2's PUT and read as stored (`issue_states`: what the upload moved).
 */
import { expect } from 'vitest';
import type { IssueStatus } from '../../src/issues/issue-vocabulary.js';
import { uploadOk, type Severity } from '../helpers/client-wire.js';
import type { TestContext, TestUser } from '../helpers/test-app.js';

/** An issue as the client sends it, at `file:line`, with the code of that line in its snippet. */
export interface Spot {
  analyzer: string;
  severity: Severity;
  message: string;
  file: string;
  line: number;
  code: string;
  /** The analyzer's result status (default `failed`): only failed analyzers' issues count for `fail_on`. */
  status?: 'failed' | 'warning';
}

export type Git = { git_branch?: string; git_commit?: string; pr_number?: string; base_branch?: string };

export const MAIN: Git = { git_branch: 'main', git_commit: 'a'.repeat(40) };

let runs = 0;

/** An upload body of `spots`; every body is another run (the same body twice would be a retry, D40). */
export function body(spots: Spot[], git: Git = MAIN, analyzedAt = '2026-11-21T09:00:00Z'): Record<string, unknown> {
  const byAnalyzer = new Map<string, Spot[]>();
  for (const spot of spots) byAnalyzer.set(spot.analyzer, [...(byAnalyzer.get(spot.analyzer) ?? []), spot]);
  return {
    analyzed_at: analyzedAt,
    total_execution_time: ++runs,
    metadata: { php_version: '8.3.4', ...git },
    results: [...byAnalyzer].map(([analyzer, issues]) => ({
      analyzer_id: analyzer,
      status: issues[0]!.status ?? 'failed',
      message: `${analyzer} found issues`,
      issues: issues.map((spot) => ({
        message: spot.message,
        severity: spot.severity,
        recommendation: '',
        location: { file: spot.file, line: spot.line },
        code_snippet: {
          file: `/srv/app/${spot.file}`,
          target_line: spot.line,
          lines: { [String(spot.line)]: `    ${spot.code}` },
          context_lines: 0,
        },
      })),
    })),
  };
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

/** Uploads `payload`; the answer (`{report, gate}`). */
export async function send(ctx: TestContext, apiToken: string, payload: Record<string, unknown>) {
  const answer = await uploadOk(ctx, apiToken, payload);
  return { uuid: answer.report.uuid as string, report: answer.report, gate: answer.gate as Record<string, any> };
}

/** GET as `user`, expecting 200; the body. */
export async function get(ctx: TestContext, user: TestUser, url: string): Promise<any> {
  const response = await ctx.request({ method: 'GET', url, token: user.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** The report's issues (not the baseline's fixed ones) from its changes list: fingerprint and what it is. */
export async function issuesOf(ctx: TestContext, user: TestUser, uuid: string): Promise<Record<string, any>[]> {
  const page = await get(ctx, user, `/api/v1/reports/${uuid}/changes`);
  return (page.data as Record<string, any>[]).filter((item) => item.change !== 'fixed');
}

/** The fingerprint of the report's issue at `spot`'s analyzer, file and line. */
export async function fingerprintOf(ctx: TestContext, user: TestUser, uuid: string, spot: Spot): Promise<string> {
  const found = (await issuesOf(ctx, user, uuid)).filter(
    (item) => item.analyzer_id === spot.analyzer && item.location?.file === spot.file && item.location?.line === spot.line,
  );
  expect(found).toHaveLength(1);
  return found[0]!.fingerprint as string;
}

/** Sets the project's gate settings (D14, E1.7). */
export async function setGate(
  ctx: TestContext,
  user: TestUser,
  projectId: string,
  settings: { fail_on?: string | null; fail_on_new?: string | null; fail_threshold?: number | null },
) {
  const response = await ctx.request({
    method: 'PUT',
    url: `/api/v1/projects/${projectId}`,
    token: user.token,
    body: { name: 'Project', framework_version: '11', settings },
  });
  expect(response.statusCode, response.body).toBe(200);
}

/** Decides about the issue through E8.2's PUT as `user`: `status` (a dismissal with a comment), an acceptance's expiry. */
export async function decide(
  ctx: TestContext,
  user: TestUser,
  projectId: string,
  fingerprint: string,
  status: IssueStatus,
  options: { expiresAt?: string } = {},
): Promise<Record<string, any>> {
  const response = await ctx.request({
    method: 'PUT',
    url: `/api/v1/projects/${projectId}/issues/${fingerprint}`,
    token: user.token,
    body: {
      status,
      ...(status !== 'open' && status !== 'confirmed' && { comment: `Decided ${status}` }),
      ...(options.expiresAt !== undefined && { expires_at: options.expiresAt }),
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

/** The project's states as stored, by fingerprint. */
export async function statesOf(ctx: TestContext, projectId: string) {
  const rows = await ctx.db.selectFrom('issue_states').selectAll().where('project_id', '=', projectId).execute();
  return new Map(rows.map((row) => [row.fingerprint, row]));
}

/** The report's database id (what `last_seen_report_id` holds). */
export async function reportId(ctx: TestContext, uuid: string): Promise<number> {
  return (await ctx.db.selectFrom('reports').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow()).id;
}

/** How many times the project's states changed (the stored answers' generation). */
export async function generationOf(ctx: TestContext, projectId: string): Promise<number> {
  const row = await ctx.db.selectFrom('issue_state_changes').select('generation').where('project_id', '=', projectId).executeTakeFirst();
  return row?.generation ?? 0;
}

/** The same spot with another line of code: another fingerprint, the same analyzer, file and message (E8.5's "reformatted"). */
export function reformatted(spot: Spot, code: string, line = spot.line): Spot {
  return { ...spot, code, line };
}
