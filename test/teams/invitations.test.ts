/**
 * E4, invitations: `POST /teams/{team}/invitations` (admin ability; owner or admin; `{email, role}`),
 * `GET /teams/{team}/invitations` (read; owner or admin; pending ones, newest first),
 * `DELETE /teams/{team}/invitations/{id}` (admin; owner or admin), `GET /invitations` (the caller's
 * pending invitations), `POST /invitations/{id}/accept|decline` (write; the invited user).
 * - inviting a member is 422; inviting an email with a pending invitation replaces it;
 * - emails compare case-insensitively; invitations expire after 7 days (expired = gone: not listed,
 *   404 to accept, decline and cancel);
 * - accepting joins with the invited role and makes the team current only for a user with none;
 * - `/invitations*` has no D7: a user without a subscription can still accept.
 */
import { describe, expect } from 'vitest';
import { teamsTest } from './teams-world.js';
import { expectApiHeaders, expectError, missingAbility, NOT_FOUND, SUBSCRIPTION_REQUIRED } from '../helpers/contract.js';
import type { TestUser } from '../helpers/test-app.js';
import {
  ALREADY_MEMBER,
  currentTeamOf,
  DAY_MS,
  EMAIL_INVALID,
  expectFieldError,
  expectNoEvent,
  expectOneEvent,
  INVITATION_CANCELLED,
  INVITATION_CREATED,
  INVITATION_DECLINED,
  invitationRows,
  ISO_UTC,
  lastEventId,
  memberOf,
  NEEDS_OWNER_OR_ADMIN,
  roleOf,
  ROLE_INVALID,
  sharedTeam,
  type SharedTeam,
  expectCreatesProjectIn,
} from './teams-world.js';

const it = teamsTest
  /** Invites `email` into `team` as its owner; returns the invitation. */
  .extend(
    'invited',
    ({ api }) =>
      async function invited(team: SharedTeam, email: string, role = 'member', token = team.owner.token) {
        const response = await api.invite(token, team.id, { email, role });
        expect(response.statusCode, response.body).toBe(201);
        return response.json().invitation as { id: number; email: string; role: string; created_at: string; expires_at: string };
      },
  );

const idsOf = (response: { json(): { data: Array<{ id: number }> } }) => response.json().data.map((row) => row.id);

