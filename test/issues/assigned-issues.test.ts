/**
 * E8.2's GET /user/issues over HTTP: the states assigned to the caller in the projects of the teams
 * they belong to (any role), each with its project, newest change first, in D16's envelope; no
 * subscription needed (E4: /user* stays open to a lapsed user).
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { expectValidationError, UNAUTHENTICATED, expectError } from '../helpers/contract.js';
import type { TestContext, TestUser } from '../helpers/test-app.js';
import { DEBUG, SQL, XSS, bulk, changesOf, manySpots, ok, putState, uploadSpots } from './issues-world.js';

const it = appTest({ user: { plan: 'business', name: 'Lead' } });

/** A project of `teamId` with a report holding `spots`; the project's id and its issues' fingerprints in list order. */
async function projectWithIssues(ctx: TestContext, viewer: TestUser, teamId: number, name: string, spots = [SQL, XSS, DEBUG]) {
  const { project, apiToken } = await ctx.given.project(teamId, { name });
  const uuid = await uploadSpots(ctx, apiToken, spots);
  const fingerprints = (await changesOf(ctx, viewer.token, uuid)).map((item) => item.fingerprint as string);
  return { projectId: project.id, fingerprints };
}

const mine = async (ctx: TestContext, user: TestUser, query = '') => {
  const response = await ctx.request({ method: 'GET', url: `/api/v1/user/issues${query}`, token: user.token });
  return ok(response);
};

describe('GET /user/issues (E8.2)', () => {
  it('lists the states assigned to the caller across their teams, each with its project, newest change first', async ({ ctx, user }) => {
    const colleague = await ctx.given.user({ plan: 'business', name: 'Colleague' });
    const shared = await ctx.given.team(user, 'Shared');
    await ctx.given.member(shared, colleague, 'readonly', { makeCurrent: false });
    const home = await projectWithIssues(ctx, user, user.teamId!, 'Home');
    const team = await projectWithIssues(ctx, user, shared, 'Team');

    ok(await putState(ctx, user.token, home.projectId, home.fingerprints[0]!, { status: 'confirmed', assignee_id: user.id }));
    ctx.clock.advance(1000);
    ok(
      await putState(ctx, user.token, team.projectId, team.fingerprints[1]!, {
        status: 'wont_fix',
        comment: 'Old',
        assignee_id: colleague.id,
      }),
    );
    ctx.clock.advance(1000);
    ok(await putState(ctx, user.token, team.projectId, team.fingerprints[0]!, { status: 'confirmed', assignee_id: user.id }));
    // Not assigned, or assigned to someone else: not listed.
    ok(await putState(ctx, user.token, home.projectId, home.fingerprints[2]!, { status: 'confirmed' }));

    const answer = await mine(ctx, user);
    expect(answer.data.map((item: Record<string, any>) => [item.project, item.fingerprint])).toEqual([
      [{ id: team.projectId, name: 'Team' }, team.fingerprints[0]],
      [{ id: home.projectId, name: 'Home' }, home.fingerprints[0]],
    ]);
    const [first] = answer.data;
    expect(first).toMatchObject({
      status: 'confirmed',
      assignee: { id: user.id, name: 'Lead' },
      updated_by: { id: user.id, name: 'Lead' },
      updated_at: '2026-11-21T10:00:02.000Z',
      issue: { severity: 'critical', message: SQL.message },
      ticket: null,
    });
    expect(answer.meta).toMatchObject({ current_page: 1, per_page: 20, total: 2, last_page: 1, from: 1, to: 2 });
    expect(answer.links).toEqual({
      first: 'http://localhost:80/api/v1/user/issues?page=1',
      last: 'http://localhost:80/api/v1/user/issues?page=1',
      prev: null,
      next: null,
    });

    // The colleague sees theirs (a read-only member may be assigned), and a stranger sees nothing.
    const theirs = await mine(ctx, colleague);
    expect(theirs.data.map((item: Record<string, any>) => item.fingerprint)).toEqual([team.fingerprints[1]]);
    expect(theirs.data[0].project).toEqual({ id: team.projectId, name: 'Team' });
    const stranger = await ctx.given.user();
    expect((await mine(ctx, stranger)).data).toEqual([]);
  });

  it('an assignee removed from a team no longer sees its issues; back in the team, sees them again', async ({ ctx, user }) => {
    const helper = await ctx.given.user({ plan: 'business' });
    const shared = await ctx.given.team(user, 'Shared');
    await ctx.given.member(shared, helper, 'member', { makeCurrent: false });
    const team = await projectWithIssues(ctx, user, shared, 'Team');
    ok(await putState(ctx, user.token, team.projectId, team.fingerprints[0]!, { status: 'confirmed', assignee_id: helper.id }));
    expect((await mine(ctx, helper)).meta.total).toBe(1);

    const removed = await ctx.request({ method: 'DELETE', url: `/api/v1/teams/${shared}/members/${helper.id}`, token: user.token });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await mine(ctx, helper)).toMatchObject({ data: [], meta: { total: 0 } });

    await ctx.given.member(shared, helper, 'readonly', { makeCurrent: false });
    expect((await mine(ctx, helper)).meta.total).toBe(1);
  });

  it('pages by 20 (D16), ties on the same instant ordered by project then fingerprint', async ({ ctx, user }) => {
    const first = await projectWithIssues(ctx, user, user.teamId!, 'Big', manySpots(15));
    const second = await projectWithIssues(ctx, user, user.teamId!, 'Bigger', manySpots(10, 'other-smells'));
    // One instant for all 25 (the fake clock does not move).
    ok(await bulk(ctx, user.token, first.projectId, { fingerprints: first.fingerprints, status: 'confirmed', assignee_id: user.id }));
    ok(await bulk(ctx, user.token, second.projectId, { fingerprints: second.fingerprints, status: 'confirmed', assignee_id: user.id }));

    const page1 = await mine(ctx, user);
    const page2 = await mine(ctx, user, '?page=2');
    const page3 = await mine(ctx, user, '?page=3');
    expect(page1.data).toHaveLength(20);
    expect(page2.data).toHaveLength(5);
    expect(page3.data).toEqual([]);
    expect(page2.meta).toMatchObject({ current_page: 2, total: 25, last_page: 2, from: 21, to: 25 });
    expect(page2.links.prev).toBe('http://localhost:80/api/v1/user/issues?page=1');
    expect(page1.links.next).toBe('http://localhost:80/api/v1/user/issues?page=2');
    expect(page3.meta).toMatchObject({ from: null, to: null });
    const listed = [...page1.data, ...page2.data].map((item: Record<string, any>) => [item.project.id, item.fingerprint]);
    // The newer project (a larger UUID v7) first, then each project's fingerprints in order.
    const expected = [
      ...[...second.fingerprints].sort().map((fingerprint) => [second.projectId, fingerprint]),
      ...[...first.fingerprints].sort().map((fingerprint) => [first.projectId, fingerprint]),
    ];
    expect(second.projectId > first.projectId).toBe(true);
    expect(listed).toEqual(expected);
  });

  it('needs no subscription, but a token (read) and a valid page', async ({ ctx, user }) => {
    const lapsed = await ctx.given.user({ plan: null });
    expect((await mine(ctx, lapsed)).data).toEqual([]);
    expectError(await ctx.request({ method: 'GET', url: '/api/v1/user/issues' }), 401, UNAUTHENTICATED);
    for (const page of ['0', '-1', 'x', '1e3', '2147483648']) {
      expectValidationError(await ctx.request({ method: 'GET', url: `/api/v1/user/issues?page=${page}`, token: user.token }), ['page']);
    }
  });
});
