import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestContext } from '../helpers/test-app.js';

/** D11: lowercase UUID, version 7 (RFC 9562 variant). */
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** D10: project API tokens are 40 characters from [A-Za-z0-9], no prefix. */
export const PROJECT_API_TOKEN = /^[A-Za-z0-9]{40}$/;

/** D2: ISO 8601 in UTC with a Z suffix. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** The FakeClock's default start. */
export const CLOCK_START = '2026-11-21T10:00:00.000Z';

// D18
export const CREATED_MESSAGE = 'Project created successfully. Save the API token — it will only be shown once.';
export const DELETED_MESSAGE = 'Project deleted successfully.';
export const REGENERATED_MESSAGE = 'API token regenerated. Save the new token — it will only be shown once.';

// D3
export const NOT_FOUND = { error: 'Not Found', message: 'The requested resource was not found.' };
export const NO_TEAM = { error: 'Forbidden', message: 'You must belong to a team to create projects.' };

/** api-v1.md 2.1 plus `settings` (D14). */
export const PROJECT_KEYS = [
  'archived_at',
  'created_at',
  'description',
  'framework_version',
  'id',
  'latest_report',
  'name',
  'repository_url',
  'settings',
  'team_id',
];

/** D14: all five keys, null where unset. */
export const EMPTY_SETTINGS = {
  fail_on: null,
  fail_threshold: null,
  primary_tracker: null,
  ticket_target_project_key: null,
  ticket_target_project_name: null,
};

/** api-v1.md 2.2. */
export const REPORT_SUMMARY_KEYS = [
  'analyzed_at',
  'created_at',
  'errors',
  'failed',
  'framework_version',
  'id',
  'issues_by_severity',
  'package_version',
  'passed',
  'score',
  'skipped',
  'total',
  'total_execution_time',
  'total_issues',
  'triggered_by',
  'uuid',
  'warnings',
];

export const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** Asserts the exact project shape (2.1 + D14) and returns the project for further checks. */
export function expectProjectShape(project: Record<string, any>): Record<string, any> {
  expect(Object.keys(project).sort()).toEqual(PROJECT_KEYS);
  expect(project.id).toMatch(UUID_V7);
  expect(typeof project.name).toBe('string');
  expect(typeof project.framework_version).toBe('string');
  expect(Number.isInteger(project.team_id)).toBe(true);
  expect(Object.keys(project.settings).sort()).toEqual(Object.keys(EMPTY_SETTINGS).sort());
  if (project.created_at !== null) expect(project.created_at).toMatch(ISO_UTC);
  if (project.archived_at !== null) expect(project.archived_at).toMatch(ISO_UTC);
  if (project.latest_report !== null) {
    expect(Object.keys(project.latest_report).sort()).toEqual(REPORT_SUMMARY_KEYS);
    expect(Object.keys(project.latest_report.issues_by_severity).sort()).toEqual(['critical', 'high', 'info', 'low', 'medium']);
  }
  return project;
}

export function expectJson(response: LightMyRequestResponse): void {
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
}

/** D3 404 envelope, exactly. */
export function expectNotFound(response: LightMyRequestResponse): void {
  expect(response.statusCode).toBe(404);
  expectJson(response);
  expect(response.json()).toEqual(NOT_FOUND);
}

/**
 * D3 422 envelope: `errors` keyed by exactly `fields` (dotted paths), each a non-empty list of
 * strings, and `message` repeating the first field message. `messages` pins exact field messages.
 */
export function expectValidationError(
  response: LightMyRequestResponse,
  fields: string[],
  messages: Record<string, string> = {},
): void {
  expect(response.statusCode, response.body).toBe(422);
  expectJson(response);
  const body = response.json();
  expect(Object.keys(body).sort()).toEqual(['error', 'errors', 'message']);
  expect(body.error).toBe('Validation Failed');
  expect(Object.keys(body.errors).sort()).toEqual([...fields].sort());
  for (const list of Object.values(body.errors) as unknown[]) {
    expect(Array.isArray(list) && list.length > 0 && list.every((m) => typeof m === 'string')).toBe(true);
  }
  const first = Object.values(body.errors as Record<string, string[]>)[0]![0];
  expect(body.message).toBe(first);
  for (const [field, message] of Object.entries(messages)) expect(body.errors[field]).toContain(message);
}

/** The stored row of a project, token hash included. */
export async function projectRow(ctx: TestContext, id: string) {
  return ctx.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
}
