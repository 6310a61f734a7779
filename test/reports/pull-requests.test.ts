/**
 * `GET /api/v1/projects/{project}/pull-requests`: one entry per pull request of the project, with
 * its latest report in D19's order (analyzed_at, then id) in the report list's item shape, newest
 * first, paginated like D16. Permissions, abilities, the subscription and a bad page are checked
 * with every other endpoint (test/helpers/endpoints.ts).
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { expectApiHeaders } from '../helpers/contract.js';
import { REPORT_LIST_ITEM_KEYS } from '../helpers/reports-world.js';
import { IDENTIFICATION_STATEMENT } from '../helpers/test-app.js';

type Git = { git_branch?: string; pr_number?: string; base_branch?: string };

const it = appTest()
  .extend('get', ({ ctx, user }) => async (url: string) => {
    const response = await ctx.request({ method: 'GET', url, token: user.token });
    expect(response.statusCode, response.body).toBe(200);
    expectApiHeaders(response);
    return response.json();
  })
  .extend(
    'store',
    ({ ctx, projectId }) =>
      async (git: Git, analyzedAt: string) =>
        (await ctx.given.report(projectId, { analyzed_at: analyzedAt, metadata: JSON.stringify(git) })).uuid,
  )
  .extend(
    'pullRequests',
    ({ get, projectId }) =>
      async (query = '') =>
        get(`/api/v1/projects/${projectId}/pull-requests${query}`),
  );

const pr = (number: string, branch = `feature/${number}`): Git => ({ git_branch: branch, pr_number: number, base_branch: 'main' });

describe('GET /projects/{project}/pull-requests', () => {
  it('lists each pull request once with its latest report, newest first, and leaves out the runs of no pull request', async ({
    get,
    projectId,
    store,
    pullRequests,
  }) => {
    await store(pr('7'), '2026-11-20T08:00:00Z');
    const seven = await store(pr('7'), '2026-11-21T08:00:00Z');
    // An older upload of a pull request does not replace its latest report.
    await store(pr('7'), '2026-11-19T08:00:00Z');
    const twelve = await store(pr('12'), '2026-11-20T12:00:00Z');
    await store({ git_branch: 'main' }, '2026-11-22T08:00:00Z');
    // A pull request the client sent without its base branch is a pull request all the same.
    const nine = await store({ pr_number: '9' }, '2026-11-21T09:00:00Z');

    const answer = await pullRequests();
    expect(answer.data.map((item: Record<string, any>) => [item.pull_request, item.latest_report.uuid])).toEqual([
      ['9', nine],
      ['7', seven],
      ['12', twelve],
    ]);
    const [, first] = answer.data;
    expect(Object.keys(first).sort()).toEqual(['latest_report', 'pull_request']);
    expect(Object.keys(first.latest_report).sort()).toEqual(REPORT_LIST_ITEM_KEYS);
    const listed = (await get(`/api/v1/projects/${projectId}/reports`)).data as Record<string, any>[];
    expect(first.latest_report).toEqual(listed.find((report) => report.uuid === seven));
    expect(first.latest_report).toMatchObject({ pull_request: '7', base_branch: 'main', branch: 'feature/7' });
    expect(answer.meta).toMatchObject({ current_page: 1, total: 3, last_page: 1, from: 1, to: 3 });
  });

  it("breaks a tie of analyzed_at by the higher id, D19's order", async ({ store, pullRequests }) => {
    await store(pr('3'), '2026-11-21T08:00:00Z');
    const later = await store(pr('3'), '2026-11-21T08:00:00Z');
    expect((await pullRequests()).data.map((item: Record<string, any>) => item.latest_report.uuid)).toEqual([later]);
  });

  it('pages by pull request, 20 a page, with the links of D16', async ({ projectId, store, pullRequests }) => {
    for (let number = 1; number <= 21; number += 1) {
      // Two runs each: the page counts pull requests, not reports.
      await store(pr(String(number)), `2026-11-01T${String(number).padStart(2, '0')}:00:00Z`);
      await store(pr(String(number)), `2026-11-02T${String(number).padStart(2, '0')}:00:00Z`);
    }
    const first = await pullRequests();
    expect(first.data).toHaveLength(20);
    expect(first.data[0].pull_request).toBe('21');
    expect(first.meta).toMatchObject({ total: 21, last_page: 2, per_page: 20 });
    const base = `http://localhost:80/api/v1/projects/${projectId}/pull-requests`;
    expect(first.links).toEqual({ first: `${base}?page=1`, last: `${base}?page=2`, prev: null, next: `${base}?page=2` });
    const second = await pullRequests('?page=2');
    expect(second.data.map((item: Record<string, any>) => [item.pull_request, item.latest_report.analyzed_at])).toEqual([
      ['1', '2026-11-02T01:00:00Z'],
    ]);
    expect((await pullRequests('?page=3')).data).toEqual([]);
  });

  it('answers an empty page for a project without pull requests', async ({ store, pullRequests }) => {
    await store({ git_branch: 'main' }, '2026-11-21T08:00:00Z');
    const answer = await pullRequests();
    expect(answer.data).toEqual([]);
    expect(answer.meta).toMatchObject({ total: 0, last_page: 1, from: null, to: null });
  });

  it('costs the same statements for one pull request as for many', async ({ ctx, user, projectId, store }) => {
    const statementsOf = async () => {
      ctx.queries.length = 0;
      const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/pull-requests`, token: user.token });
      expect(response.statusCode).toBe(200);
      return ctx.queries.filter((query) => !IDENTIFICATION_STATEMENT.test(query));
    };
    await store(pr('1'), '2026-11-21T08:00:00Z');
    const one = await statementsOf();
    for (let number = 2; number <= 8; number += 1) await store(pr(String(number)), '2026-11-21T09:00:00Z');
    expect(await statementsOf()).toEqual(one);
  });
});
