/**
 * E4, teams: `GET /teams` (the caller's teams, by id), `POST /teams` (Business or Enterprise plan;
 * the caller becomes owner and it becomes their current team), `GET /teams/{team}` (any member),
 * `PUT /teams/{team}` (owner or admin), `DELETE /teams/{team}` (owner; a personal team cannot be
 * deleted; its projects and their reports go with it; members who had it as current team fall back
 * to their personal team, or none). D7 applies to /teams*.
 */
import { describe, expect } from 'vitest';
import { teamsTest as it } from './teams-world.js';
import { expectApiHeaders, expectError, missingAbility, NOT_FOUND, SUBSCRIPTION_REQUIRED } from '../helpers/contract.js';
import {
  currentTeamOf,
  expectFieldError,
  expectNoEvent,
  expectOneEvent,
  invitationRows,
  ISO_UTC,
  lastEventId,
  memberOf,
  membershipsOf,
  NAME_REQUIRED,
  NAME_TOO_LONG,
  NEEDS_OWNER,
  NEEDS_OWNER_OR_ADMIN,
  NEEDS_TEAM_PLAN,
  PERSONAL_TEAM_KEPT,
  sharedTeam,
  TEAM_CREATED,
  TEAM_DELETED,
} from './teams-world.js';

describe('GET /api/v1/teams', () => {
  it("lists the caller's teams ordered by id, each in E4's shape with the caller's role and the counts", async ({ ctx, api }) => {
    // The reader's personal team is made first, so it has the lower id.
    const reader = await ctx.given.user();
    const owner = await ctx.given.user({ plan: 'enterprise', name: 'Olive' });
    const shared = await ctx.given.team(owner, 'Acme');
    await ctx.given.member(shared, reader, 'readonly');
    await ctx.given.project(shared, { name: 'One' });
    await ctx.given.project(shared, { name: 'Two' });
    const elsewhere = await sharedTeam(ctx, [], 'Not theirs');

    const response = await api.teams(reader.token);
    expect(response.statusCode, response.body).toBe(200);
    expectApiHeaders(response);
    expect(response.json()).toEqual({
      data: [
        {
          id: reader.teamId,
          name: `${reader.email}'s team`,
          personal_team: true,
          owner_id: reader.id,
          role: 'owner',
          member_count: 1,
          project_count: 0,
          created_at: expect.stringMatching(ISO_UTC),
        },
        {
          id: shared,
          name: 'Acme',
          personal_team: false,
          owner_id: owner.id,
          role: 'readonly',
          member_count: 2,
          project_count: 2,
          created_at: expect.stringMatching(ISO_UTC),
        },
      ],
    });
    expect(response.json().data.map((team: { id: number }) => team.id)).not.toContain(elsewhere.id);

    // Ordered by id whatever the order of joining.
    const owners = (await api.teams(owner.token)).json().data.map((team: { id: number; role: string }) => [team.id, team.role]);
    expect(owners).toEqual([
      [owner.teamId, 'owner'],
      [shared, 'owner'],
    ]);
  });

  it('answers an empty list to a user in no team', async ({ ctx, api }) => {
    const loner = await ctx.given.user({ withTeam: false });
    const response = await api.teams(loner.token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ data: [] });
  });

  it('answers 403 Subscription Required without an active subscription (D7 on /teams*)', async ({ ctx, api }) => {
    const lapsed = await ctx.given.user({ plan: 'enterprise' });
    await ctx.given.plan(lapsed, null);
    expectError(await api.teams(lapsed.token), 403, SUBSCRIPTION_REQUIRED);
  });
});