describe('POST /api/v1/teams/{team}/invitations', () => {
  it.for(['owner', 'admin'] as const)(
    'lets the %s invite: 201 with the invitation in E4 shape and the message; one member.invited event',
    async (role, { ctx, api }) => {
      const team = await sharedTeam(ctx, ['admin']);
      const caller = role === 'owner' ? team.owner : team.members.admin!;
      await ctx.db.updateTable('users').set({ name: 'Inviting Person' }).where('id', '=', caller.id).execute();
      const since = await lastEventId(ctx);
      const response = await api.invite(caller.token, team.id, { email: 'new.dev@example.com', role: 'admin' });
      expect(response.statusCode, response.body).toBe(201);
      expectApiHeaders(response);
      const body = response.json();
      expect(body).toEqual({
        invitation: {
          id: expect.any(Number),
          team: { id: team.id, name: 'Shared' },
          email: 'new.dev@example.com',
          role: 'admin',
          invited_by: { id: caller.id, name: 'Inviting Person' },
          created_at: expect.stringMatching(ISO_UTC),
          expires_at: expect.stringMatching(ISO_UTC),
        },
        message: INVITATION_CREATED,
      });
      // Seven days (E4).
      expect(Date.parse(body.invitation.expires_at) - Date.parse(body.invitation.created_at)).toBe(7 * DAY_MS);
      expect(Date.parse(body.invitation.created_at)).toBe(ctx.clock.now().getTime());
      const event = await expectOneEvent(ctx, since, {
        action: 'member.invited',
        actor: caller,
        teamId: team.id,
        target: { type: 'invitation', id: body.invitation.id },
      });
      expect(event.details).toMatchObject({ email: 'new.dev@example.com', role: 'admin' });
      // Not a member until accepted.
      expect((await api.show(team.owner.token, team.id)).json().data.member_count).toBe(2);
    },
  );

  it.for(['member', 'readonly'] as const)(
    'answers a %s 403 with the owner-or-admin message, and invites no one',
    async (role, { ctx, api }) => {
      const team = await sharedTeam(ctx, [role]);
      const since = await lastEventId(ctx);
      expectError(
        await api.invite(team.members[role]!.token, team.id, { email: 'x@example.com', role: 'member' }),
        403,
        NEEDS_OWNER_OR_ADMIN,
      );
      expect(await invitationRows(ctx, team.id)).toEqual([]);
      await expectNoEvent(ctx, since);
    },
  );

  it('invites an email that belongs to no user yet (no email is sent; it waits to be seen)', async ({ ctx, invited }) => {
    const team = await sharedTeam(ctx);
    const invitation = await invited(team, 'nobody-yet@example.com', 'readonly');
    expect(invitation.role).toBe('readonly');
    expect((await invitationRows(ctx, team.id)).map((row) => row.id)).toEqual([invitation.id]);
  });

  it.for<[string, string | number, string | undefined]>([
    ['owner (only by transfer)', 'owner', ROLE_INVALID],
    ['an unknown role', 'boss', ROLE_INVALID],
    ['a number', 3, undefined],
  ])('answers 422 `role` for %s', async ([_case, role, message], { ctx, api }) => {
    const team = await sharedTeam(ctx);
    expectFieldError(await api.invite(team.owner.token, team.id, { email: 'r@example.com', role }), 'role', message);
    expectFieldError(await api.invite(team.owner.token, team.id, { email: 'r@example.com' }), 'role');
    expect(await invitationRows(ctx, team.id)).toEqual([]);
  });

  it.for(['not-an-email', 'a@', '@example.com', 'two words@example.com'])('answers 422 `email` for %j', async (email, { ctx, api }) => {
    const team = await sharedTeam(ctx);
    expectFieldError(await api.invite(team.owner.token, team.id, { email, role: 'member' }), 'email', EMAIL_INVALID);
    expect(await invitationRows(ctx, team.id)).toEqual([]);
  });

  it('answers 422 `email` for a missing, empty or non-string email', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    for (const body of [
      { role: 'member' },
      { email: '', role: 'member' },
      { email: '   ', role: 'member' },
      { email: 42, role: 'member' },
    ]) {
      expectFieldError(await api.invite(team.owner.token, team.id, body), 'email');
    }
    expect(await invitationRows(ctx, team.id)).toEqual([]);
  });

  it('answers 422 `email` for an email that is already a member, compared case-insensitively, and for the owner', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const member = await memberOf(ctx, team.id, 'member');
    const since = await lastEventId(ctx);
    expectFieldError(await api.invite(team.owner.token, team.id, { email: member.email, role: 'admin' }), 'email', ALREADY_MEMBER);
    expectFieldError(
      await api.invite(team.owner.token, team.id, { email: member.email.toUpperCase(), role: 'admin' }),
      'email',
      ALREADY_MEMBER,
    );
    expectFieldError(await api.invite(team.owner.token, team.id, { email: `  ${member.email}  `, role: 'admin' }), 'email', ALREADY_MEMBER);
    expectFieldError(await api.invite(team.owner.token, team.id, { email: team.owner.email, role: 'member' }), 'email', ALREADY_MEMBER);
    expect(await invitationRows(ctx, team.id)).toEqual([]);
    await expectNoEvent(ctx, since);
  });

  it('replaces a pending invitation of the same email (case-insensitively): one left, with the new role; the old id is gone', async ({
    ctx,
    api,
    invited,
  }) => {
    const team = await sharedTeam(ctx);
    const user = await ctx.given.user({ email: 'swap@example.com' });
    const first = await invited(team, 'swap@example.com', 'readonly');
    const second = await invited(team, 'SWAP@Example.COM', 'admin');
    expect(second.id).not.toBe(first.id);

    const pending = await api.teamInvitations(team.owner.token, team.id);
    expect(pending.json().data).toHaveLength(1);
    expect(pending.json().data[0]).toMatchObject({ id: second.id, role: 'admin' });
    expect((pending.json().data[0].email as string).toLowerCase()).toBe('swap@example.com');
    expect(idsOf(await api.myInvitations(user.token))).toEqual([second.id]);

    expectError(await api.accept(user.token, first.id), 404, NOT_FOUND);
    expectError(await api.cancel(team.owner.token, team.id, first.id), 404, NOT_FOUND);
    const accepted = await api.accept(user.token, second.id);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(await roleOf(ctx, team.id, user.id)).toBe('admin');
  });

  it('keeps invitations of the same email to different teams apart', async ({ ctx, api, invited }) => {
    const a = await sharedTeam(ctx, [], 'A');
    const b = await sharedTeam(ctx, [], 'B');
    const user = await ctx.given.user({ email: 'both@example.com' });
    const fromA = await invited(a, 'both@example.com');
    const fromB = await invited(b, 'both@example.com');
    expect(idsOf(await api.myInvitations(user.token))).toEqual([fromB.id, fromA.id]);
  });

  it('answers 404 to a non-member and for an unknown team, even with an invalid body', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const stranger = await ctx.given.user({ plan: 'enterprise' });
    expectError(await api.invite(stranger.token, team.id, { email: 'x@example.com', role: 'member' }), 404, NOT_FOUND);
    expectError(await api.invite(stranger.token, team.id, { email: 'bad', role: 'owner' }), 404, NOT_FOUND);
    expectError(await api.invite(team.owner.token, 2_000_000_000, { email: 'x@example.com', role: 'member' }), 404, NOT_FOUND);
  });

  it("needs the admin ability: a write-only token gets 403 'admin'", async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const writer = await ctx.given.token(team.owner, { abilities: ['read', 'write'], name: 'writer' });
    expectError(await api.invite(writer, team.id, { email: 'x@example.com', role: 'member' }), 403, missingAbility('admin'));
  });
});

