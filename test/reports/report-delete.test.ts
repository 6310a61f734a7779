import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import type { TeamRole } from '../../src/db/schema.js';
import { PROJECT_DELETED, expectError, expectJson, expectNotFound, missingAbility } from '../helpers/contract.js';
import { result, uploadBody } from '../helpers/reports-world.js';
import { uploadOk } from '../helpers/client-wire.js';

let runs = 0;
const it = appTest({ user: { plan: 'business' } })
  .extend(
    'remove',
    ({ ctx, user: owner }) =>
      (uuid: string, token = owner.token) =>
        ctx.request({ method: 'DELETE', url: `/api/v1/reports/${uuid}`, token }),
  )
  .extend(
    'read',
    ({ ctx, user: owner }) =>
      (uuid: string, token = owner.token) =>
        ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}`, token }),
  )
  .extend('listed', ({ ctx, user: owner, projectId }) => async (token = owner.token) => {
    const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/reports`, token });
    expect(response.statusCode).toBe(200);
    return (response.json().data as { uuid: string }[]).map((r) => r.uuid);
  })
  .extend('latestOnShow', ({ ctx, user: owner, projectId }) => async () => {
    const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}`, token: owner.token });
    expect(response.statusCode).toBe(200);
    return response.json().data.latest_report as { uuid: string } | null;
  })
  .extend('latestInList', ({ ctx, user: owner, projectId }) => async () => {
    const response = await ctx.request({ method: 'GET', url: '/api/v1/projects', token: owner.token });
    expect(response.statusCode).toBe(200);
    const project = (response.json().data as { id: string; latest_report: { uuid: string } | null }[]).find((p) => p.id === projectId);
    expect(project).toBeDefined();
    return project!.latest_report;
  })
  .extend(
    'uploadAt',
    ({ apiToken, ctx }) =>
      async (analyzedAt: string) =>
        // Each call another run (an identical body would be a retry, stored once: D40).
        (
          await uploadOk(
            ctx,
            apiToken,
            uploadBody([result('csrf-protection', 'passed')], { analyzed_at: analyzedAt, total_execution_time: ++runs }),
          )
        ).report as {
          id: number;
          uuid: string;
        },
  )
  .extend(
    'reportCount',
    ({ ctx }) =>
      async () =>
        (await ctx.db.selectFrom('reports').select('id').execute()).length,
  );

const REPORT_DELETED = { message: 'Report deleted successfully.' };

describe('DELETE /api/v1/reports/{uuid}', () => {
  describe('success', () => {
    it('answers 200 {"message":"Report deleted successfully."}; then the report is 404 and gone from the list', async ({
      ctx,
      remove,
      read,
      listed,
      uploadAt,
    }) => {
      const kept = await uploadAt('2026-11-20T10:00:00+00:00');
      const doomed = await uploadAt('2026-11-19T10:00:00+00:00');
      expect(await listed()).toEqual([kept.uuid, doomed.uuid]);

      const response = await remove(doomed.uuid);
      expect(response.statusCode).toBe(200);
      expectJson(response);
      expect(response.json()).toEqual(REPORT_DELETED);

      expectNotFound(await read(doomed.uuid));
      expect(await listed()).toEqual([kept.uuid]);
      expect(await ctx.db.selectFrom('reports').select('uuid').execute()).toEqual([{ uuid: kept.uuid }]);
      // A second delete of the same report finds nothing.
      expectNotFound(await remove(doomed.uuid));
    });
  });

  describe('D19: latest_report after a delete', () => {
    it('makes the next report latest when the latest is deleted (GET project and project list)', async ({
      remove,
      listed,
      latestOnShow,
      latestInList,
      uploadAt,
    }) => {
      const older = await uploadAt('2026-11-19T10:00:00+00:00');
      const latest = await uploadAt('2026-11-21T09:00:00+00:00');
      const middle = await uploadAt('2026-11-20T10:00:00+00:00');
      expect((await latestOnShow())!.uuid).toBe(latest.uuid);

      expect((await remove(latest.uuid)).statusCode).toBe(200);
      expect((await latestOnShow())!.uuid).toBe(middle.uuid);
      expect((await latestInList())!.uuid).toBe(middle.uuid);
      expect(await listed()).toEqual([middle.uuid, older.uuid]);
    });

    it('keeps latest_report when a report that is not the latest is deleted', async ({ remove, latestOnShow, latestInList, uploadAt }) => {
      const latest = await uploadAt('2026-11-21T09:00:00+00:00');
      const older = await uploadAt('2026-11-19T10:00:00+00:00');
      const before = await latestOnShow();

      expect((await remove(older.uuid)).statusCode).toBe(200);
      expect(await latestOnShow()).toEqual(before);
      expect((await latestInList())!.uuid).toBe(latest.uuid);
    });

    it('sets latest_report to null when the only report is deleted', async ({ remove, listed, latestOnShow, latestInList, uploadAt }) => {
      const only = await uploadAt('2026-11-21T09:00:00+00:00');
      expect((await latestOnShow())!.uuid).toBe(only.uuid);

      expect((await remove(only.uuid)).statusCode).toBe(200);
      expect(await latestOnShow()).toBeNull();
      expect(await latestInList()).toBeNull();
      expect(await listed()).toEqual([]);
    });

    it('falls back to the highest id among equal analyzed_at', async ({ remove, latestOnShow, uploadAt }) => {
      const first = await uploadAt('2026-11-21T09:00:00+00:00');
      const second = await uploadAt('2026-11-21T09:00:00+00:00');
      const third = await uploadAt('2026-11-21T09:00:00+00:00');
      expect((await latestOnShow())!.uuid).toBe(third.uuid);
      expect((await remove(third.uuid)).statusCode).toBe(200);
      expect((await latestOnShow())!.uuid).toBe(second.uuid);
      expect((await remove(second.uuid)).statusCode).toBe(200);
      expect((await latestOnShow())!.uuid).toBe(first.uuid);
    });
  });

  describe('D6: ability', () => {
    it("refuses a read-only token with 403 and the 'write' message; the report survives", async ({
      ctx,
      user: owner,
      remove,
      read,
      uploadAt,
      reportCount,
    }) => {
      const report = await uploadAt('2026-11-21T09:00:00+00:00');
      const readOnly = await ctx.given.token(owner, { abilities: ['read'] });
      expectError(await remove(report.uuid, readOnly), 403, missingAbility('write'));
      expect((await read(report.uuid, readOnly)).statusCode).toBe(200);
      expect(await reportCount()).toBe(1);
    });

    it.for([[['write']], [['admin']], [['read', 'write']]])(
      'accepts a token with abilities %j (D6 hierarchy)',
      async ([abilities], { ctx, user: owner, remove, uploadAt }) => {
        const report = await uploadAt('2026-11-21T09:00:00+00:00');
        const token = await ctx.given.token(owner, { abilities: abilities as ('read' | 'write' | 'admin')[] });
        const response = await remove(report.uuid, token);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toEqual(REPORT_DELETED);
      },
    );
  });

  describe('D15: team roles', () => {
    const cases: [TeamRole, boolean][] = [
      ['owner', true],
      ['admin', true],
      ['member', false],
      ['readonly', false],
    ];

    it.for(cases)(
      'a team %s may delete: %s (otherwise 404 and the report survives)',
      async ([role, allowed], { ctx, user: owner, remove, read, latestOnShow, uploadAt, reportCount }) => {
        const report = await uploadAt('2026-11-21T09:00:00+00:00');
        const user = await ctx.given.user();
        await ctx.given.member(owner.teamId!, user, role);
        const response = await remove(report.uuid, user.token);
        if (allowed) {
          expect(response.statusCode, response.body).toBe(200);
          expect(response.json()).toEqual(REPORT_DELETED);
          expect(await reportCount()).toBe(0);
          expect(await latestOnShow()).toBeNull();
        } else {
          expectNotFound(response);
          expect(await reportCount()).toBe(1);
          expect((await latestOnShow())!.uuid).toBe(report.uuid);
          expect((await read(report.uuid)).statusCode).toBe(200);
        }
      },
    );

    it.for(['owner', 'admin', 'member', 'readonly'] as TeamRole[])(
      'a team %s may read the report and the list',
      async (role, { ctx, user: owner, read, listed, uploadAt }) => {
        const report = await uploadAt('2026-11-21T09:00:00+00:00');
        const user = await ctx.given.user();
        await ctx.given.member(owner.teamId!, user, role);
        const response = await read(report.uuid, user.token);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().data.uuid).toBe(report.uuid);
        expect(await listed(user.token)).toEqual([report.uuid]);
      },
    );
  });

  describe('deleting the project (api-v1 section 3: all its reports are removed)', () => {
    it('removes its reports and failed runs, and the report URLs answer 404', async ({
      ctx,
      user: owner,
      projectId,
      apiToken,
      remove,
      read,
      uploadAt,
    }) => {
      const first = await uploadAt('2026-11-20T09:00:00+00:00');
      const second = await uploadAt('2026-11-21T09:00:00+00:00');
      const failure = await ctx.request({
        method: 'POST',
        url: '/api/reports/failure',
        token: apiToken,
        body: { failure_reason: 'no_analyzers_ran', occurred_at: '2026-11-21T09:30:00+00:00' },
      });
      expect(failure.statusCode, failure.body).toBe(201);

      // Another project's rows must survive.
      const other = await ctx.given.project(owner, { name: 'Other' });
      const otherReport = (await uploadOk(ctx, other.apiToken, uploadBody([result('csrf-protection', 'passed')]))).report;
      expect(
        (
          await ctx.request({
            method: 'POST',
            url: '/api/reports/failure',
            token: other.apiToken,
            body: { failure_reason: 'invalid_options' },
          })
        ).statusCode,
      ).toBe(201);

      const response = await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${projectId}`, token: owner.token });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ message: PROJECT_DELETED });

      expect(await ctx.db.selectFrom('reports').select('project_id').where('project_id', '=', projectId).execute()).toEqual([]);
      expect(await ctx.db.selectFrom('run_failures').select('project_id').where('project_id', '=', projectId).execute()).toEqual([]);
      expect(await ctx.db.selectFrom('reports').select('uuid').execute()).toEqual([{ uuid: otherReport.uuid }]);
      expect(await ctx.db.selectFrom('run_failures').select('project_id').execute()).toEqual([{ project_id: other.project.id }]);

      for (const report of [first, second]) {
        expectNotFound(await read(report.uuid));
        expectNotFound(await remove(report.uuid));
      }
      expectNotFound(await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/reports`, token: owner.token }));
      expectNotFound(await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/failures`, token: owner.token }));
    });
  });
});
