/**
 * Helpers for the reports tests: minimal upload bodies built from the results a test names, and the
 * project settings that drive the quality gate (D14). The upload itself, the recorded fixtures, the
 * catalogue and the severities are client-wire.ts's.
 */
import { expect } from 'vitest';
import type { Severity, Status } from './client-wire.js';
import type { TestContext, TestUser } from './test-app.js';

export interface UploadIssue {
  message: string;
  severity: Severity;
  recommendation: string;
  [key: string]: unknown;
}

export interface UploadResult {
  analyzer_id: string;
  status: Status;
  message: string;
  issues: UploadIssue[];
  [key: string]: unknown;
}

/** A business-plan user with one project, ready to upload to it: where most reports tests start. */
export async function givenUploader(ctx: TestContext): Promise<{ user: TestUser; projectId: string; apiToken: string }> {
  const user = await ctx.given.user({ plan: 'business' });
  const { project, apiToken } = await ctx.given.project(user);
  return { user, projectId: project.id, apiToken };
}

/** An issue of the given severity, in the shape the client sends. */
export function issue(severity: Severity, message = `A ${severity} issue`): UploadIssue {
  return { message, severity, recommendation: '' };
}

/** One analyzer result with the given issues (by severity). */
export function result(analyzerId: string, status: Status, severities: Severity[] = [], extra: Record<string, unknown> = {}): UploadResult {
  return {
    analyzer_id: analyzerId,
    status,
    message: `${analyzerId} ${status}`,
    issues: severities.map((severity, i) => issue(severity, `${analyzerId} issue ${i + 1}`)),
    ...extra,
  };
}

/** A minimal upload body: `analyzed_at` plus the given results (everything else is optional). */
export function uploadBody(results: UploadResult[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { analyzed_at: '2026-11-21T09:00:00+00:00', results, ...extra };
}

/** Sets the project's gate settings through `PUT /api/v1/projects/{id}` (D13/D14). */
export async function setGate(
  ctx: TestContext,
  user: TestUser,
  projectId: string,
  settings: { fail_on?: string | null; fail_threshold?: number | null },
): Promise<void> {
  const response = await ctx.request({
    method: 'PUT',
    url: `/api/v1/projects/${projectId}`,
    token: user.token,
    body: { name: 'Project', framework_version: '11', settings },
  });
  expect(response.statusCode, response.body).toBe(200);
}

export { REPORT_LIST_ITEM_KEYS, REPORT_SUMMARY_KEYS } from '../projects/project-expectations.js';