describe('GET /api/v1/teams/{team}/invitations', () => {
  it('lists the pending invitations newest first, to the owner and to an admin', async ({ ctx, api, invited }) => {
    const team = await sharedTeam(ctx, ['admin']);
    const first = await invited(team, 'one@example.com');
    ctx.clock.advance(1000);
    const second = await invited(team, 'two@example.com', 'readonly', team.members.admin!.token);
    for (const caller of [team.owner, team.members.admin!]) {
      const response = await api.teamInvitations(caller.token, team.id);
      expect(response.statusCode, response.body).toBe(200);
      expect(Object.keys(response.json())).toEqual(['data']);
      expect(idsOf(response)).toEqual([second.id, first.id]);
      expect(response.json().data[0]).toEqual({
        id: second.id,
        team: { id: team.id, name: 'Shared' },
        email: 'two@example.com',
        role: 'readonly',
        invited_by: { id: team.members.admin!.id, name: null },
        created_at: second.created_at,
        expires_at: second.expires_at,
      });
    }
  });

  it("answers an empty list when nothing is pending, and does not show other teams' invitations", async ({ ctx, api, invited }) => {
    const team = await sharedTeam(ctx);
    const other = await sharedTeam(ctx);
    await invited(other, 'elsewhere@example.com');
    const response = await api.teamInvitations(team.owner.token, team.id);
    expect(response.json()).toEqual({ data: [] });
  });

  it.for(['member', 'readonly'] as const)('answers a %s 403 with the owner-or-admin message', async (role, { ctx, api, invited }) => {
    const team = await sharedTeam(ctx, [role]);
    await invited(team, 'secret@example.com');
    expectError(await api.teamInvitations(team.members[role]!.token, team.id), 403, NEEDS_OWNER_OR_ADMIN);
  });

  it('answers 404 to a non-member', async ({ ctx, api }) => {
    const team = await sharedTeam(ctx);
    const stranger = await ctx.given.user({ plan: 'enterprise' });
    expectError(await api.teamInvitations(stranger.token, team.id), 404, NOT_FOUND);
  });
});

