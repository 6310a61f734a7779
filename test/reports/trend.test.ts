/**
 * E2.1 over HTTP: `GET /api/v1/projects/{project}/trend?branch=NAME&limit=N` — the last `limit`
 * reports (default 30, 1..365) of a branch or of every branch, oldest first in D19's order
 * (analyzed_at, then id), each with its score, issues, new/fixed counts (E1.4) and stored gate
 * (E1.8); `?branch=` empty names the reports without a branch, as in the report list.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { expectApiHeaders, expectError, expectValidationError, NOT_FOUND, UNAUTHENTICATED } from '../helpers/contract.js';
import { MISSING_PROJECT } from '../helpers/endpoints.js';
import { result, setGate, uploadBody } from '../helpers/reports-world.js';
import { uploadOk } from '../helpers/client-wire.js';

const it = appTest({ user: { plan: 'business' } })
  .extend(
    'trend',
    ({ ctx, projectId, user }) =>
      (query = '', options: { token?: string; id?: string } = {}) =>
        ctx.request({
          method: 'GET',
          url: `/api/v1/projects/${options.id ?? projectId}/trend${query}`,
          token: options.token ?? user.token,
        }),
  )
  .extend('points', ({ trend }) => async (query = '') => {
    const response = await trend(query);
    expect(response.statusCode, response.body).toBe(200);
    expectApiHeaders(response);
    expect(Object.keys(response.json())).toEqual(['data']);
    return response.json().data as Record<string, any>[];
  })
  /** A report analysed at minute `minute` of 2026-11-21 08:00, stored through the factory (no gate). */
  .extend('reportAt', ({ ctx, projectId }) => (minute: number, overrides: Record<string, unknown> = {}) => {
    const at = new Date(Date.UTC(2026, 10, 21, 8, minute)).toISOString();
    return ctx.given.report(projectId, { analyzed_at: at, created_at: at, ...overrides });
  })
  /** An upload on `branch` (metadata git_branch), analysed at minute `minute` of 2026-11-21 09:00. */
  .extend(
    'uploadOn',
    ({ apiToken, ctx }) =>
      async (branch: string | null, minute: number, severities: ('critical' | 'high' | 'low')[] = []) => {
        const analyzed = new Date(Date.UTC(2026, 10, 21, 9, minute)).toISOString();
        const body = uploadBody([result('sql-injection', severities.length > 0 ? 'failed' : 'passed', severities)], {
          analyzed_at: analyzed,
          metadata: branch === null ? {} : { git_branch: branch },
        });
        return (await uploadOk(ctx, apiToken, body)).report.uuid as string;
      },
  );

const POINT_KEYS = ['analyzed_at', 'branch', 'fixed', 'gate_passed', 'issues_by_severity', 'new', 'score', 'total_issues', 'uuid'];

