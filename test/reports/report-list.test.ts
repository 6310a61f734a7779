import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { buildTestApp } from '../helpers/test-app.js';
import { ISO_UTC, UUID_V7, expectJson, expectValidationError } from '../helpers/contract.js';
import { REPORT_LIST_ITEM_KEYS, result, uploadBody } from '../helpers/reports-world.js';
import { uploadOk } from '../helpers/client-wire.js';

const it = appTest({ user: { plan: 'enterprise' } })
  .extend(
    'list',
    ({ ctx, projectId, user }) =>
      (query = '', id = projectId, headers?: Record<string, string>) =>
        ctx.request({ method: 'GET', url: `/api/v1/projects/${id}/reports${query}`, token: user.token, headers }),
  )
  /** `count` reports one minute apart on analyzed_at, oldest first; returns their uuids oldest first. */
  .extend(
    'givenReports',
    ({ ctx, projectId }) =>
      async function givenReports(count: number, id = projectId): Promise<string[]> {
        const uuids: string[] = [];
        for (let i = 0; i < count; i++) {
          const at = new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString();
          uuids.push((await ctx.given.report(id, { analyzed_at: at, created_at: at })).uuid);
        }
        return uuids;
      },
  );

// inject() sends `Host: localhost:80`; D16 builds links from the request's scheme and host.
const INJECT_HOST = 'http://localhost:80';

