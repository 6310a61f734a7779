/**
 * E4, members: `PUT /teams/{team}/members/{user}` (admin ability; owner or admin; body `{role}`) and
 * `DELETE /teams/{team}/members/{user}` (admin ability, write when removing oneself; owner or admin,
 * or the member leaving). Every combination of the caller's role and the target's role:
 * - roles given through the API are admin, member, readonly; `owner` only by transfer (422);
 * - an admin may not change or remove the owner or another admin (403); the owner may do both;
 * - the owner cannot leave or be removed (403); anyone else may leave;
 * - a member without the needed role gets 403 with a message naming what is missing;
 * - a user removed from (or leaving) their current team gets their personal team, or none.
 */
import { describe, expect } from 'vitest';
import { teamsTest } from './teams-world.js';
import type { TeamRole } from '../../src/db/schema.js';
import { expectApiHeaders, expectError, missingAbility, NOT_FOUND } from '../helpers/contract.js';
import type { TestUser } from '../helpers/test-app.js';
import {
  ADMIN_LIMIT,
  currentTeamOf,
  expectFieldError,
  expectForbiddenOneOf,
  expectNoEvent,
  expectOneEvent,
  ISO_UTC,
  lastEventId,
  LEFT_TEAM,
  MEMBER_REMOVED,
  memberOf,
  NEEDS_OWNER_OR_ADMIN,
  OWNER_ROLE_BY_TRANSFER,
  OWNER_STAYS,
  roleOf,
  ROLE_INVALID,
  ROLES,
  sharedTeam,
} from './teams-world.js';
import { tokenIdOf } from '../helpers/test-app.js';

const it = teamsTest
  /** A team with its owner and two users of every other role; `caller` is one of them, `target` another (or the caller). */
  .extend(
    'cast',
    ({ ctx }) =>
      async function cast(callerRole: TeamRole, target: Target) {
        const team = await sharedTeam(ctx);
        const users: Record<TeamRole, TestUser[]> = { owner: [team.owner], admin: [], member: [], readonly: [] };
        for (const role of ['admin', 'member', 'readonly'] as const) {
          users[role].push(await memberOf(ctx, team.id, role), await memberOf(ctx, team.id, role));
        }
        const caller = users[callerRole][0]!;
        const targetUser = target === 'self' ? caller : target === callerRole ? users[target][1] : users[target][0];
        return { team, caller, target: targetUser! };
      },
  );

type Target = TeamRole | 'self';
const TARGETS: readonly Target[] = ['owner', 'admin', 'member', 'readonly', 'self'];

/** What E4 says a caller of `callerRole` changing the role of `target` gets: 200 or the 403 messages allowed. */
function roleChangeOutcome(callerRole: TeamRole, target: Target): 200 | string[] {
  const self = target === 'self' || (target === 'owner' && callerRole === 'owner');
  if (callerRole === 'owner') return self ? [OWNER_ROLE_BY_TRANSFER.message] : 200;
  if (callerRole === 'admin') {
    if (self) return 200; // "another admin": an admin may change their own role
    if (target === 'owner' || target === 'admin') return [ADMIN_LIMIT.message];
    return 200;
  }
  return [NEEDS_OWNER_OR_ADMIN.message];
}

/** Likewise for removing `target` (or leaving, for self). */
function removalOutcome(callerRole: TeamRole, target: Target): 200 | string[] {
  const self = target === 'self' || (target === 'owner' && callerRole === 'owner');
  if (self) return callerRole === 'owner' ? [OWNER_STAYS.message] : 200;
  if (target === 'owner') {
    // Two rules forbid it; either message names a reason a client can act on.
    return callerRole === 'admin' ? [OWNER_STAYS.message, ADMIN_LIMIT.message] : [OWNER_STAYS.message, NEEDS_OWNER_OR_ADMIN.message];
  }
  if (callerRole === 'owner') return 200;
  if (callerRole === 'admin') return target === 'admin' ? [ADMIN_LIMIT.message] : 200;
  return [NEEDS_OWNER_OR_ADMIN.message];
}

