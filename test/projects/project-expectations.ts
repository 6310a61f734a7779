import { expect } from 'vitest';
import { ISO_UTC, UUID_V7 } from '../helpers/contract.js';
import type { TestContext } from '../helpers/test-app.js';

/** The FakeClock's default start. */
export const CLOCK_START = '2026-11-21T10:00:00.000Z';

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

/** D14 and E1.7: all six keys, null where unset. */
export const EMPTY_SETTINGS = {
  fail_on: null,
  fail_threshold: null,
  primary_tracker: null,
  ticket_target_project_key: null,
  ticket_target_project_name: null,
  fail_on_new: null,
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

/** E1.5: a report list item is the 2.2 summary plus the git context, the stored gate and the changes. */
export const REPORT_LIST_ITEM_KEYS = [...REPORT_SUMMARY_KEYS, 'base_branch', 'branch', 'changes', 'commit', 'gate', 'pull_request'].sort();

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

/** The stored row of a project, token hash included. */
export async function projectRow(ctx: TestContext, id: string) {
  return ctx.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
}
