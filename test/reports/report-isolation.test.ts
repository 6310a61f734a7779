import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TeamRole } from '../../src/db/schema.js';
import { buildTestApp, type RequestOptions, type TestContext, type TestUser } from '../helpers/test-app.js';
import { SUBSCRIPTION_REQUIRED, expectApiHeaders, expectError, expectNotFound } from '../helpers/contract.js';
import { result, uploadBody } from '../helpers/reports-world.js';
import { uploadOk } from '../helpers/client-wire.js';

type Call = { name: string; request: () => Omit<RequestOptions, 'token'> };

// D15: a project's reports and failed runs are visible to members of its team only; to anyone
// else they do not exist (404, D3 envelope). D7: all four need an active subscription.
describe('report endpoints across teams (D3, D7, D15)', () => {
  let ctx: TestContext;
  let owner: TestUser;
  let projectId: string;
  let reportUuid: string;
  let calls: Call[];
  beforeEach(async () => {
    ctx = await buildTestApp();
    owner = await ctx.given.user({ plan: 'business' });
    const created = await ctx.given.project(owner, { name: 'Owned' });
    projectId = created.project.id;
    reportUuid = (await uploadOk(ctx, created.apiToken, uploadBody([result('sql-injection', 'failed', ['high'])]))).report.uuid;
    const failure = await ctx.request({
      method: 'POST',
      url: '/api/reports/failure',
      token: created.apiToken,
      body: { failure_reason: 'uncaught_exception', error_message: 'boom', occurred_at: '2026-11-21T09:00:00+00:00' },
    });
    expect(failure.statusCode, failure.body).toBe(201);
    calls = [
      { name: 'GET /projects/{p}/reports', request: () => ({ method: 'GET', url: `/api/v1/projects/${projectId}/reports` }) },
      { name: 'GET /projects/{p}/failures', request: () => ({ method: 'GET', url: `/api/v1/projects/${projectId}/failures` }) },
      { name: 'GET /reports/{uuid}', request: () => ({ method: 'GET', url: `/api/v1/reports/${reportUuid}` }) },
      { name: 'DELETE /reports/{uuid}', request: () => ({ method: 'DELETE', url: `/api/v1/reports/${reportUuid}` }) },
    ];
  });
  afterEach(async () => ctx.close());

  const NAMES = ['GET /projects/{p}/reports', 'GET /projects/{p}/failures', 'GET /reports/{uuid}', 'DELETE /reports/{uuid}'];
  const call = (name: string, token: string) => ctx.request({ ...calls.find((c) => c.name === name)!.request(), token });

  /** Everything the four endpoints could read or change. */
  const snapshot = async () => ({
    reports: await ctx.db.selectFrom('reports').selectAll().orderBy('id').execute(),
    failures: await ctx.db.selectFrom('run_failures').selectAll().orderBy('id').execute(),
    projects: await ctx.db.selectFrom('projects').selectAll().orderBy('id').execute(),
  });

  describe('a user of another team', () => {
    let stranger: TestUser;
    beforeEach(async () => {
      stranger = await ctx.given.user({ plan: 'enterprise' });
      // The stranger's own team has a project with reports too: it must not widen access.
      const own = await ctx.given.project(stranger, { name: 'Theirs' });
      await uploadOk(ctx, own.apiToken, uploadBody([result('csrf-protection', 'passed')]));
    });

    it.each(NAMES)('gets 404 in the D3 envelope on %s, and nothing changes', async (name) => {
      const before = await snapshot();
      const response = await call(name, stranger.token);
      expectNotFound(response);
      expectApiHeaders(response);
      expect(await snapshot()).toEqual(before);
    });

    it.each(NAMES)('gets the same 404 on %s as for a resource that does not exist', async (name) => {
      const foreign = await call(name, stranger.token);
      const missingUrl = calls
        .find((c) => c.name === name)!
        .request()
        .url!.replace(projectId, '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b')
        .replace(reportUuid, '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9c');
      const missing = await ctx.request({ method: name.split(' ')[0] as 'GET' | 'DELETE', url: missingUrl, token: stranger.token });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.body).toBe(missing.body);
    });

    it.each(NAMES)('gets access on %s once added to the team (as admin)', async (name) => {
      await ctx.given.member(owner.teamId!, stranger, 'admin');
      const response = await call(name, stranger.token);
      expect(response.statusCode, response.body).toBe(200);
    });

    it.each(NAMES.filter((n) => n.startsWith('GET')))(
      'gets access on %s once added to the team, even when that team is not current',
      async (name) => {
        await ctx.given.member(owner.teamId!, stranger, 'readonly', { makeCurrent: false });
        const response = await call(name, stranger.token);
        expect(response.statusCode, response.body).toBe(200);
      },
    );

    it('gets 404 for a user without any team', async () => {
      const loner = await ctx.given.user({ withTeam: false });
      for (const name of NAMES) expectNotFound(await call(name, loner.token));
    });
  });

  describe('members of the team', () => {
    it.each<TeamRole>(['owner', 'admin', 'member', 'readonly'])('a %s sees the reports, the failures and the report', async (role) => {
      const user = await ctx.given.inRole(owner, role);

      const reports = await call('GET /projects/{p}/reports', user.token);
      expect(reports.statusCode).toBe(200);
      expect(reports.json().data.map((r: { uuid: string }) => r.uuid)).toEqual([reportUuid]);

      const failures = await call('GET /projects/{p}/failures', user.token);
      expect(failures.statusCode).toBe(200);
      expect(failures.json().data.map((f: { error_message: string }) => f.error_message)).toEqual(['boom']);

      const report = await call('GET /reports/{uuid}', user.token);
      expect(report.statusCode).toBe(200);
      expect(report.json().data.uuid).toBe(reportUuid);
    });
  });

  describe('D7: subscription', () => {
    it.each(NAMES)('answers 403 Subscription Required on %s when the owner subscription lapsed, and nothing changes', async (name) => {
      await ctx.given.plan(owner, null);
      const before = await snapshot();
      const response = await call(name, owner.token);
      expectError(response, 403, SUBSCRIPTION_REQUIRED);
      expectApiHeaders(response);
      expect(await snapshot()).toEqual(before);
    });

    it.each(NAMES)('answers 403 Subscription Required on %s before the 404 of a foreign project (D4)', async (name) => {
      const stranger = await ctx.given.user({ plan: null });
      expectError(await call(name, stranger.token), 403, SUBSCRIPTION_REQUIRED);
    });

    it.each(NAMES)('works again on %s when the subscription is renewed', async (name) => {
      await ctx.given.plan(owner, null);
      expectError(await call(name, owner.token), 403, SUBSCRIPTION_REQUIRED);
      await ctx.given.plan(owner, 'solo');
      expect((await call(name, owner.token)).statusCode).toBe(200);
    });
  });
});