describe('POST /api/v1/teams', () => {
  it.for(['business', 'enterprise'] as const)(
    'on a %s plan: 201 with the team and the message; the caller is its owner and it becomes their current team',
    async (plan, { ctx, api }) => {
      const user = await ctx.given.user({ plan });
      const since = await lastEventId(ctx);
      const response = await api.createTeam(user.token, { name: '  Platform  ' });
      expect(response.statusCode, response.body).toBe(201);
      expectApiHeaders(response);
      const body = response.json();
      expect(body).toEqual({
        team: {
          id: expect.any(Number),
          name: 'Platform',
          personal_team: false,
          owner_id: user.id,
          role: 'owner',
          member_count: 1,
          project_count: 0,
          created_at: expect.stringMatching(ISO_UTC),
        },
        message: TEAM_CREATED,
      });
      const teamId = body.team.id as number;
      expect(await membershipsOf(ctx, teamId)).toEqual({ [user.id]: 'owner' });
      expect(await currentTeamOf(ctx, user.id)).toBe(teamId);
      expect((await api.profile(user.token)).json().data.current_team_id).toBe(teamId);
      expect((await api.teams(user.token)).json().data.map((team: { id: number }) => team.id)).toEqual([user.teamId, teamId]);
      await expectOneEvent(ctx, since, { action: 'team.created', actor: user, teamId, target: { type: 'team', id: teamId } });
    },
  );

  it('lets a user without any team create one', async ({ ctx, api }) => {
    const user = await ctx.given.user({ plan: 'business', withTeam: false });
    const response = await api.createTeam(user.token, { name: 'First' });
    expect(response.statusCode, response.body).toBe(201);
    expect(await currentTeamOf(ctx, user.id)).toBe(response.json().team.id);
  });

  it('answers 403 Forbidden with the plan message on a Solo Dev plan, and creates nothing', async ({ ctx, api }) => {
    const user = await ctx.given.user({ plan: 'solo' });
    const since = await lastEventId(ctx);
    const teamsBefore = await ctx.db.selectFrom('teams').select('id').execute();
    expectError(await api.createTeam(user.token, { name: 'Nope' }), 403, NEEDS_TEAM_PLAN);
    // The plan rule is a D4 step 8 check: it answers before the body's 422.
    expectError(await api.createTeam(user.token, { name: '' }), 403, NEEDS_TEAM_PLAN);
    expect(await ctx.db.selectFrom('teams').select('id').execute()).toEqual(teamsBefore);
    expect(await currentTeamOf(ctx, user.id)).toBe(user.teamId);
    await expectNoEvent(ctx, since);
  });

  it('answers 403 Subscription Required to a user whose Business plan ended (D7 before the plan rule)', async ({ ctx, api }) => {
    const user = await ctx.given.user({ plan: 'business' });
    await ctx.given.plan(user, null);
    expectError(await api.createTeam(user.token, { name: 'Late' }), 403, SUBSCRIPTION_REQUIRED);
  });

  it('needs the write ability', async ({ ctx, api }) => {
    const user = await ctx.given.user({ plan: 'enterprise', abilities: ['read'] });
    expectError(await api.createTeam(user.token, { name: 'Nope' }), 403, missingAbility('write'));
  });

  it.for<[string, unknown, string | undefined]>([
    ['missing', {}, NAME_REQUIRED],
    ['empty', { name: '' }, NAME_REQUIRED],
    ['only spaces', { name: ' \t ' }, NAME_REQUIRED],
    ['256 characters', { name: 'x'.repeat(256) }, NAME_TOO_LONG],
    ['a number', { name: 12345 }, undefined],
    ['null', { name: null }, undefined],
    ['an array', { name: ['Acme'] }, undefined],
  ])('answers 422 `name` when the name is %s (D12), and creates nothing', async ([_case, body, message], { ctx, api }) => {
    const user = await ctx.given.user({ plan: 'enterprise' });
    const before = await ctx.db.selectFrom('teams').select('id').execute();
    expectFieldError(await api.createTeam(user.token, body), 'name', message);
    expect(await ctx.db.selectFrom('teams').select('id').execute()).toEqual(before);
  });

  it('accepts 255 characters, counted as characters (D12)', async ({ ctx, api }) => {
    const user = await ctx.given.user({ plan: 'enterprise' });
    const name = 'é'.repeat(200) + '🚀'.repeat(55);
    const response = await api.createTeam(user.token, { name });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().team.name).toBe(name);
  });

  it('ignores unknown fields (D5): personal_team, owner_id and id in the body change nothing', async ({ ctx, api }) => {
    const user = await ctx.given.user({ plan: 'enterprise' });
    const other = await ctx.given.user();
    const response = await api.createTeam(user.token, { name: 'Plain', personal_team: true, owner_id: other.id, id: 1 });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().team).toMatchObject({ personal_team: false, owner_id: user.id, role: 'owner' });
    expect(response.json().team.id).not.toBe(1);
  });
});