describe('GET /api/v1/projects/{project}/trend (E2.1)', () => {
  // The user and the project are made first, then the clock moves on.
  it.beforeEach(async ({ ctx, project: _madeFirst }) => {
    // The uploads below are analysed during 2026-11-21; D25 refuses analysis times ahead of the clock.
    ctx.clock.advance(24 * 60 * 60 * 1000);
  });

  it('answers an empty list for a project without reports', async ({ points }) => {
    expect(await points()).toEqual([]);
  });

  it('gives each report its uuid, time, branch, score, issues by severity, new, fixed and gate', async ({
    ctx,
    user,
    projectId,
    points,
    reportAt,
  }) => {
    const { uuid } = await reportAt(0, {
      score: 73,
      total_issues: 9,
      issues_critical: 1,
      issues_high: 2,
      issues_medium: 3,
      issues_low: 2,
      issues_info: 1,
    });
    const [point] = await points();
    expect(Object.keys(point!).sort()).toEqual(POINT_KEYS);
    expect(point).toEqual({
      uuid,
      analyzed_at: '2026-11-21T08:00:00.000Z',
      branch: null,
      score: 73,
      total_issues: 9,
      issues_by_severity: { critical: 1, high: 2, medium: 3, low: 2, info: 1 },
      new: null,
      fixed: null,
      gate_passed: null,
    });
    // The same issues_by_severity as the report list shows.
    const listed = (await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/reports`, token: user.token })).json().data[0];
    expect(point!.issues_by_severity).toEqual(listed.issues_by_severity);
  });

  describe('order and limit', () => {
    it('lists oldest first by analyzed_at, ties by id (D19), whatever the order of storing', async ({ points, reportAt }) => {
      const late = await reportAt(30);
      const early = await reportAt(5);
      const tieFirst = await reportAt(10);
      const tieSecond = await reportAt(10);
      expect((await points()).map((p) => p.uuid)).toEqual([early.uuid, tieFirst.uuid, tieSecond.uuid, late.uuid]);
    });

    it('keeps the last 30 by default: the newest 30, still oldest first', async ({ points, reportAt }) => {
      const uuids: string[] = [];
      for (let minute = 0; minute < 32; minute++) uuids.push((await reportAt(minute)).uuid);
      expect((await points()).map((p) => p.uuid)).toEqual(uuids.slice(2));
    });

    it.for<[number, number]>([
      [1, 1],
      [3, 3],
      [5, 5],
      [365, 5],
    ])('limit=%i keeps the last %i', async ([limit, kept], { points, reportAt }) => {
      const uuids: string[] = [];
      for (let minute = 0; minute < 5; minute++) uuids.push((await reportAt(minute)).uuid);
      expect((await points(`?limit=${limit}`)).map((p) => p.uuid)).toEqual(uuids.slice(5 - kept));
    });

    it('reads the list in one SQL statement, whatever the limit', async ({ ctx, points, reportAt }) => {
      for (let minute = 0; minute < 12; minute++) await reportAt(minute);
      const seen: string[] = [];
      const stop = ctx.onQuery((sql) => {
        if (/from "reports"/.test(sql)) seen.push(sql);
      });
      try {
        expect(await points('?limit=10')).toHaveLength(10);
      } finally {
        stop();
      }
      expect(seen).toHaveLength(1);
    });
  });

  describe('422 for a limit outside 1..365 or not a decimal integer', () => {
    it.for<[string, string]>([
      ['0', 'The limit must be between 1 and 365.'],
      ['366', 'The limit must be between 1 and 365.'],
      ['1000000', 'The limit must be between 1 and 365.'],
      ['-1', 'The limit field must be an integer.'],
      ['abc', 'The limit field must be an integer.'],
      ['1.5', 'The limit field must be an integer.'],
      ['1e2', 'The limit field must be an integer.'],
      ['0x10', 'The limit field must be an integer.'],
      ['', 'The limit field must be an integer.'],
    ])('limit=%s', async ([limit, message], { trend }) => {
      const response = await trend(`?limit=${limit}`);
      expectValidationError(response, ['limit'], { limit: message });
      expectApiHeaders(response);
    });

    it('refuses an include other than commit', async ({ trend }) => {
      expectValidationError(await trend('?include=score'), ['include']);
    });

    it('refuses a branch name over 1000 characters', async ({ trend }) => {
      expectValidationError(await trend(`?branch=${'b'.repeat(1001)}`), ['branch']);
    });
  });

  describe('branches (E1.1), like the report list', () => {
    it('keeps one branch with ?branch=NAME, the reports without one with ?branch=, all without the parameter', async ({
      points,
      uploadOn,
    }) => {
      const main1 = await uploadOn('main', 0);
      const feature = await uploadOn('feature/x', 1);
      const none = await uploadOn(null, 2);
      const main2 = await uploadOn('main', 3);

      expect((await points('?branch=main')).map((p) => p.uuid)).toEqual([main1, main2]);
      expect((await points('?branch=main')).map((p) => p.branch)).toEqual(['main', 'main']);
      expect((await points(`?branch=${encodeURIComponent('feature/x')}`)).map((p) => p.uuid)).toEqual([feature]);
      expect((await points('?branch=')).map((p) => ({ uuid: p.uuid, branch: p.branch }))).toEqual([{ uuid: none, branch: null }]);
      expect((await points()).map((p) => p.uuid)).toEqual([main1, feature, none, main2]);
      expect(await points('?branch=nothing')).toEqual([]);
    });

    it("adds each run's commit to its point when asked (include=commit, the dashboard's tooltip), and only then", async ({
      ctx,
      apiToken,
      points,
    }) => {
      const commit = '9fceb02d0ae598e95dc970b74767f19372d61af8';
      const body = uploadBody([result('sql-injection', 'passed', [])], {
        analyzed_at: '2026-11-21T09:00:00Z',
        metadata: { git_branch: 'main', git_commit: commit },
      });
      await uploadOk(ctx, apiToken, body);
      const [plain] = await points('?branch=main');
      expect(Object.keys(plain!).sort()).toEqual(POINT_KEYS);
      const [withCommit] = await points('?branch=main&include=commit');
      expect(withCommit).toEqual({ ...plain, commit });
    });

    it('applies the limit within the branch', async ({ points, uploadOn }) => {
      const main = [await uploadOn('main', 0), await uploadOn('main', 1), await uploadOn('main', 2)];
      await uploadOn('other', 3);
      expect((await points('?branch=main&limit=2')).map((p) => p.uuid)).toEqual(main.slice(1));
    });
  });

  describe('new, fixed and gate_passed', () => {
    it('are null for a first report, then the counts against the baseline (E1.4), and the stored gate (E1.8)', async ({
      ctx,
      user,
      projectId,
      apiToken,
      points,
    }) => {
      await setGate(ctx, user, projectId, { fail_on: 'critical' });
      // First run: no baseline; a critical issue fails the gate.
      const first = await uploadOk(
        ctx,
        apiToken,
        uploadBody([result('sql-injection', 'failed', ['critical']), result('xss-vulnerabilities', 'failed', ['high'])], {
          analyzed_at: '2026-11-21T09:00:00Z',
          metadata: { git_branch: 'main' },
        }),
      );
      // Second run: the critical one fixed, the high one kept, a low one new; the gate passes.
      const second = await uploadOk(
        ctx,
        apiToken,
        uploadBody([result('xss-vulnerabilities', 'failed', ['high']), result('csrf-protection', 'failed', ['low'])], {
          analyzed_at: '2026-11-21T09:10:00Z',
          metadata: { git_branch: 'main' },
        }),
      );
      expect([first.gate.passed, second.gate.passed]).toEqual([false, true]);

      const [a, b] = await points();
      expect(a).toMatchObject({ uuid: first.report.uuid, new: null, fixed: null, gate_passed: false });
      expect(b).toMatchObject({ uuid: second.report.uuid, new: 1, fixed: 1, gate_passed: true });
      expect(b!.issues_by_severity).toEqual({ critical: 0, high: 1, medium: 0, low: 1, info: 0 });
      expect(b!.total_issues).toBe(2);
    });

    it('gate_passed is null for a report stored before gates were recorded', async ({ points, reportAt, uploadOn }) => {
      await reportAt(0);
      await uploadOn('main', 0);
      expect((await points()).map((p) => p.gate_passed)).toEqual([null, true]);
    });
  });

  describe('permissions (D15 view) and the order of checks (D4)', () => {
    it.for(['admin', 'member', 'readonly'] as const)('a team %s may read it', async (role, { ctx, user, trend, reportAt }) => {
      await reportAt(0);
      const colleague = await ctx.given.user({ plan: 'business' });
      await ctx.given.member(user.teamId!, colleague, role);
      const response = await trend('', { token: colleague.token });
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toHaveLength(1);
    });

    it("is 404 for someone outside the project's team, and for a project that does not exist or is no UUID", async ({ ctx, trend }) => {
      const stranger = await ctx.given.user({ plan: 'business' });
      expectError(await trend('', { token: stranger.token }), 404, NOT_FOUND);
      for (const id of [MISSING_PROJECT, 'nope']) expectError(await trend('', { id }), 404, NOT_FOUND);
    });

    it('answers 401 before 404, and 404 before 422 (D4.3, D4.7, D4.9)', async ({ ctx, trend }) => {
      const anonymous = await ctx.request({ method: 'GET', url: `/api/v1/projects/${MISSING_PROJECT}/trend?limit=0` });
      expectError(anonymous, 401, UNAUTHENTICATED);
      expectApiHeaders(anonymous);
      expectError(await trend('?limit=0', { id: MISSING_PROJECT }), 404, NOT_FOUND);
    });
  });
});
