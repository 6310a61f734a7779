/**
 * Helpers for the reports tests: minimal upload bodies built from the results a test names, the
 * upload itself through the client endpoint (CLIENT-WIRE.md), the recorded fixtures, and the
 * project settings that drive the quality gate (D14).
 */
import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestContext, TestUser } from './test-app.js';

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';
export type Status = 'passed' | 'failed' | 'warning' | 'skipped' | 'error';

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

/** The project id the recorded fixtures carry; replaced by the test project's id before sending. */
export const FIXTURE_PROJECT_ID = '0190c8a0-0000-7000-8000-000000000001';

/** A recorded client body (`test/fixtures/client-wire/reports/<name>.json`) addressed to `projectId`. */
export function fixture<T = any>(name: string, projectId: string): T {
  const text = readFileSync(new URL(`../fixtures/client-wire/reports/${name}.json`, import.meta.url), 'utf8');
  return JSON.parse(text.split(FIXTURE_PROJECT_ID).join(projectId)) as T;
}

/** The analyzer catalogue (`resources/analyzers.json`), read independently of src/. */
export function catalogue(): Map<string, { id: string; name: string; category: string }> {
  const entries = JSON.parse(readFileSync(new URL('../../resources/analyzers.json', import.meta.url), 'utf8')) as {
    id: string;
    name: string;
    category: string;
  }[];
  return new Map(entries.map((entry) => [entry.id, entry]));
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

/** `POST /api/reports` with the project's API token. */
export function upload(ctx: TestContext, apiToken: string, body: unknown): Promise<LightMyRequestResponse> {
  return ctx.request({ method: 'POST', url: '/api/reports', token: apiToken, body });
}

/** Uploads and expects 201; returns the answer body (`{success, message, report, gate}`). */
export async function uploadOk(ctx: TestContext, apiToken: string, body: unknown): Promise<Record<string, any>> {
  const response = await upload(ctx, apiToken, body);
  expect(response.statusCode, response.body).toBe(201);
  const answer = response.json();
  expect(answer.success).toBe(true);
  return answer;
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
