import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { ISO_UTC, UUID_V7, expectJson, expectValidationError } from '../helpers/contract.js';
import { loadFixture } from '../helpers/client-wire.js';

const it = appTest({ user: { plan: 'business' } })
  .extend(
    'send',
    ({ apiToken, ctx }) =>
      (body: unknown, token = apiToken) =>
        ctx.request({ method: 'POST', url: '/api/reports/failure', token, body }),
  )
  .extend('sendOk', ({ apiToken, send }) => async (body: unknown, token = apiToken) => {
    const response = await send(body, token);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toEqual({ success: true, message: 'Failure recorded.' });
    return response;
  })
  .extend(
    'list',
    ({ ctx, projectId, user }) =>
      (query = '', id = projectId) =>
        ctx.request({ method: 'GET', url: `/api/v1/projects/${id}/failures${query}`, token: user.token }),
  )
  .extend(
    'storedCount',
    ({ ctx }) =>
      async () =>
        (await ctx.db.selectFrom('run_failures').select('id').execute()).length,
  );

/** The recorded failure body (failure.json) addressed to `projectId`. */
const failureBody = (projectId: string) => loadFixture('failure', projectId) as Record<string, any>;

const FAILURE_KEYS = [
  'created_at',
  'error_message',
  'failure_label',
  'failure_reason',
  'framework_version',
  'id',
  'metadata',
  'occurred_at',
  'package_version',
  'triggered_by',
  'uuid',
];