const combos = ROLES.flatMap((callerRole) =>
  TARGETS.filter((target) => !(callerRole === 'owner' && target === 'owner')).map((target) => [callerRole, target] as const),
);

describe('PUT /api/v1/teams/{team}/members/{user}: every caller role × target role', () => {
  it.for(combos)('a %s changing the role of %s', async ([callerRole, target], { ctx, api, cast }) => {
    const { team, caller, target: member } = await cast(callerRole, target);
    const before = (await roleOf(ctx, team.id, member.id))!;
    const newRole = before === 'readonly' ? 'member' : 'readonly';
    const since = await lastEventId(ctx);

    const response = await api.setRole(caller.token, team.id, member.id, { role: newRole });
    const expected = roleChangeOutcome(callerRole, target);
    expectApiHeaders(response);
    if (expected === 200) {
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({
        data: { id: member.id, name: null, email: member.email, role: newRole, joined_at: expect.stringMatching(ISO_UTC) },
      });
      expect(await roleOf(ctx, team.id, member.id)).toBe(newRole);
      const event = await expectOneEvent(ctx, since, {
        action: 'member.role_changed',
        actor: caller,
        teamId: team.id,
        target: { type: 'member', id: member.id },
      });
      expect(event.details).toMatchObject({ role: { old: before, new: newRole } });
    } else {
      expectForbiddenOneOf(response, expected);
      expect(await roleOf(ctx, team.id, member.id)).toBe(before);
      await expectNoEvent(ctx, since);
    }
  });
});

describe('DELETE /api/v1/teams/{team}/members/{user}: every caller role × target role', () => {
  it.for(combos)('a %s removing %s', async ([callerRole, target], { ctx, api, cast }) => {
    const { team, caller, target: member } = await cast(callerRole, target);
    const before = (await roleOf(ctx, team.id, member.id))!;
    const since = await lastEventId(ctx);

    const response = await api.remove(caller.token, team.id, member.id);
    const expected = removalOutcome(callerRole, target);
    expectApiHeaders(response);
    if (expected === 200) {
      const leaving = member.id === caller.id;
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ message: leaving ? LEFT_TEAM : MEMBER_REMOVED });
      expect(await roleOf(ctx, team.id, member.id)).toBeNull();
      const event = await expectOneEvent(ctx, since, {
        action: leaving ? 'member.left' : 'member.removed',
        actor: caller,
        teamId: team.id,
        target: { type: 'member', id: member.id },
      });
      expect(event.details).toMatchObject({ role: before });
      expectError(await api.show(member.token, team.id), 404, NOT_FOUND);
    } else {
      expectForbiddenOneOf(response, expected);
      expect(await roleOf(ctx, team.id, member.id)).toBe(before);
      await expectNoEvent(ctx, since);
    }
  });
});