describe('GET /api/v1/teams/{team}', () => {
  it('shows the team and its members to every role, members in E4 shape', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['admin', 'member', 'readonly']);
    await ctx.given.project(team.id);
    for (const [role, user] of [['owner', team.owner], ...Object.entries(team.members)] as const) {
      const response = await api.show(user!.token, team.id);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(['data', 'members']);
      expect(body.data).toEqual({
        id: team.id,
        name: 'Shared',
        personal_team: false,
        owner_id: team.owner.id,
        role,
        member_count: 4,
        project_count: 1,
        created_at: expect.stringMatching(ISO_UTC),
      });
      expect(body.members).toHaveLength(4);
      const byId = Object.fromEntries(body.members.map((member: { id: number }) => [member.id, member]));
      expect(byId[team.owner.id]).toEqual({
        id: team.owner.id,
        name: null,
        email: team.owner.email,
        role: 'owner',
        joined_at: expect.stringMatching(ISO_UTC),
      });
      for (const [memberRole, member] of Object.entries(team.members)) {
        expect(byId[member!.id]).toEqual({
          id: member!.id,
          name: null,
          email: member!.email,
          role: memberRole,
          joined_at: expect.stringMatching(ISO_UTC),
        });
      }
    }
  });

  it("shows a member's name when they have one", async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const named = await ctx.given.user({ name: 'Named Person' });
    await ctx.given.member(team.id, named, 'member');
    const members = (await api.show(team.owner.token, team.id)).json().members;
    expect(members.find((member: { id: number }) => member.id === named.id).name).toBe('Named Person');
  });

  it('answers 404 to a non-member, for an unknown team and for an id that is not a positive integer', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const stranger = await ctx.given.user({ plan: 'enterprise' });
    expectError(await api.show(stranger.token, team.id), 404, NOT_FOUND);
    expectError(await api.show(team.owner.token, 2_000_000_000), 404, NOT_FOUND);
    for (const bad of ['abc', '0', '-1', '1.5', '1e2', '99999999999999999999999']) {
      expectError(await api.show(team.owner.token, bad), 404, NOT_FOUND);
    }
  });
});

describe('PUT /api/v1/teams/{team}', () => {
  it.for(['owner', 'admin'] as const)('lets the %s rename it: 200 with the team, one team.updated event', async (role, { ctx, api }) => {
    const team = await sharedTeam(ctx, ['admin']);
    const caller = role === 'owner' ? team.owner : team.members.admin!;
    const since = await lastEventId(ctx);
    const response = await api.rename(caller.token, team.id, { name: '  Renamed  ' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      data: {
        id: team.id,
        name: 'Renamed',
        personal_team: false,
        owner_id: team.owner.id,
        role,
        member_count: 2,
        project_count: 0,
        created_at: expect.stringMatching(ISO_UTC),
      },
    });
    expect((await api.show(team.owner.token, team.id)).json().data.name).toBe('Renamed');
    const event = await expectOneEvent(ctx, since, {
      action: 'team.updated',
      actor: caller,
      teamId: team.id,
      target: { type: 'team', id: team.id },
    });
    expect(event.details).toMatchObject({ name: { old: 'Shared', new: 'Renamed' } });
  });

  it('lets the owner rename their personal team', async ({ ctx, api }) => {
    const user = await ctx.given.user();
    const response = await api.rename(user.token, user.teamId!, { name: 'Mine' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ name: 'Mine', personal_team: true });
  });

  it.for(['member', 'readonly'] as const)(
    'answers a %s 403 with the owner-or-admin message, even with an invalid body',
    async (role, { ctx, api }) => {
      const team = await sharedTeam(ctx, [role]);
      const caller = team.members[role]!;
      const since = await lastEventId(ctx);
      expectError(await api.rename(caller.token, team.id, { name: 'Mine now' }), 403, NEEDS_OWNER_OR_ADMIN);
      expectError(await api.rename(caller.token, team.id, { name: '' }), 403, NEEDS_OWNER_OR_ADMIN);
      expect((await api.show(caller.token, team.id)).json().data.name).toBe('Shared');
      await expectNoEvent(ctx, since);
    },
  );

  it('validates the name like POST /teams (D12)', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    expectFieldError(await api.rename(team.owner.token, team.id, { name: '   ' }), 'name', NAME_REQUIRED);
    expectFieldError(await api.rename(team.owner.token, team.id, {}), 'name', NAME_REQUIRED);
    expectFieldError(await api.rename(team.owner.token, team.id, { name: 'y'.repeat(256) }), 'name', NAME_TOO_LONG);
    expectFieldError(await api.rename(team.owner.token, team.id, { name: 42 }), 'name');
    expect((await api.show(team.owner.token, team.id)).json().data.name).toBe('Shared');
  });

  it('answers 404 to a non-member, even with an invalid body', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const stranger = await ctx.given.user({ plan: 'enterprise' });
    expectError(await api.rename(stranger.token, team.id, { name: 'Mine' }), 404, NOT_FOUND);
    expectError(await api.rename(stranger.token, team.id, { name: '' }), 404, NOT_FOUND);
  });

  it('writes no event when the name does not change', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const since = await lastEventId(ctx);
    expect((await api.rename(team.owner.token, team.id, { name: 'Shared' })).statusCode).toBe(200);
    await expectNoEvent(ctx, since);
  });
});