describe('DELETE /api/v1/teams/{team}/invitations/{id}', () => {
  it.for(['owner', 'admin'] as const)(
    'lets the %s cancel: 200 with the message, the invitation is gone, one invitation.cancelled event',
    async (role, { ctx, api, invited }) => {
      const team = await sharedTeam(ctx, ['admin']);
      const caller = role === 'owner' ? team.owner : team.members.admin!;
      const user = await ctx.given.user({ email: `cancelled-${role}@example.com` });
      const invitation = await invited(team, user.email);
      const since = await lastEventId(ctx);

      const response = await api.cancel(caller.token, team.id, invitation.id);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ message: INVITATION_CANCELLED });
      expect(await invitationRows(ctx, team.id)).toEqual([]);
      expect(await api.myInvitations(user.token).then((r) => r.json())).toEqual({ data: [] });
      expectError(await api.accept(user.token, invitation.id), 404, NOT_FOUND);
      await expectOneEvent(ctx, since, {
        action: 'invitation.cancelled',
        actor: caller,
        teamId: team.id,
        target: { type: 'invitation', id: invitation.id },
      });
      // A second cancel finds nothing.
      expectError(await api.cancel(caller.token, team.id, invitation.id), 404, NOT_FOUND);
    },
  );

  it.for(['member', 'readonly'] as const)(
    'answers a %s 403 with the owner-or-admin message; the invitation stays',
    async (role, { ctx, api, invited }) => {
      const team = await sharedTeam(ctx, [role]);
      const invitation = await invited(team, 'stays@example.com');
      expectError(await api.cancel(team.members[role]!.token, team.id, invitation.id), 403, NEEDS_OWNER_OR_ADMIN);
      expect((await invitationRows(ctx, team.id)).map((row) => row.id)).toEqual([invitation.id]);
    },
  );

  it("answers 404 for another team's invitation (even one the caller administers), an unknown id, and a non-integer id", async ({
    ctx,
    api,
    invited,
  }) => {
    const team = await sharedTeam(ctx);
    const other = await sharedTeam(ctx);
    const theirs = await invited(other, 'theirs@example.com');
    // The owner of `team` also owns another team with an invitation: still not `team`'s.
    const mineElsewhere = await ctx.given.team(team.owner, 'Mine too');
    const elsewhere = (await api.invite(team.owner.token, mineElsewhere, { email: 'e@example.com', role: 'member' })).json().invitation;
    for (const id of [theirs.id, elsewhere.id, 2_000_000_000, 'abc', '0', '-1']) {
      expectError(await api.cancel(team.owner.token, team.id, id), 404, NOT_FOUND);
    }
    expect((await invitationRows(ctx, other.id)).map((row) => row.id)).toEqual([theirs.id]);
    expect((await invitationRows(ctx, mineElsewhere)).map((row) => row.id)).toEqual([elsewhere.id]);
  });

  it("needs the admin ability: a write-only token gets 403 'admin'", async ({ ctx, api, invited }) => {
    const team = await sharedTeam(ctx);
    const invitation = await invited(team, 'w@example.com');
    const writer = await ctx.given.token(team.owner, { abilities: ['read', 'write'], name: 'writer' });
    expectError(await api.cancel(writer, team.id, invitation.id), 403, missingAbility('admin'));
  });
});