describe('role values', () => {
  it.for([
    ['owner (only by transfer)', { role: 'owner' }],
    ['an unknown role', { role: 'superuser' }],
    ['a differently cased role', { role: 'Admin' }],
    ['a missing role', {}],
    ['a number', { role: 1 }],
    ['null', { role: null }],
  ])('answers 422 `role` for %s; nothing changes', async ([_case, body], { ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    const since = await lastEventId(ctx);
    const response = await api.setRole(team.owner.token, team.id, team.members.member!.id, body);
    expectFieldError(response, 'role', typeof (body as { role?: unknown }).role === 'string' ? ROLE_INVALID : undefined);
    expect(await roleOf(ctx, team.id, team.members.member!.id)).toBe('member');
    await expectNoEvent(ctx, since);
  });

  it.for(['admin', 'member', 'readonly'] as const)('gives %s through the API', async (role, { ctx, api }) => {
    const team = await sharedTeam(ctx, ['readonly']);
    const member = team.members.readonly!;
    const response = await api.setRole(team.owner.token, team.id, member.id, { role });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.role).toBe(role);
    expect(await roleOf(ctx, team.id, member.id)).toBe(role);
  });

  it('lets the owner promote a member to admin and demote an admin', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['admin', 'member']);
    expect((await api.setRole(team.owner.token, team.id, team.members.member!.id, { role: 'admin' })).statusCode).toBe(200);
    expect((await api.setRole(team.owner.token, team.id, team.members.admin!.id, { role: 'member' })).statusCode).toBe(200);
    expect(await roleOf(ctx, team.id, team.members.member!.id)).toBe('admin');
    expect(await roleOf(ctx, team.id, team.members.admin!.id)).toBe('member');
  });

  it('lets an admin promote a member to admin, after which it may no longer change them', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['admin', 'member']);
    const admin = team.members.admin!;
    const member = team.members.member!;
    expect((await api.setRole(admin.token, team.id, member.id, { role: 'admin' })).statusCode).toBe(200);
    expectError(await api.setRole(admin.token, team.id, member.id, { role: 'member' }), 403, ADMIN_LIMIT);
    expectError(await api.remove(admin.token, team.id, member.id), 403, ADMIN_LIMIT);
  });

  it('writes no event when the role given is the one held', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    const since = await lastEventId(ctx);
    const response = await api.setRole(team.owner.token, team.id, team.members.member!.id, { role: 'member' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.role).toBe('member');
    await expectNoEvent(ctx, since);
  });
});

describe('404s for {team} and {user}', () => {
  it('answers 404 for a user who is not a member of the team (even one that exists), an unknown user, and ids that are not positive integers', async ({
    ctx,
    api,
  }) => {
    const team = await sharedTeam(ctx);
    const outsider = await ctx.given.user();
    for (const user of [outsider.id, 2_000_000_000, 'abc', '0', '-2', '1.0']) {
      expectError(await api.setRole(team.owner.token, team.id, user, { role: 'member' }), 404, NOT_FOUND);
      expectError(await api.remove(team.owner.token, team.id, user), 404, NOT_FOUND);
    }
    expect(await roleOf(ctx, outsider.teamId!, outsider.id)).toBe('owner');
  });

  it("answers 404 to a non-member acting on the team's members, and leaves them", async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    const stranger = await ctx.given.user({ plan: 'enterprise' });
    expectError(await api.setRole(stranger.token, team.id, team.members.member!.id, { role: 'readonly' }), 404, NOT_FOUND);
    expectError(await api.remove(stranger.token, team.id, team.members.member!.id), 404, NOT_FOUND);
    expectError(await api.remove(stranger.token, team.id, stranger.id), 404, NOT_FOUND);
    expect(await roleOf(ctx, team.id, team.members.member!.id)).toBe('member');
  });
});

describe('abilities (D6): admin to change or remove others, write to leave', () => {
  it("answers a write-only token 403 'admin' when changing a role or removing someone else, even for the owner", async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    const writer = await ctx.given.token(team.owner, { abilities: ['read', 'write'], name: 'writer' });
    const member = team.members.member!;
    expectError(await api.setRole(writer, team.id, member.id, { role: 'readonly' }), 403, missingAbility('admin'));
    expectError(await api.remove(writer, team.id, member.id), 403, missingAbility('admin'));
    expect(await roleOf(ctx, team.id, member.id)).toBe('member');
  });

  it('lets a member leave with a write-only token', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const member = await memberOf(ctx, team.id, 'member', ['read', 'write']);
    const since = await lastEventId(ctx);
    const response = await api.remove(member.token, team.id, member.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: LEFT_TEAM });
    await expectOneEvent(ctx, since, { action: 'member.left', actor: member, teamId: team.id, tokenId: await tokenIdOf(ctx, member) });
  });

  it("answers a read-only token 403 'write' when leaving", async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const member = await memberOf(ctx, team.id, 'member', ['read']);
    expectError(await api.remove(member.token, team.id, member.id), 403, missingAbility('write'));
    expect(await roleOf(ctx, team.id, member.id)).toBe('member');
  });

  it("answers a read-only token 403 naming 'admin' when removing someone else (the ability that request needs)", async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    const reader = await ctx.given.token(team.owner, { abilities: ['read'], name: 'reader' });
    expectError(await api.remove(reader, team.id, team.members.member!.id), 403, missingAbility('admin'));
    expect(await roleOf(ctx, team.id, team.members.member!.id)).toBe('member');
  });

  it("answers a read-only token 403 'admin' when changing a role", async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    const reader = await ctx.given.token(team.owner, { abilities: ['read'], name: 'reader' });
    expectError(await api.setRole(reader, team.id, team.members.member!.id, { role: 'admin' }), 403, missingAbility('admin'));
  });

  it('records the token that made the change in the event', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    const second = await ctx.given.token(team.owner, { name: 'second admin token' });
    const since = await lastEventId(ctx);
    expect((await api.remove(second, team.id, team.members.member!.id)).statusCode).toBe(200);
    await expectOneEvent(ctx, since, {
      action: 'member.removed',
      actor: team.owner,
      teamId: team.id,
      tokenId: await tokenIdOf(ctx, team.owner, 'second admin token'),
    });
  });
});

