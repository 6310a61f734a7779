/**
 * E4, `POST /teams/{team}/transfer` (admin ability; owner only; body `{user_id}` of another member):
 * the member becomes owner and the previous owner stays on as admin; the answer is the team as the
 * caller now sees it. `owner` is given only this way.
 */
import { describe, expect } from 'vitest';
import { teamsTest as it } from './teams-world.js';
import { expectApiHeaders, expectError, missingAbility, NOT_FOUND, SUBSCRIPTION_REQUIRED } from '../helpers/contract.js';
import {
  ADMIN_LIMIT,
  expectFieldError,
  expectNoEvent,
  expectOneEvent,
  ISO_UTC,
  lastEventId,
  membershipsOf,
  NEEDS_OWNER,
  NOT_ANOTHER_MEMBER,
  OWNER_ROLE_BY_TRANSFER,
  OWNER_STAYS,
  sharedTeam,
  TEAM_DELETED,
} from './teams-world.js';

describe('POST /api/v1/teams/{team}/transfer', () => {
  it.for(['admin', 'member', 'readonly'] as const)(
    'hands the team to a %s: they become owner, the previous owner admin; 200 with the team; one team.transferred event',
    async (role, { ctx, api }) => {
      const team = await sharedTeam(ctx, [role]);
      const heir = team.members[role]!;
      const since = await lastEventId(ctx);

      const response = await api.transfer(team.owner.token, team.id, { user_id: heir.id });
      expect(response.statusCode, response.body).toBe(200);
      expectApiHeaders(response);
      expect(response.json()).toEqual({
        data: {
          id: team.id,
          name: 'Shared',
          personal_team: false,
          owner_id: heir.id,
          role: 'admin',
          member_count: 2,
          project_count: 0,
          created_at: expect.stringMatching(ISO_UTC),
        },
      });
      expect(await membershipsOf(ctx, team.id)).toEqual({ [heir.id]: 'owner', [team.owner.id]: 'admin' });
      const event = await expectOneEvent(ctx, since, {
        action: 'team.transferred',
        actor: team.owner,
        teamId: team.id,
        target: { type: 'team', id: team.id },
      });
      expect(JSON.stringify(event.details)).toContain(String(heir.id));

      // What each now sees and may do.
      expect((await api.show(heir.token, team.id)).json().data).toMatchObject({ role: 'owner', owner_id: heir.id });
      const members = (await api.show(heir.token, team.id)).json().members as Array<{ id: number; role: string }>;
      expect(members.filter((member) => member.role === 'owner').map((member) => member.id)).toEqual([heir.id]);
    },
  );

  it('moves the owner rules with the role: the new owner cannot leave, the previous one can, and only the new one may delete or transfer', async ({
    ctx,
    api,
  }) => {
    const team = await sharedTeam(ctx, ['member']);
    const heir = team.members.member!;
    expect((await api.transfer(team.owner.token, team.id, { user_id: heir.id })).statusCode).toBe(200);

    expectError(await api.remove(heir.token, team.id, heir.id), 403, OWNER_STAYS);
    expectError(await api.deleteTeam(team.owner.token, team.id), 403, NEEDS_OWNER);
    expectError(await api.transfer(team.owner.token, team.id, { user_id: team.owner.id }), 403, NEEDS_OWNER);
    // The previous owner is an admin now: the owner is beyond their reach.
    expectError(await api.setRole(team.owner.token, team.id, heir.id, { role: 'member' }), 403, ADMIN_LIMIT);
    expectError(await api.setRole(heir.token, team.id, heir.id, { role: 'admin' }), 403, OWNER_ROLE_BY_TRANSFER);

    // And back: the new owner can hand it on again.
    expect((await api.transfer(heir.token, team.id, { user_id: team.owner.id })).statusCode).toBe(200);
    expect(await membershipsOf(ctx, team.id)).toEqual({ [team.owner.id]: 'owner', [heir.id]: 'admin' });

    const leaving = await api.remove(heir.token, team.id, heir.id);
    expect(leaving.statusCode, leaving.body).toBe(200);
    const deleted = await api.deleteTeam(team.owner.token, team.id);
    expect(deleted.json()).toEqual({ message: TEAM_DELETED });
  });

  it('answers 422 `user_id` for a user who is not a member of the team (even one that exists) and for an unknown user; nothing changes', async ({
    ctx,
    api,
  }) => {
    const team = await sharedTeam(ctx, ['member']);
    const outsider = await ctx.given.user();
    const since = await lastEventId(ctx);
    for (const userId of [outsider.id, 2_000_000_000]) {
      expectFieldError(await api.transfer(team.owner.token, team.id, { user_id: userId }), 'user_id', NOT_ANOTHER_MEMBER);
    }
    expect(await membershipsOf(ctx, team.id)).toEqual({ [team.owner.id]: 'owner', [team.members.member!.id]: 'member' });
    await expectNoEvent(ctx, since);
  });

  it('answers 422 `user_id` for the owner themself', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    expectFieldError(await api.transfer(team.owner.token, team.id, { user_id: team.owner.id }), 'user_id', NOT_ANOTHER_MEMBER);
    expect(await membershipsOf(ctx, team.id)).toEqual({ [team.owner.id]: 'owner' });
  });

  it.for([
    ['missing', {}],
    ['a string (D12: no coercion)', { user_id: '5' }],
    ['null', { user_id: null }],
    ['fractional', { user_id: 2.5 }],
    ['zero', { user_id: 0 }],
  ])('answers 422 `user_id` when it is %s', async ([_case, body], { ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    expectFieldError(await api.transfer(team.owner.token, team.id, body), 'user_id');
    expect(await membershipsOf(ctx, team.id)).toEqual({ [team.owner.id]: 'owner', [team.members.member!.id]: 'member' });
  });

  it.for(['admin', 'member', 'readonly'] as const)(
    'answers a %s 403 with the owner message, even with an invalid body',
    async (role, { ctx, api }) => {
      const team = await sharedTeam(ctx, [role, ...(role === 'member' ? [] : (['member'] as const))]);
      const caller = team.members[role]!;
      const since = await lastEventId(ctx);
      expectError(await api.transfer(caller.token, team.id, { user_id: caller.id }), 403, NEEDS_OWNER);
      expectError(await api.transfer(caller.token, team.id, { user_id: 'nobody' }), 403, NEEDS_OWNER);
      expect((await membershipsOf(ctx, team.id))[team.owner.id]).toBe('owner');
      await expectNoEvent(ctx, since);
    },
  );

  it('answers 404 to a non-member and for unknown or malformed team ids, even with an invalid body', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    const stranger = await ctx.given.user({ plan: 'enterprise' });
    expectError(await api.transfer(stranger.token, team.id, { user_id: stranger.id }), 404, NOT_FOUND);
    expectError(await api.transfer(stranger.token, team.id, {}), 404, NOT_FOUND);
    for (const id of [2_000_000_000, 'abc', '0']) {
      expectError(await api.transfer(team.owner.token, id, { user_id: team.members.member!.id }), 404, NOT_FOUND);
    }
  });

  it("needs the admin ability: a write-only token of the owner gets 403 'admin'", async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    const writer = await ctx.given.token(team.owner, { abilities: ['read', 'write'], name: 'writer' });
    expectError(await api.transfer(writer, team.id, { user_id: team.members.member!.id }), 403, missingAbility('admin'));
    expect((await membershipsOf(ctx, team.id))[team.owner.id]).toBe('owner');
  });

  it('needs an active subscription (D7 on /teams*)', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx, ['member']);
    await ctx.given.plan(team.owner, null);
    expectError(await api.transfer(team.owner.token, team.id, { user_id: team.members.member!.id }), 403, SUBSCRIPTION_REQUIRED);
  });
});