// CLIENT-WIRE.md `POST /api/reports/failure`, listed by GET /api/v1/projects/{project}/failures (D16 envelope).
describe('failed runs: POST /api/reports/failure and GET /api/v1/projects/{project}/failures', () => {
  let base: string;
  it.beforeEach(async ({ projectId }) => {
    base = `http://localhost:80/api/v1/projects/${projectId}/failures`;
  });

  describe('the recorded failure (failure.json)', () => {
    it('is listed with every field from the body: framework_version from laravel_version, occurred_at in UTC, metadata object', async ({
      ctx,
      projectId,
      sendOk,
      list,
    }) => {
      const sent = failureBody(projectId);
      ctx.clock.set('2026-11-21T05:10:00.000Z');
      const posted = await sendOk(sent);
      expectJson(posted);

      const response = await list();
      expect(response.statusCode).toBe(200);
      expectJson(response);
      const body = response.json();
      expect(body.data).toHaveLength(1);
      const item = body.data[0];
      expect(Object.keys(item).sort()).toEqual(FAILURE_KEYS);
      expect(Number.isInteger(item.id)).toBe(true);
      expect(item.uuid).toMatch(UUID_V7);
      expect(item).toEqual({
        id: item.id,
        uuid: item.uuid,
        failure_reason: 'uncaught_exception',
        failure_label: 'Uncaught exception during analysis',
        error_message: sent.error_message,
        triggered_by: 'ci_cd',
        framework_version: '11.44.2',
        package_version: '1.13.3.0',
        occurred_at: '2026-11-21T05:09:26.000Z',
        metadata: sent.metadata,
        created_at: '2026-11-21T05:10:00.000Z',
      });
      expect(item.metadata).toMatchObject({ git_branch: 'main', ci_provider: 'github_actions', php_version: '8.2.35' });
      expect(body.links).toEqual({ first: `${base}?page=1`, last: `${base}?page=1`, prev: null, next: null });
      expect(body.meta).toEqual({ current_page: 1, per_page: 20, total: 1, last_page: 1, from: 1, to: 1, path: base });
    });

    it('normalises an occurred_at with an offset to UTC Z', async ({ projectId, sendOk, list }) => {
      await sendOk({ ...failureBody(projectId), occurred_at: '2026-05-12T11:00:00+02:00' });
      const item = (await list()).json().data[0];
      expect(item.occurred_at).toBe('2026-05-12T09:00:00.000Z');
      expect(item.created_at).toMatch(ISO_UTC);
    });

    it('stores metadata [] as {} (CLIENT-WIRE.md quirks)', async ({ projectId, sendOk, list }) => {
      await sendOk({ ...failureBody(projectId), metadata: [] });
      const item = (await list()).json().data[0];
      expect(item.metadata).toEqual({});
    });

    it('accepts project_id "unknown" and records against the token project', async ({ projectId, sendOk, list }) => {
      await sendOk({ ...failureBody(projectId), project_id: 'unknown' });
      expect((await list()).json().meta.total).toBe(1);
    });
  });

  describe('validation', () => {
    it.for(['crashed', 'UNCAUGHT_EXCEPTION', 42])(
      'refuses failure_reason %j with 422 and stores nothing',
      async (reason, { projectId, send, list, storedCount }) => {
        const response = await send({ ...failureBody(projectId), failure_reason: reason });
        expect(response.statusCode, response.body).toBe(422);
        expectJson(response);
        const body = response.json();
        expect(body.success).toBe(false);
        expect(body.error).toBe('Validation Failed');
        expect(typeof body.message).toBe('string');
        expect(Object.keys(body.errors)).toEqual(['failure_reason']);
        expect(body.message).toBe(body.errors.failure_reason[0]);
        expect(await storedCount()).toBe(0);
        expect((await list()).json().data).toEqual([]);
      },
    );

    it.for(['invalid_options', 'all_categories_disabled', 'no_analyzers_ran', 'uncaught_exception'])(
      'accepts failure_reason %s',
      async (reason, { projectId, sendOk, list }) => {
        await sendOk({ ...failureBody(projectId), failure_reason: reason });
        expect((await list()).json().data[0].failure_reason).toBe(reason);
      },
    );

    it.for(['0', 'abc'])('rejects page=%s on the list with 422 on errors.page (D16)', async (page, { list }) => {
      expectValidationError(await list(`?page=${page}`), ['page']);
    });
  });

  describe('order and pagination', () => {
    it('lists newest occurred_at first, whatever order the failures arrived in', async ({ ctx, projectId, sendOk, list }) => {
      const order = ['2026-11-20T10:00:00+00:00', '2026-11-21T08:00:00+00:00', '2026-11-19T23:00:00+00:00', '2026-11-21T09:30:00+02:00'];
      for (const [i, at] of order.entries()) {
        await sendOk({ ...failureBody(projectId), occurred_at: at, error_message: `failure ${i}` });
        ctx.clock.advance(1000);
      }
      const data = (await list()).json().data as { error_message: string; occurred_at: string }[];
      expect(data.map((f) => [f.error_message, f.occurred_at])).toEqual([
        ['failure 1', '2026-11-21T08:00:00.000Z'],
        ['failure 3', '2026-11-21T07:30:00.000Z'],
        ['failure 0', '2026-11-20T10:00:00.000Z'],
        ['failure 2', '2026-11-19T23:00:00.000Z'],
      ]);
    });

    it('breaks occurred_at ties by the highest id', async ({ projectId, sendOk, list }) => {
      for (let i = 0; i < 3; i++) {
        await sendOk({ ...failureBody(projectId), occurred_at: '2026-11-21T08:00:00+00:00', error_message: `tie ${i}` });
      }
      const data = (await list()).json().data as { id: number; error_message: string }[];
      expect(data.map((f) => f.error_message)).toEqual(['tie 2', 'tie 1', 'tie 0']);
      expect(data.map((f) => f.id)).toEqual([...data.map((f) => f.id)].sort((a, b) => b - a));
    });

    it('puts 20 failures on a page; the 21st to 23rd on page 2; a page past the end is empty', async ({ projectId, sendOk, list }) => {
      for (let i = 0; i < 23; i++) {
        const at = new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString();
        await sendOk({ ...failureBody(projectId), occurred_at: at, error_message: `run ${i}` });
      }
      const expected = Array.from({ length: 23 }, (_, i) => `run ${22 - i}`);

      const first = (await list()).json();
      expect(first.data.map((f: { error_message: string }) => f.error_message)).toEqual(expected.slice(0, 20));
      expect(first.links).toEqual({ first: `${base}?page=1`, last: `${base}?page=2`, prev: null, next: `${base}?page=2` });
      expect(first.meta).toEqual({ current_page: 1, per_page: 20, total: 23, last_page: 2, from: 1, to: 20, path: base });

      const second = (await list('?page=2')).json();
      expect(second.data.map((f: { error_message: string }) => f.error_message)).toEqual(expected.slice(20));
      expect(second.meta).toMatchObject({ current_page: 2, from: 21, to: 23 });
      expect(second.links.next).toBeNull();

      const past = await list('?page=3');
      expect(past.statusCode).toBe(200);
      expect(past.json().data).toEqual([]);
      expect(past.json().meta).toMatchObject({ current_page: 3, total: 23, from: null, to: null });
    });

    it('answers an empty envelope when the project has no failures', async ({ list }) => {
      expect((await list()).json()).toEqual({
        data: [],
        links: { first: `${base}?page=1`, last: `${base}?page=1`, prev: null, next: null },
        meta: { current_page: 1, per_page: 20, total: 0, last_page: 1, from: null, to: null, path: base },
      });
    });

    it("lists only the project's own failures", async ({ ctx, user, projectId, sendOk, list }) => {
      const other = await ctx.given.project(user, { name: 'Other' });
      await sendOk({ ...failureBody(other.project.id), error_message: 'theirs' }, other.apiToken);
      await sendOk({ ...failureBody(projectId), error_message: 'mine' });
      expect((await list()).json().data.map((f: { error_message: string }) => f.error_message)).toEqual(['mine']);
      expect((await list('', other.project.id)).json().data.map((f: { error_message: string }) => f.error_message)).toEqual(['theirs']);
    });

    it('keeps failures apart from reports (a failure is not a report)', async ({ ctx, user, projectId, sendOk }) => {
      await sendOk(failureBody(projectId));
      const reports = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/reports`, token: user.token });
      expect(reports.json().data).toEqual([]);
      const project = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}`, token: user.token });
      expect(project.json().data.latest_report).toBeNull();
    });
  });
});