describe('the current team after removal or leaving (E4)', () => {
  it('moves a removed member whose current team it was to their personal team', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const member = await memberOf(ctx, team.id, 'member');
    expect(await currentTeamOf(ctx, member.id)).toBe(team.id);
    expect((await api.remove(team.owner.token, team.id, member.id)).statusCode).toBe(200);
    expect(await currentTeamOf(ctx, member.id)).toBe(member.teamId);
    expect((await api.profile(member.token)).json().data.current_team_id).toBe(member.teamId);
  });

  it('leaves a member without a personal team with no current team', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const member = await ctx.given.user({ withTeam: false });
    await ctx.given.member(team.id, member, 'readonly');
    expect((await api.remove(member.token, team.id, member.id)).statusCode).toBe(200);
    expect(await currentTeamOf(ctx, member.id)).toBeNull();
    expect((await api.profile(member.token)).json().data.current_team_id).toBeNull();
  });

  it('moves a member to another team only when the lost team was current: a member working elsewhere keeps their current team', async ({
    ctx,
    api,
  }) => {
    const team = await sharedTeam(ctx);
    const other = await sharedTeam(ctx, [], 'Other');
    const member = await ctx.given.user({ plan: 'enterprise' });
    await ctx.given.member(team.id, member, 'admin', { makeCurrent: false });
    await ctx.given.member(other.id, member, 'member');
    expect((await api.remove(member.token, team.id, member.id)).statusCode).toBe(200);
    expect(await currentTeamOf(ctx, member.id)).toBe(other.id);
  });

  it('a removed member can no longer see the team or its projects, and the counts follow', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['member', 'readonly']);
    const { project } = await ctx.given.project(team.id);
    const member = team.members.member!;
    expect((await api.remove(team.owner.token, team.id, member.id)).statusCode).toBe(200);
    expectError(await api.show(member.token, team.id), 404, NOT_FOUND);
    expectError(await ctx.request({ method: 'GET', url: `/api/v1/projects/${project.id}`, token: member.token }), 404, NOT_FOUND);
    expect((await api.teams(member.token)).json().data.map((t: { id: number }) => t.id)).toEqual([member.teamId]);
    expect((await api.show(team.owner.token, team.id)).json().data.member_count).toBe(2);
  });

  it('an admin who left has no say any more: their next admin request is 404', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['admin', 'member']);
    const admin = team.members.admin!;
    expect((await api.remove(admin.token, team.id, admin.id)).json()).toEqual({ message: LEFT_TEAM });
    expectError(await api.remove(admin.token, team.id, team.members.member!.id), 404, NOT_FOUND);
    expect(await roleOf(ctx, team.id, team.members.member!.id)).toBe('member');
  });

  it('the owner cannot leave a personal team either', async ({ ctx, api }) => {
    const user = await ctx.given.user();
    expectError(await api.remove(user.token, user.teamId!, user.id), 403, OWNER_STAYS);
    expect(await roleOf(ctx, user.teamId!, user.id)).toBe('owner');
  });
});
