import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { NOT_FOUND, SUBSCRIPTION_REQUIRED, expectError, expectValidationError } from '../helpers/contract.js';
import { requester } from './audit-world.js';

const it = appTest({ env: { PUBLIC_URL: 'https://scores.example.com' }, user: { plan: 'business' } })
  .extend('teamId', ({ user: owner }) => owner.teamId!)
  .extend('send', ({ ctx }) => requester(ctx))
  .extend(
    'projectChanges',
    ({ ctx, send }) =>
      async function projectChanges(token: string, count: number): Promise<string> {
        const id = (await send('POST', '/api/v1/projects', token, { name: 'P0', framework_version: '11' })).json().project.id;
        for (let i = 1; i <= count; i++) {
          ctx.clock.advance(1000);
          expect((await send('PUT', `/api/v1/projects/${id}`, token, { name: `P${i}`, framework_version: '11' })).statusCode).toBe(200);
        }
        return id;
      },
  );

const OWNER_OR_ADMIN = { error: 'Forbidden', message: 'This action requires the owner or admin role in this team.' };

/**
 * E5's two lists: a team's events (owner or admin) and the caller's own; newest first, D16's
 * envelope, the `action` filter kept in every link. Neither shows what it should not.
 */
describe('GET /teams/{team}/audit-events and GET /user/audit-events (E5)', () => {
  it("lists the team's events newest first, 20 a page, with the action filter in every link", async ({
    user: owner,
    teamId,
    send,
    projectChanges,
  }) => {
    await projectChanges(owner.token, 22); // 1 created + 22 updated, after users:create's team.created
    const url = `/api/v1/teams/${teamId}/audit-events`;
    const first = await send('GET', url, owner.token);
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.meta).toMatchObject({ current_page: 1, per_page: 20, total: 24, last_page: 2, from: 1, to: 20 });
    const ids = body.data.map((e: { id: number }) => e.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    expect(body.data[0]).toMatchObject({ action: 'project.updated', team_id: teamId, details: { name: { old: 'P21', new: 'P22' } } });
    expect(body.data[0].actor).toEqual({ type: 'user', id: owner.id, email: owner.email, token_id: expect.any(Number) });

    const filtered = (await send('GET', `${url}?action=project.created`, owner.token)).json();
    expect(filtered.data.map((e: { action: string }) => e.action)).toEqual(['project.created']);
    const page2 = (await send('GET', `${url}?action=project.updated&page=2`, owner.token)).json();
    expect(page2.data).toHaveLength(2);
    expect(page2.links).toEqual({
      first: `https://scores.example.com${url}?action=project.updated&page=1`,
      last: `https://scores.example.com${url}?action=project.updated&page=2`,
      prev: `https://scores.example.com${url}?action=project.updated&page=1`,
      next: null,
    });
    expect((await send('GET', `${url}?page=9`, owner.token)).json()).toMatchObject({ data: [], meta: { from: null, to: null, total: 24 } });
  });

  it('shows them to the owner and admins; members and readonly members get 403, others 404, in D4 order', async ({
    ctx,
    user: owner,
    teamId,
    send,
    projectChanges,
  }) => {
    await projectChanges(owner.token, 1);
    const url = `/api/v1/teams/${teamId}/audit-events`;
    const admin = await ctx.given.user();
    const member = await ctx.given.user();
    const readonly = await ctx.given.user();
    const stranger = await ctx.given.user();
    await ctx.given.member(teamId, admin, 'admin');
    await ctx.given.member(teamId, member, 'member');
    await ctx.given.member(teamId, readonly, 'readonly');
    const seen = (await send('GET', url, admin.token)).json().data as Array<{ action: string; actor: { type: string } }>;
    expect(seen.map((e) => [e.action, e.actor.type])).toEqual([
      ['member.added', 'operator'],
      ['member.added', 'operator'],
      ['member.added', 'operator'],
      ['project.updated', 'user'],
      ['project.created', 'user'],
      ['team.created', 'operator'], // the personal team, by users:create
    ]);
    expectError(await send('GET', url, member.token), 403, OWNER_OR_ADMIN);
    expectError(await send('GET', url, readonly.token), 403, OWNER_OR_ADMIN);
    // 404 (step 7) before 403 (step 8) before 422 (step 9).
    expectError(await send('GET', `${url}?action=nope`, stranger.token), 404, NOT_FOUND);
    expectError(await send('GET', `${url}?action=nope`, member.token), 403, OWNER_OR_ADMIN);
    for (const team of ['abc', '0', '-1', '1.5', '99999999'])
      expectError(await send('GET', `/api/v1/teams/${team}/audit-events`, owner.token), 404, NOT_FOUND);
    expectValidationError(await send('GET', `${url}?action=nope`, owner.token), ['action'], { action: 'The selected action is invalid.' });
    expectValidationError(await send('GET', `${url}?page=0`, owner.token), ['page']);
    // D7 applies to /teams*.
    await ctx.given.plan(admin, null);
    expectError(await send('GET', url, admin.token), 403, SUBSCRIPTION_REQUIRED);
  });

  it("never shows another team's events", async ({ ctx, user: owner, teamId, send, projectChanges }) => {
    const other = await ctx.given.user();
    await projectChanges(other.token, 3);
    await projectChanges(owner.token, 1);
    const events = (await send('GET', `/api/v1/teams/${teamId}/audit-events`, owner.token)).json().data;
    expect(events.map((e: { action: string }) => e.action)).toEqual(['project.updated', 'project.created', 'team.created']);
    expect(
      events.every(
        (e: { team_id: number; actor: { type: string; id: number | null } }) =>
          e.team_id === teamId && (e.actor.type === 'operator' || e.actor.id === owner.id),
      ),
    ).toBe(true);
  });

  it("lists the caller's own actions and the operator's changes to their tokens, not others' events, without a subscription", async ({
    ctx,
    user: owner,
    teamId,
    send,
    projectChanges,
  }) => {
    const admin = await ctx.given.user();
    await ctx.given.member(teamId, admin, 'admin');
    await projectChanges(admin.token, 1); // in the owner's team, by the admin
    await projectChanges(owner.token, 1);
    await ctx.given.token(owner, { name: 'from the operator' });
    await ctx.given.plan(owner, null);

    const response = await send('GET', '/api/v1/user/audit-events', owner.token);
    expect(response.statusCode).toBe(200);
    const events = response.json().data as Array<{ action: string; actor: { type: string; id: number | null } }>;
    expect(events.map((e) => [e.action, e.actor.type])).toEqual([
      ['user.plan_changed', 'operator'], // users:plan --plan none
      ['token.created', 'operator'], // the token made by tokens:create
      ['project.updated', 'user'],
      ['project.created', 'user'],
      ['token.created', 'operator'], // users:create: the first token, the personal team, the user
      ['team.created', 'operator'],
      ['user.created', 'operator'],
    ]);
    expect(events.filter((e) => e.actor.type === 'user').every((e) => e.actor.id === owner.id)).toBe(true);
    const filtered = (await send('GET', '/api/v1/user/audit-events?action=token.created', owner.token)).json();
    expect(filtered.meta.total).toBe(2);
    expectValidationError(await send('GET', '/api/v1/user/audit-events?action=token.stolen', owner.token), ['action']);
  });

  it('has no way to change or delete an event', async ({ user: owner, teamId, send }) => {
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      expect((await send(method, `/api/v1/teams/${teamId}/audit-events`, owner.token)).statusCode).toBe(405);
      expect((await send(method, '/api/v1/user/audit-events', owner.token)).statusCode).toBe(405);
    }
    expect((await send('DELETE', `/api/v1/teams/${teamId}/audit-events/1`, owner.token)).statusCode).toBe(404);
  });
});