describe('DELETE /api/v1/teams/{team}', () => {
  it('deletes the team with its members, invitations, projects and their reports; 200 with the message; one team.deleted event', async ({
    ctx,
    api,
  }) => {
    const team = await sharedTeam(ctx, ['admin', 'member']);
    const { project } = await ctx.given.project(team.id, { name: 'Doomed' });
    await ctx.given.report(project.id);
    await ctx.given.report(project.id);
    const kept = await ctx.given.project(team.owner, { name: 'In the personal team' });
    await ctx.given.report(kept.project.id);
    expect((await api.invite(team.owner.token, team.id, { email: 'later@example.com', role: 'member' })).statusCode).toBe(201);
    const since = await lastEventId(ctx);

    const response = await api.deleteTeam(team.owner.token, team.id);
    expect(response.statusCode, response.body).toBe(200);
    expectApiHeaders(response);
    expect(response.json()).toEqual({ message: TEAM_DELETED });

    expect(await ctx.db.selectFrom('teams').select('id').where('id', '=', team.id).execute()).toEqual([]);
    expect(await membershipsOf(ctx, team.id)).toEqual({});
    expect(await invitationRows(ctx, team.id)).toEqual([]);
    expect(await ctx.db.selectFrom('projects').select('id').where('team_id', '=', team.id).execute()).toEqual([]);
    expect(await ctx.db.selectFrom('reports').select('id').where('project_id', '=', project.id).execute()).toEqual([]);
    // Other teams' projects and reports stay.
    expect(await ctx.db.selectFrom('reports').select('id').where('project_id', '=', kept.project.id).execute()).toHaveLength(1);
    const event = await expectOneEvent(ctx, since, {
      action: 'team.deleted',
      actor: team.owner,
      teamId: team.id,
      target: { type: 'team', id: team.id },
    });
    expect(event.details).toMatchObject({ name: 'Shared' });

    expectError(await api.show(team.owner.token, team.id), 404, NOT_FOUND);
    expectError(await ctx.request({ method: 'GET', url: `/api/v1/projects/${project.id}`, token: team.owner.token }), 404, NOT_FOUND);
  });

  it('moves members who had it as current team to their personal team, or to none; others keep theirs', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const withPersonal = await memberOf(ctx, team.id, 'member');
    const withoutPersonal = await ctx.given.user({ plan: 'enterprise', withTeam: false });
    await ctx.given.member(team.id, withoutPersonal, 'admin');
    const elsewhere = await ctx.given.user();
    await ctx.given.member(team.id, elsewhere, 'readonly', { makeCurrent: false });
    expect(await currentTeamOf(ctx, team.owner.id)).toBe(team.id);

    expect((await api.deleteTeam(team.owner.token, team.id)).statusCode).toBe(200);

    expect(await currentTeamOf(ctx, team.owner.id)).toBe(team.owner.teamId);
    expect(await currentTeamOf(ctx, withPersonal.id)).toBe(withPersonal.teamId);
    expect(await currentTeamOf(ctx, withoutPersonal.id)).toBeNull();
    expect(await currentTeamOf(ctx, elsewhere.id)).toBe(elsewhere.teamId);
    expect((await api.profile(withPersonal.token)).json().data.current_team_id).toBe(withPersonal.teamId);
  });

  it('answers 403 for a personal team, which stays with its projects', async ({ ctx, api }) => {
    const user = await ctx.given.user({ plan: 'enterprise' });
    const { project } = await ctx.given.project(user);
    const since = await lastEventId(ctx);
    expectError(await api.deleteTeam(user.token, user.teamId!), 403, PERSONAL_TEAM_KEPT);
    expect(await ctx.db.selectFrom('teams').select('id').where('id', '=', user.teamId!).execute()).toHaveLength(1);
    expect(await ctx.db.selectFrom('projects').select('id').where('id', '=', project.id).execute()).toHaveLength(1);
    await expectNoEvent(ctx, since);
  });

  it.for(['admin', 'member', 'readonly'] as const)(
    'answers a %s 403 with the owner message; the team stays',
    async (role, { ctx, api }) => {
      const team = await sharedTeam(ctx, [role]);
      const since = await lastEventId(ctx);
      expectError(await api.deleteTeam(team.members[role]!.token, team.id), 403, NEEDS_OWNER);
      expect(await ctx.db.selectFrom('teams').select('id').where('id', '=', team.id).execute()).toHaveLength(1);
      await expectNoEvent(ctx, since);
    },
  );

  it("answers 404 to a non-member (not a 403: they may not see it), and for another member's personal team", async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    const stranger = await ctx.given.user({ plan: 'enterprise' });
    expectError(await api.deleteTeam(stranger.token, team.id), 404, NOT_FOUND);
    expectError(await api.deleteTeam(team.owner.token, team.members.member!.teamId!), 404, NOT_FOUND);
  });

  it('needs the write ability', async ({ ctx, api }) => {
    const owner = await ctx.given.user({ plan: 'enterprise', abilities: ['read'] });
    const teamId = await ctx.given.team(owner, 'Kept');
    expectError(await api.deleteTeam(owner.token, teamId), 403, missingAbility('write'));
    expect(await ctx.db.selectFrom('teams').select('id').where('id', '=', teamId).execute()).toHaveLength(1);
  });
});
