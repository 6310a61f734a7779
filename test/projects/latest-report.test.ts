import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { IDENTIFICATION_STATEMENT } from '../helpers/test-app.js';
import { CLOCK_START, REPORT_SUMMARY_KEYS, expectProjectShape } from './project-expectations.js';

const it = appTest({ user: { plan: 'business' } })
  .extend('show', ({ ctx, projectId, user }) => async (id = projectId) => {
    const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${id}`, token: user.token });
    expect(response.statusCode).toBe(200);
    return expectProjectShape(response.json().data);
  })
  .extend('listed', ({ ctx, user }) => async () => {
    const response = await ctx.request({ method: 'GET', url: '/api/v1/projects', token: user.token });
    expect(response.statusCode).toBe(200);
    return response.json().data as Record<string, any>[];
  });

// D19: latest_report is the report with the latest analyzed_at (ties: highest id).
describe('latest_report on project responses (api-v1 2.2, D19)', () => {
  const at = (iso: string) => ({ analyzed_at: iso, created_at: iso });

  it('is null while the project has no reports, on GET and in the list', async ({ show, listed }) => {
    expect((await show()).latest_report).toBeNull();
    expect((await listed())[0]!.latest_report).toBeNull();
  });

  it('carries every 2.2 field of the report summary', async ({ ctx, projectId, show, listed }) => {
    // The summary's columns that the answer carries as they are stored.
    const stored = {
      score: 73,
      total: 12,
      passed: 7,
      failed: 2,
      warnings: 1,
      skipped: 1,
      errors: 1,
      total_issues: 15,
      framework_version: '12.1.0',
      package_version: 'v2.0.0',
      total_execution_time: 3.5,
      triggered_by: 'api',
    } as const;
    const report = await ctx.given.report(projectId, {
      ...stored,
      issues_critical: 1,
      issues_high: 2,
      issues_medium: 3,
      issues_low: 4,
      issues_info: 5,
    });
    const expected = {
      id: report.id,
      uuid: report.uuid,
      ...stored,
      issues_by_severity: { critical: 1, high: 2, medium: 3, low: 4, info: 5 },
      analyzed_at: CLOCK_START,
      created_at: CLOCK_START,
    };
    expect(Object.keys(expected).sort()).toEqual(REPORT_SUMMARY_KEYS);
    expect((await show()).latest_report).toEqual(expected);
    expect((await listed())[0]!.latest_report).toEqual(expected);
  });

  it('returns null for the nullable summary fields when they are unset', async ({ ctx, projectId, show }) => {
    await ctx.given.report(projectId, {
      framework_version: null,
      package_version: null,
      total_execution_time: null,
      triggered_by: null,
    });
    expect((await show()).latest_report).toMatchObject({
      framework_version: null,
      package_version: null,
      total_execution_time: null,
      triggered_by: null,
    });
  });

  it('picks the latest analyzed_at even when that report was inserted first', async ({ ctx, projectId, show, listed }) => {
    const latest = await ctx.given.report(projectId, { ...at('2026-11-21T12:00:00.000Z'), score: 90 });
    await ctx.given.report(projectId, { ...at('2026-11-20T12:00:00.000Z'), score: 10 });
    await ctx.given.report(projectId, { ...at('2026-11-21T11:59:59.000Z'), score: 20 });
    expect((await show()).latest_report).toMatchObject({ id: latest.id, score: 90, analyzed_at: '2026-11-21T12:00:00.000Z' });
    expect((await listed())[0]!.latest_report.id).toBe(latest.id);
  });

  it('breaks analyzed_at ties by the highest id', async ({ ctx, projectId, show }) => {
    const first = await ctx.given.report(projectId, at('2026-11-21T12:00:00.000Z'));
    const second = await ctx.given.report(projectId, at('2026-11-21T12:00:00.000Z'));
    expect(second.id).toBeGreaterThan(first.id);
    expect((await show()).latest_report.id).toBe(second.id);
  });

  it('falls back to the next report when the latest is deleted, and to null when all are gone', async ({
    ctx,
    projectId,
    show,
    listed,
  }) => {
    const oldest = await ctx.given.report(projectId, at('2026-11-19T00:00:00.000Z'));
    const middle = await ctx.given.report(projectId, at('2026-11-20T00:00:00.000Z'));
    const newest = await ctx.given.report(projectId, at('2026-11-21T00:00:00.000Z'));
    expect((await show()).latest_report.id).toBe(newest.id);

    await ctx.given.deleteReport(newest, projectId);
    expect((await show()).latest_report).toMatchObject({ id: middle.id, uuid: middle.uuid });
    expect((await listed())[0]!.latest_report.id).toBe(middle.id);

    await ctx.given.deleteReport(oldest, projectId);
    expect((await show()).latest_report.id).toBe(middle.id);

    await ctx.given.deleteReport(middle, projectId);
    expect((await show()).latest_report).toBeNull();
    expect((await listed())[0]!.latest_report).toBeNull();
  });

  it("shows each project's own latest report when 20 projects each have many reports", async ({ ctx, user, projectId, listed }) => {
    const expected = new Map<string, number>();
    const projects = [projectId];
    for (let i = 1; i < 20; i++) projects.push((await ctx.given.project(user, { name: `P${i}` })).project.id);
    for (const [p, id] of projects.entries()) {
      // Six reports per project; the latest analyzed_at is inserted at a position that varies per project.
      const latestAt = p % 6;
      for (let r = 0; r < 6; r++) {
        const day = r === latestAt ? 28 : 10 + r;
        const report = await ctx.given.report(id, { ...at(`2026-11-${day}T00:00:00.000Z`), score: p * 5 });
        if (r === latestAt) expected.set(id, report.id);
      }
    }
    const data = await listed();
    expect(data).toHaveLength(20);
    for (const project of data) {
      expectProjectShape(project);
      expect(project.latest_report.id).toBe(expected.get(project.id));
      expect(project.latest_report.score).toBe(projects.indexOf(project.id) * 5);
      expect(project.latest_report.analyzed_at).toBe('2026-11-28T00:00:00.000Z');
    }
  });

  it('costs the same number of SQL statements to list 20 projects with 1 or with 30 reports each (D19)', async ({
    ctx,
    user,
    projectId,
    show,
    listed,
  }) => {
    const projects = [projectId];
    for (let i = 1; i < 20; i++) projects.push((await ctx.given.project(user, { name: `P${i}` })).project.id);
    // Identifying the caller (issue 15: a cached token lookup, or the lookup, and the once-a-minute
    // last_used_at write) is the same whatever the projects hold; what is compared is the rest.
    const statementsFor = async (request: () => Promise<unknown>) => {
      ctx.queries.length = 0;
      await request();
      return ctx.queries.filter((query) => !IDENTIFICATION_STATEMENT.test(query));
    };

    for (const id of projects) await ctx.given.report(id);
    const listWithOne = await statementsFor(listed);
    const showWithOne = await statementsFor(show);

    for (const id of projects) for (let r = 0; r < 29; r++) await ctx.given.report(id);
    const listWithThirty = await statementsFor(listed);
    const showWithThirty = await statementsFor(show);

    expect(listWithThirty).toEqual(listWithOne);
    expect(showWithThirty).toEqual(showWithOne);
    // count, one page query with latest_report joined in
    expect(listWithOne).toHaveLength(2);
    expect(listWithOne.filter((q) => /from "reports"/i.test(q))).toEqual([]);
  });

  it('is not affected by reports of other projects', async ({ ctx, user, projectId, show }) => {
    const other = (await ctx.given.project(user, { name: 'Other' })).project.id;
    await ctx.given.report(other, at('2030-01-01T00:00:00.000Z'));
    const mine = await ctx.given.report(projectId, at('2026-01-01T00:00:00.000Z'));
    expect((await show()).latest_report.id).toBe(mine.id);
  });
});