describe('GET /api/v1/projects/{project}/reports', () => {
  let base: string;
  it.beforeEach(async ({ projectId }) => {
    base = `${INJECT_HOST}/api/v1/projects/${projectId}/reports`;
  });

  describe('D16: pagination envelope', () => {
    it('answers a project without reports with an empty page 1, last page 1 and null from/to', async ({ list }) => {
      const response = await list();
      expect(response.statusCode).toBe(200);
      expectJson(response);
      expect(response.json()).toEqual({
        data: [],
        links: { first: `${base}?page=1`, last: `${base}?page=1`, prev: null, next: null },
        meta: { current_page: 1, per_page: 20, total: 0, last_page: 1, from: null, to: null, path: base },
      });
    });

    it('puts exactly 20 reports on page 1 and the rest on page 2, with absolute ?page=N links', async ({ list, givenReports }) => {
      const uuids = await givenReports(23);
      const newestFirst = [...uuids].reverse();

      const first = (await list()).json();
      expect(first.data.map((r: { uuid: string }) => r.uuid)).toEqual(newestFirst.slice(0, 20));
      expect(first.links).toEqual({ first: `${base}?page=1`, last: `${base}?page=2`, prev: null, next: `${base}?page=2` });
      expect(first.meta).toEqual({ current_page: 1, per_page: 20, total: 23, last_page: 2, from: 1, to: 20, path: base });

      const second = (await list('?page=2')).json();
      expect(second.data.map((r: { uuid: string }) => r.uuid)).toEqual(newestFirst.slice(20));
      expect(second.links).toEqual({ first: `${base}?page=1`, last: `${base}?page=2`, prev: `${base}?page=1`, next: null });
      expect(second.meta).toEqual({ current_page: 2, per_page: 20, total: 23, last_page: 2, from: 21, to: 23, path: base });
    });

    it('fits exactly 20 reports on one page', async ({ list, givenReports }) => {
      await givenReports(20);
      const body = (await list()).json();
      expect(body.data).toHaveLength(20);
      expect(body.links.next).toBeNull();
      expect(body.meta).toMatchObject({ total: 20, last_page: 1, from: 1, to: 20 });
    });

    it('answers a page past the end with 200 and empty data', async ({ list, givenReports }) => {
      await givenReports(3);
      const response = await list('?page=2');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        data: [],
        links: { first: `${base}?page=1`, last: `${base}?page=1`, prev: `${base}?page=1`, next: null },
        meta: { current_page: 2, per_page: 20, total: 3, last_page: 1, from: null, to: null, path: base },
      });
    });

    it.for(['0', 'abc', '-1', '1.5'])('rejects page=%s with 422 on errors.page (D16)', async (page, { list, givenReports }) => {
      await givenReports(1);
      expectValidationError(await list(`?page=${page}`), ['page']);
    });

    it.for(['3', '2147483647'])('answers a large page=%s with 200 and empty data, never a 500', async (page, { list, givenReports }) => {
      await givenReports(1);
      const response = await list(`?page=${page}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().data).toEqual([]);
      expect(response.json().meta).toMatchObject({ total: 1, last_page: 1, from: null, to: null });
    });

    it('builds the links from the Host header of the request', async ({ projectId, list }) => {
      const body = (await list('', projectId, { host: 'api.scoreboard.test:8080' })).json();
      const expected = `http://api.scoreboard.test:8080/api/v1/projects/${projectId}/reports`;
      expect(body.links.first).toBe(`${expected}?page=1`);
      expect(body.meta.path).toBe(expected);
    });

    it('builds the links from PUBLIC_URL when it is set', async () => {
      const publicCtx = await buildTestApp({ env: { PUBLIC_URL: 'https://scoreboard.example.com' } });
      try {
        const owner = await publicCtx.given.user();
        const { project } = await publicCtx.given.project(owner);
        for (let i = 0; i < 21; i++) await publicCtx.given.report(project.id);
        const response = await publicCtx.request({
          method: 'GET',
          url: `/api/v1/projects/${project.id}/reports?page=2`,
          token: owner.token,
          headers: { host: 'internal.local:3000' },
        });
        expect(response.statusCode).toBe(200);
        const publicBase = `https://scoreboard.example.com/api/v1/projects/${project.id}/reports`;
        expect(response.json().links).toEqual({
          first: `${publicBase}?page=1`,
          last: `${publicBase}?page=2`,
          prev: `${publicBase}?page=1`,
          next: null,
        });
        expect(response.json().meta.path).toBe(publicBase);
      } finally {
        await publicCtx.close();
      }
    });
  });

  describe('D19: order is newest analyzed_at first, ties highest id', () => {
    it('orders uploads by analyzed_at, not by the order they arrived in', async ({ ctx, apiToken, list }) => {
      // Uploaded in the order 2nd, 4th, 1st, 3rd of analysis time.
      const uploads = ['2026-11-20T10:00:00+00:00', '2026-11-21T08:00:00+00:00', '2026-11-19T23:59:59+00:00', '2026-11-21T07:59:59+00:00'];
      const uuids: Record<string, string> = {};
      for (const at of uploads) {
        const answer = await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'passed')], { analyzed_at: at }));
        uuids[at] = answer.report.uuid;
        ctx.clock.advance(1000);
      }
      const body = (await list()).json();
      expect(body.data.map((r: { uuid: string }) => r.uuid)).toEqual([
        uuids['2026-11-21T08:00:00+00:00'],
        uuids['2026-11-21T07:59:59+00:00'],
        uuids['2026-11-20T10:00:00+00:00'],
        uuids['2026-11-19T23:59:59+00:00'],
      ]);
      expect(body.data.map((r: { analyzed_at: string }) => r.analyzed_at)).toEqual([
        '2026-11-21T08:00:00.000Z',
        '2026-11-21T07:59:59.000Z',
        '2026-11-20T10:00:00.000Z',
        '2026-11-19T23:59:59.000Z',
      ]);
    });

    it('compares analyzed_at as instants, whatever offset the client wrote', async ({ ctx, apiToken, list }) => {
      // 09:30+02:00 is 07:30Z, earlier than 08:00Z although "09:30" reads later.
      const later = await uploadOk(
        ctx,
        apiToken,
        uploadBody([result('csrf-protection', 'passed')], { analyzed_at: '2026-11-21T08:00:00+00:00' }),
      );
      const earlier = await uploadOk(
        ctx,
        apiToken,
        uploadBody([result('csrf-protection', 'passed')], { analyzed_at: '2026-11-21T09:30:00+02:00' }),
      );
      const body = (await list()).json();
      expect(body.data.map((r: { uuid: string }) => r.uuid)).toEqual([later.report.uuid, earlier.report.uuid]);
    });

    it('breaks analyzed_at ties by the highest id', async ({ ctx, apiToken, list }) => {
      const at = '2026-11-21T08:00:00+00:00';
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) {
        // Three runs at one instant (not one body three times: that is a retry, stored once, D40).
        const run = uploadBody([result('csrf-protection', 'passed')], { analyzed_at: at, total_execution_time: i + 1 });
        ids.push((await uploadOk(ctx, apiToken, run)).report.id);
      }
      // An older analysis uploaded last goes to the end despite having the highest id.
      const older = await uploadOk(
        ctx,
        apiToken,
        uploadBody([result('csrf-protection', 'passed')], { analyzed_at: '2026-11-21T07:00:00+00:00' }),
      );
      const body = (await list()).json();
      expect(body.data.map((r: { id: number }) => r.id)).toEqual([...[...ids].sort((a, b) => b - a), older.report.id]);
    });

    it('keeps the tie order stable across pages', async ({ ctx, projectId, list }) => {
      const ids: number[] = [];
      for (let i = 0; i < 25; i++) ids.push((await ctx.given.report(projectId)).id);
      const seen = [...(await list()).json().data, ...(await list('?page=2')).json().data].map((r: { id: number }) => r.id);
      expect(seen).toEqual([...ids].sort((a, b) => b - a));
    });
  });

  describe('api-v1 2.2: items are report summaries', () => {
    it('has exactly the ReportSummary keys, with the values the upload computed', async ({ ctx, apiToken, list }) => {
      const answer = await uploadOk(
        ctx,
        apiToken,
        uploadBody(
          [
            result('sql-injection', 'failed', ['critical', 'high']),
            result('csrf-protection', 'passed'),
            result('debug-mode', 'warning', ['low', 'info', 'info']),
            result('phpstan', 'skipped'),
            result('xss-detection', 'error'),
          ],
          {
            analyzed_at: '2026-11-21T08:15:00+00:00',
            laravel_version: '11.44.2',
            package_version: 'v1.13.3',
            triggered_by: 'ci_cd',
            total_execution_time: 4.5,
          },
        ),
      );
      const body = (await list()).json();
      expect(body.data).toHaveLength(1);
      const item = body.data[0];
      expect(Object.keys(item).sort()).toEqual(REPORT_LIST_ITEM_KEYS);
      expect(Object.keys(item.issues_by_severity).sort()).toEqual(['critical', 'high', 'info', 'low', 'medium']);
      expect(item.uuid).toMatch(UUID_V7);
      expect(item.created_at).toMatch(ISO_UTC);
      // 1 passed of 5 - 1 skipped = 25.
      expect(item).toEqual({
        id: answer.report.id,
        uuid: answer.report.uuid,
        score: 25,
        total: 5,
        passed: 1,
        failed: 1,
        warnings: 1,
        skipped: 1,
        errors: 1,
        total_issues: 5,
        issues_by_severity: { critical: 1, high: 1, medium: 0, low: 1, info: 2 },
        framework_version: '11.44.2',
        package_version: 'v1.13.3',
        total_execution_time: 4.5,
        triggered_by: 'ci_cd',
        analyzed_at: '2026-11-21T08:15:00.000Z',
        created_at: '2026-11-21T10:00:00.000Z',
        // E1.5: no git context was sent, the gate passed, and a first report has no baseline.
        branch: null,
        commit: null,
        pull_request: null,
        base_branch: null,
        gate: { passed: true, reasons: [], dismissed: 0 },
        changes: { baseline: null, new: null, fixed: null, unchanged: null },
      });
      // The upload's answer describes the same report, in the 2.2 summary shape.
      const { branch: _b, commit: _c, pull_request: _p, base_branch: _bb, gate: _g, changes: _ch, ...summary } = item;
      expect(answer.report).toEqual(summary);
    });
  });

  describe('D17: archived projects', () => {
    it('still lists the reports of an archived project, and they stay readable', async ({ ctx, user, projectId, list, givenReports }) => {
      const uuids = await givenReports(2);
      const archived = await ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/archive`, token: user.token });
      expect(archived.statusCode).toBe(200);
      const body = (await list()).json();
      expect(body.data.map((r: { uuid: string }) => r.uuid)).toEqual([...uuids].reverse());
      const detail = await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuids[0]}`, token: user.token });
      expect(detail.statusCode).toBe(200);
    });
  });

  describe("only the project's own reports", () => {
    it('does not list reports of another project of the same team', async ({ ctx, user, list, givenReports }) => {
      const other = (await ctx.given.project(user, { name: 'Other' })).project.id;
      await givenReports(2, other);
      const mine = await givenReports(1);
      const body = (await list()).json();
      expect(body.data.map((r: { uuid: string }) => r.uuid)).toEqual(mine);
      expect(body.meta.total).toBe(1);

      const theirs = (await list('', other)).json();
      expect(theirs.meta.total).toBe(2);
      expect(theirs.data.map((r: { uuid: string }) => r.uuid)).not.toContain(mine[0]);
    });
  });
});