describe('GET /api/v1/invitations', () => {
  it("lists the pending invitations for the caller's email, newest first, whatever the case it was invited in", async ({
    ctx,
    api,
    invited,
  }) => {
    const user = await ctx.given.user({ email: 'casey@example.com' });
    const a = await sharedTeam(ctx, [], 'Alpha');
    const b = await sharedTeam(ctx, [], 'Beta');
    const fromA = await invited(a, 'Casey@Example.com', 'readonly');
    ctx.clock.advance(1000);
    const fromB = await invited(b, 'CASEY@EXAMPLE.COM', 'admin');
    await invited(b, 'someone-else@example.com');

    const response = await api.myInvitations(user.token);
    expect(response.statusCode, response.body).toBe(200);
    expect(idsOf(response)).toEqual([fromB.id, fromA.id]);
    expect(response.json().data[1]).toEqual({
      id: fromA.id,
      team: { id: a.id, name: 'Alpha' },
      email: expect.stringMatching(/^casey@example\.com$/i),
      role: 'readonly',
      invited_by: { id: a.owner.id, name: null },
      created_at: expect.stringMatching(ISO_UTC),
      expires_at: expect.stringMatching(ISO_UTC),
    });
  });

  it('answers an empty list when nothing is pending', async ({ ctx, api }) => {
    const user = await ctx.given.user();
    expect((await api.myInvitations(user.token)).json()).toEqual({ data: [] });
  });

  it('needs no subscription (no D7 on /invitations*)', async ({ ctx, api, invited }) => {
    const lapsed = await ctx.given.user({ plan: null, email: 'lapsed-list@example.com' });
    const team = await sharedTeam(ctx);
    const invitation = await invited(team, lapsed.email);
    const response = await api.myInvitations(lapsed.token);
    expect(response.statusCode, response.body).toBe(200);
    expect(idsOf(response)).toEqual([invitation.id]);
  });
});

describe('expiry after 7 days (fake clock)', () => {
  it('is pending until 7 days have passed, then is not listed and is 404 to accept, decline and cancel', async ({ ctx, api, invited }) => {
    const team = await sharedTeam(ctx);
    const user = await ctx.given.user({ email: `late-${Date.now()}@example.com` });
    const invitation = await invited(team, user.email);
    const born = ctx.clock.now().getTime();
    expect(Date.parse(invitation.expires_at)).toBe(born + 7 * DAY_MS);

    ctx.clock.set(new Date(born + 7 * DAY_MS - 60_000));
    expect(idsOf(await api.myInvitations(user.token))).toEqual([invitation.id]);
    expect(idsOf(await api.teamInvitations(team.owner.token, team.id))).toEqual([invitation.id]);

    ctx.clock.set(new Date(born + 7 * DAY_MS + 60_000));
    expect(idsOf(await api.myInvitations(user.token))).toEqual([]);
    expect(idsOf(await api.teamInvitations(team.owner.token, team.id))).toEqual([]);
    const since = await lastEventId(ctx);
    expectError(await api.accept(user.token, invitation.id), 404, NOT_FOUND);
    expectError(await api.decline(user.token, invitation.id), 404, NOT_FOUND);
    expectError(await api.cancel(team.owner.token, team.id, invitation.id), 404, NOT_FOUND);
    expect(await roleOf(ctx, team.id, user.id)).toBeNull();
    await expectNoEvent(ctx, since);

    // The same email can be invited again, and that one is good for another 7 days.
    const again = await invited(team, user.email, 'readonly');
    expect(idsOf(await api.myInvitations(user.token))).toEqual([again.id]);
    expect((await api.accept(user.token, again.id)).statusCode).toBe(200);
    expect(await roleOf(ctx, team.id, user.id)).toBe('readonly');
  });

  it('can still be accepted at 6 days and 23 hours', async ({ ctx, api, invited }) => {
    const team = await sharedTeam(ctx);
    const user = await ctx.given.user({ email: `just-in-time-${Date.now()}@example.com` });
    const invitation = await invited(team, user.email);
    ctx.clock.advance(7 * DAY_MS - 60 * 60 * 1000);
    const response = await api.accept(user.token, invitation.id);
    expect(response.statusCode, response.body).toBe(200);
  });
});

describe('POST /api/v1/invitations/{id}/accept', () => {
  it('joins with the invited role: 200 with the team as the new member sees it; the invitation is gone; one member.joined event', async ({
    ctx,
    api,
    invited,
  }) => {
    const team = await sharedTeam(ctx, ['member']);
    await ctx.given.project(team.id);
    const user = await ctx.given.user({ email: `joiner-${Date.now()}@example.com` });
    const invitation = await invited(team, user.email, 'admin');
    const since = await lastEventId(ctx);

    const response = await api.accept(user.token, invitation.id);
    expect(response.statusCode, response.body).toBe(200);
    expectApiHeaders(response);
    expect(response.json()).toEqual({
      data: {
        id: team.id,
        name: 'Shared',
        personal_team: false,
        owner_id: team.owner.id,
        role: 'admin',
        member_count: 3,
        project_count: 1,
        created_at: expect.stringMatching(ISO_UTC),
      },
    });
    expect(await roleOf(ctx, team.id, user.id)).toBe('admin');
    expect(await invitationRows(ctx, team.id)).toEqual([]);
    expect((await api.myInvitations(user.token)).json()).toEqual({ data: [] });
    const event = await expectOneEvent(ctx, since, {
      action: 'member.joined',
      actor: user,
      teamId: team.id,
      target: { type: 'member', id: user.id },
    });
    expect(event.details).toMatchObject({ role: 'admin' });
    // Now a member: the team is listed and visible, with the role invited.
    expect((await api.show(user.token, team.id)).json().data.role).toBe('admin');
    expect((await api.teams(user.token)).json().data.map((t: { id: number }) => t.id)).toEqual(
      [team.id, user.teamId!].sort((x, y) => x - y),
    );
    // A second accept finds nothing.
    expectError(await api.accept(user.token, invitation.id), 404, NOT_FOUND);
  });

  it('keeps the current team of a user who has one', async ({ ctx, api, invited }) => {
    const team = await sharedTeam(ctx);
    const user = await ctx.given.user({ email: `has-team-${Date.now()}@example.com` });
    const invitation = await invited(team, user.email);
    expect((await api.accept(user.token, invitation.id)).statusCode).toBe(200);
    expect(await currentTeamOf(ctx, user.id)).toBe(user.teamId);
  });

  it('makes the team current for a user who had none', async ({ ctx, api, invited }) => {
    const team = await sharedTeam(ctx);
    const user = await ctx.given.user({ withTeam: false, email: `no-team-${Date.now()}@example.com` });
    const invitation = await invited(team, user.email, 'member');
    expect((await api.accept(user.token, invitation.id)).statusCode).toBe(200);
    expect(await currentTeamOf(ctx, user.id)).toBe(team.id);
    expect((await api.profile(user.token)).json().data.current_team_id).toBe(team.id);
    // And POST /projects now creates there (D15: member may create).
    await expectCreatesProjectIn(ctx, user, team.id, 'Joined');
  });

  it('works for a user without a subscription (no D7 on /invitations*), who then gets 403 Subscription Required on /teams', async ({
    ctx,
    api,
    invited,
  }) => {
    const team = await sharedTeam(ctx);
    const lapsed = await ctx.given.user({ plan: null, email: `lapsed-${Date.now()}@example.com` });
    const invitation = await invited(team, lapsed.email, 'readonly');
    const response = await api.accept(lapsed.token, invitation.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ id: team.id, role: 'readonly' });
    expect(await roleOf(ctx, team.id, lapsed.id)).toBe('readonly');
    expectError(await api.show(lapsed.token, team.id), 403, SUBSCRIPTION_REQUIRED);
  });

  it("answers 404 for another user's invitation, which stays pending for them", async ({ ctx, api, invited }) => {
    const team = await sharedTeam(ctx);
    const intended = await ctx.given.user({ email: `intended-${Date.now()}@example.com` });
    const thief = await ctx.given.user({ plan: 'enterprise' });
    const invitation = await invited(team, intended.email);
    const since = await lastEventId(ctx);
    expectError(await api.accept(thief.token, invitation.id), 404, NOT_FOUND);
    expectError(await api.decline(thief.token, invitation.id), 404, NOT_FOUND);
    // Not even the team's owner may accept or decline it for them.
    expectError(await api.accept(team.owner.token, invitation.id), 404, NOT_FOUND);
    expect(await roleOf(ctx, team.id, thief.id)).toBeNull();
    expect(idsOf(await api.myInvitations(intended.token))).toEqual([invitation.id]);
    await expectNoEvent(ctx, since);
  });

  it('answers 404 for an unknown id and for ids that are not positive integers', async ({ ctx, api }) => {
    const user = await ctx.given.user();
    for (const id of [2_000_000_000, 'abc', '0', '-5', '2.5']) {
      expectError(await api.accept(user.token, id), 404, NOT_FOUND);
      expectError(await api.decline(user.token, id), 404, NOT_FOUND);
    }
  });

  it("needs the write ability: a read-only token gets 403 'write' and the invitation stays", async ({ ctx, api, invited }) => {
    const team = await sharedTeam(ctx);
    const user = await ctx.given.user({ abilities: ['read'], email: `reader-${Date.now()}@example.com` });
    const invitation = await invited(team, user.email);
    expectError(await api.accept(user.token, invitation.id), 403, missingAbility('write'));
    expectError(await api.decline(user.token, invitation.id), 403, missingAbility('write'));
    expect(idsOf(await api.myInvitations(user.token))).toEqual([invitation.id]);
  });

  it('a user invited by an email in another case accepts it', async ({ ctx, api, invited }) => {
    const team = await sharedTeam(ctx);
    const user = await ctx.given.user({ email: 'mixed.case@example.com' });
    const invitation = await invited(team, 'Mixed.Case@EXAMPLE.com', 'member');
    expect((await api.accept(user.token, invitation.id)).statusCode).toBe(200);
    expect(await roleOf(ctx, team.id, user.id)).toBe('member');
  });
});

describe('POST /api/v1/invitations/{id}/decline', () => {
  it('declines: 200 with the message, the invitation is gone, no membership, one invitation.declined event', async ({
    ctx,
    api,
    invited,
  }) => {
    const team = await sharedTeam(ctx);
    const user: TestUser = await ctx.given.user({ email: `decliner-${Date.now()}@example.com` });
    const invitation = await invited(team, user.email);
    const since = await lastEventId(ctx);
    const response = await api.decline(user.token, invitation.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ message: INVITATION_DECLINED });
    expect(await invitationRows(ctx, team.id)).toEqual([]);
    expect(await roleOf(ctx, team.id, user.id)).toBeNull();
    expect(await currentTeamOf(ctx, user.id)).toBe(user.teamId);
    await expectOneEvent(ctx, since, {
      action: 'invitation.declined',
      actor: user,
      teamId: team.id,
      target: { type: 'invitation', id: invitation.id },
    });
    expectError(await api.accept(user.token, invitation.id), 404, NOT_FOUND);
    expectError(await api.decline(user.token, invitation.id), 404, NOT_FOUND);
  });

  it('works without a subscription', async ({ ctx, api, invited }) => {
    const team = await sharedTeam(ctx);
    const lapsed = await ctx.given.user({ plan: null, email: `lapsed-decline-${Date.now()}@example.com` });
    const invitation = await invited(team, lapsed.email);
    expect((await api.decline(lapsed.token, invitation.id)).statusCode).toBe(200);
  });
});
