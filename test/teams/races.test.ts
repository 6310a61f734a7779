/**
 * E4 under concurrency (issue 14, item 1): changes to one team's members race, and each race ends
 * in one consistent state — on both backends, and it matters on PostgreSQL, where the two requests
 * really run at once on two connections. Each race is fired many times over real sockets, the two
 * requests started together (in alternating order), and the stored rows are checked after each.
 *
 * - two admins removing each other: E4 forbids an admin to remove another admin, so both are 403 and
 *   both stay, every time; the races where removing is allowed (the remover being removed, a member
 *   leaving while removed, promoted while removed) end with exactly one effective change;
 * - the same invitation accepted twice at once: one 200, one 404, one membership, one event;
 * - a team deleted while a member accepts (or is invited, or switches to it): either the other
 *   request 404s and the team is gone, or it succeeds first and the deletion then takes it along —
 *   no membership or invitation of a missing team, nobody's current team is the deleted one.
 */
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import type { TestUser } from '../helpers/test-app.js';
import {
  ADMIN_LIMIT,
  auditEvents,
  currentTeamOf,
  INVITATION_CANCELLED,
  LEFT_TEAM,
  listen,
  MEMBER_REMOVED,
  memberOf,
  membershipsOf,
  roleOf,
  sharedTeam,
  TEAM_DELETED,
} from './teams-world.js';
import { NOT_FOUND } from '../helpers/contract.js';

const it = sharedAppTest()
  .extend(
    'teamExists',
    ({ ctx }) =>
      async function teamExists(teamId: number): Promise<boolean> {
        return (await ctx.db.selectFrom('teams').select('id').where('id', '=', teamId).executeTakeFirst()) !== undefined;
      },
  )
  /** No membership or invitation points at a team that does not exist, anywhere in the store. */
  .extend(
    'expectNoOrphans',
    ({ ctx }) =>
      async function expectNoOrphans(): Promise<void> {
        const orphanMembers = await ctx.db
          .selectFrom('team_members as m')
          .leftJoin('teams as t', 't.id', 'm.team_id')
          .select(['m.team_id', 'm.user_id'])
          .where('t.id', 'is', null)
          .execute();
        const orphanInvitations = await ctx.db
          .selectFrom('team_invitations as i')
          .leftJoin('teams as t', 't.id', 'i.team_id')
          .select(['i.id', 'i.team_id'])
          .where('t.id', 'is', null)
          .execute();
        const orphanCurrent = await ctx.db
          .selectFrom('users as u')
          .leftJoin('teams as t', 't.id', 'u.current_team_id')
          .select(['u.id', 'u.current_team_id'])
          .where('u.current_team_id', 'is not', null)
          .where('t.id', 'is', null)
          .execute();
        expect({ orphanMembers, orphanInvitations, orphanCurrent }).toEqual({
          orphanMembers: [],
          orphanInvitations: [],
          orphanCurrent: [],
        });
      },
  );

const TRIALS = 20;

let http: Awaited<ReturnType<typeof listen>>;
it.beforeAll(async ({ ctx }) => {
  http = await listen(ctx);
});

type Answer = { status: number; body: any };
type Call = () => Promise<Answer>;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts both, the first one first on even trials and the second on odd ones, the other one 0 to 8 ms
 * later (so both interleavings, and every point of overlap, come up); answers in the order given.
 */
async function race(trial: number, first: Call, second: Call): Promise<[Answer, Answer]> {
  const lag = ((trial >> 1) % 5) * 2;
  const later = (call: Call) => async () => {
    if (lag > 0) await pause(lag);
    return call();
  };
  if (trial % 2 === 0) return Promise.all([first(), later(second)()]);
  const [b, a] = await Promise.all([second(), later(first)()]);
  return [a, b];
}

const answer = (status: number, body: unknown) => ({ status, body });
const notFound = answer(404, NOT_FOUND);

/** Tallies the outcomes seen, to show in a failure which interleavings were exercised. */
function tally() {
  const seen = new Map<string, number>();
  return {
    add: (outcome: string) => seen.set(outcome, (seen.get(outcome) ?? 0) + 1),
    toString: () => [...seen].map(([outcome, count]) => `${outcome} ×${count}`).join(', '),
    /** With RACES_VERBOSE=1, prints which interleavings a race produced. */
    report(name: string) {
      if (process.env.RACES_VERBOSE) console.info(`${name}: ${this.toString()}`);
    },
  };
}

describe('members removing each other', () => {
  it(`two admins removing each other: both 403 (an admin may not remove another admin), both stay — ${TRIALS} times`, async ({ ctx }) => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const team = await sharedTeam(ctx, ['admin']);
      const a = team.members.admin!;
      const b = await memberOf(ctx, team.id, 'admin');
      const [aRemovesB, bRemovesA] = await race(
        trial,
        () => http(a.token, 'DELETE', `/teams/${team.id}/members/${b.id}`),
        () => http(b.token, 'DELETE', `/teams/${team.id}/members/${a.id}`),
      );
      expect([aRemovesB, bRemovesA], `trial ${trial}`).toEqual([answer(403, ADMIN_LIMIT), answer(403, ADMIN_LIMIT)]);
      expect(await membershipsOf(ctx, team.id)).toEqual({ [team.owner.id]: 'owner', [a.id]: 'admin', [b.id]: 'admin' });
      expect(await auditEvents(ctx, { teamId: team.id, action: 'member.removed' })).toEqual([]);
    }
  });

  it(`an admin removing a member while the owner removes that admin: never both removed by a non-member — ${TRIALS} times`, async ({
    ctx,
  }) => {
    const outcomes = tally();
    for (let trial = 0; trial < TRIALS; trial++) {
      const team = await sharedTeam(ctx, ['admin', 'member']);
      const admin = team.members.admin!;
      const member = team.members.member!;
      const [ownerRemovesAdmin, adminRemovesMember] = await race(
        trial,
        () => http(team.owner.token, 'DELETE', `/teams/${team.id}/members/${admin.id}`),
        () => http(admin.token, 'DELETE', `/teams/${team.id}/members/${member.id}`),
      );
      outcomes.add(`${ownerRemovesAdmin.status}/${adminRemovesMember.status}`);
      // The owner's removal always succeeds; the admin's only if it came first (else the admin is no longer a member: 404).
      expect(ownerRemovesAdmin, outcomes.toString()).toEqual(answer(200, { message: MEMBER_REMOVED }));
      expect([answer(200, { message: MEMBER_REMOVED }), notFound], outcomes.toString()).toContainEqual(adminRemovesMember);
      const members = await membershipsOf(ctx, team.id);
      expect(members[admin.id]).toBeUndefined();
      const removedByAdmin = (await auditEvents(ctx, { teamId: team.id, action: 'member.removed', actorId: admin.id })).length;
      if (adminRemovesMember.status === 200) {
        expect(members).toEqual({ [team.owner.id]: 'owner' });
        expect(removedByAdmin).toBe(1);
      } else {
        expect(members).toEqual({ [team.owner.id]: 'owner', [member.id]: 'member' });
        expect(removedByAdmin).toBe(0);
      }
      expect(await auditEvents(ctx, { teamId: team.id, action: 'member.removed', actorId: team.owner.id })).toHaveLength(1);
    }
    outcomes.report(expect.getState().currentTestName ?? 'race');
  });

  it(`a member leaving while an admin removes them: one 200, one 404, one event — ${TRIALS} times`, async ({ ctx }) => {
    const outcomes = tally();
    for (let trial = 0; trial < TRIALS; trial++) {
      const team = await sharedTeam(ctx, ['admin', 'member']);
      const admin = team.members.admin!;
      const member = team.members.member!;
      const [leaves, removed] = await race(
        trial,
        () => http(member.token, 'DELETE', `/teams/${team.id}/members/${member.id}`),
        () => http(admin.token, 'DELETE', `/teams/${team.id}/members/${member.id}`),
      );
      outcomes.add(`${leaves.status}/${removed.status}`);
      const results = [leaves, removed];
      expect(
        results.filter((result) => result.status === 200),
        outcomes.toString(),
      ).toHaveLength(1);
      expect(
        results.filter((result) => result.status === 404),
        outcomes.toString(),
      ).toEqual([notFound]);
      if (leaves.status === 200) expect(leaves.body).toEqual({ message: LEFT_TEAM });
      else expect(removed.body).toEqual({ message: MEMBER_REMOVED });
      expect(await roleOf(ctx, team.id, member.id)).toBeNull();
      expect(await currentTeamOf(ctx, member.id)).toBe(member.teamId);
      const events = await auditEvents(ctx, { teamId: team.id, targetId: member.id, actorType: 'user' });
      expect(events.map((event) => event.action)).toEqual([leaves.status === 200 ? 'member.left' : 'member.removed']);
    }
    outcomes.report(expect.getState().currentTestName ?? 'race');
  });

  it(`a member promoted to admin by the owner while an admin removes them: promoted (and the removal 403) or removed (and the promotion 404) — ${TRIALS} times`, async ({
    ctx,
  }) => {
    const outcomes = tally();
    for (let trial = 0; trial < TRIALS; trial++) {
      const team = await sharedTeam(ctx, ['admin', 'member']);
      const admin = team.members.admin!;
      const member = team.members.member!;
      const [promote, remove] = await race(
        trial,
        () => http(team.owner.token, 'PUT', `/teams/${team.id}/members/${member.id}`, { role: 'admin' }),
        () => http(admin.token, 'DELETE', `/teams/${team.id}/members/${member.id}`),
      );
      outcomes.add(`${promote.status}/${remove.status}`);
      const role = await roleOf(ctx, team.id, member.id);
      const actions = (await auditEvents(ctx, { teamId: team.id, targetId: member.id, actorType: 'user' })).map((event) => event.action);
      if (promote.status === 200) {
        expect(remove, outcomes.toString()).toEqual(answer(403, ADMIN_LIMIT));
        expect(role).toBe('admin');
        expect(actions).toEqual(['member.role_changed']);
      } else {
        expect(promote, outcomes.toString()).toEqual(notFound);
        expect(remove).toEqual(answer(200, { message: MEMBER_REMOVED }));
        expect(role).toBeNull();
        expect(actions).toEqual(['member.removed']);
      }
    }
    outcomes.report(expect.getState().currentTestName ?? 'race');
  });
});

describe('one invitation, two answers at once', () => {
  it(`the same invitation accepted twice at once (two tokens of the user): one 200, one 404, one membership, one member.joined — ${TRIALS} times`, async ({
    ctx,
  }) => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const team = await sharedTeam(ctx);
      const user = await ctx.given.user({ withTeam: trial % 4 < 2 });
      const second = await ctx.given.token(user, { name: 'second device' });
      const invited = await http(team.owner.token, 'POST', `/teams/${team.id}/invitations`, { email: user.email, role: 'member' });
      expect(invited.status).toBe(201);
      const id = invited.body.invitation.id as number;

      const answers = await race(
        trial,
        () => http(user.token, 'POST', `/invitations/${id}/accept`),
        () => http(second, 'POST', `/invitations/${id}/accept`),
      );
      expect(answers.map((result) => result.status).sort(), `trial ${trial}`).toEqual([200, 404]);
      expect(answers.find((result) => result.status === 200)!.body.data).toMatchObject({ id: team.id, role: 'member', member_count: 2 });
      expect(answers.find((result) => result.status === 404)!.body).toEqual(NOT_FOUND);

      const rows = await ctx.db
        .selectFrom('team_members')
        .selectAll()
        .where('team_id', '=', team.id)
        .where('user_id', '=', user.id)
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.role).toBe('member');
      expect(await ctx.db.selectFrom('team_invitations').select('id').where('id', '=', id).execute()).toEqual([]);
      expect(await auditEvents(ctx, { teamId: team.id, action: 'member.joined' })).toHaveLength(1);
      expect(await currentTeamOf(ctx, user.id)).toBe(user.teamId ?? team.id);
    }
  });

  it(`an invitation accepted while the owner cancels it: exactly one wins — ${TRIALS} times`, async ({ ctx }) => {
    const outcomes = tally();
    for (let trial = 0; trial < TRIALS; trial++) {
      const team = await sharedTeam(ctx);
      const user = await ctx.given.user();
      const invited = await http(team.owner.token, 'POST', `/teams/${team.id}/invitations`, { email: user.email, role: 'readonly' });
      const id = invited.body.invitation.id as number;

      const [accept, cancel] = await race(
        trial,
        () => http(user.token, 'POST', `/invitations/${id}/accept`),
        () => http(team.owner.token, 'DELETE', `/teams/${team.id}/invitations/${id}`),
      );
      outcomes.add(`${accept.status}/${cancel.status}`);
      expect([accept.status, cancel.status].sort(), outcomes.toString()).toEqual([200, 404]);
      const joined = await auditEvents(ctx, { teamId: team.id, action: 'member.joined' });
      const cancelled = await auditEvents(ctx, { teamId: team.id, action: 'invitation.cancelled' });
      if (accept.status === 200) {
        expect(await roleOf(ctx, team.id, user.id)).toBe('readonly');
        expect([joined.length, cancelled.length]).toEqual([1, 0]);
      } else {
        expect(cancel.body).toEqual({ message: INVITATION_CANCELLED });
        expect(await roleOf(ctx, team.id, user.id)).toBeNull();
        expect([joined.length, cancelled.length]).toEqual([0, 1]);
      }
      expect(await ctx.db.selectFrom('team_invitations').select('id').where('team_id', '=', team.id).execute()).toEqual([]);
    }
    outcomes.report(expect.getState().currentTestName ?? 'race');
  });
});

describe('a team deleted while someone joins it', () => {
  it(`deleted by the owner while the invited member accepts: the accept 404s, or it succeeds and the deletion takes the member along — ${TRIALS} times`, async ({
    ctx,
    teamExists,
    expectNoOrphans,
  }) => {
    const outcomes = tally();
    for (let trial = 0; trial < TRIALS; trial++) {
      const team = await sharedTeam(ctx);
      // Half the trials with a user who has no personal team, whom a successful accept makes current.
      const user: TestUser = await ctx.given.user({ withTeam: trial % 4 >= 2 });
      const invited = await http(team.owner.token, 'POST', `/teams/${team.id}/invitations`, { email: user.email, role: 'admin' });
      const id = invited.body.invitation.id as number;

      const [accept, remove] = await race(
        trial,
        () => http(user.token, 'POST', `/invitations/${id}/accept`),
        () => http(team.owner.token, 'DELETE', `/teams/${team.id}`),
      );
      outcomes.add(`accept ${accept.status}`);
      expect(remove, outcomes.toString()).toEqual(answer(200, { message: TEAM_DELETED }));
      expect([200, 404], outcomes.toString()).toContain(accept.status);
      if (accept.status === 404) expect(accept.body).toEqual(NOT_FOUND);
      else expect(accept.body.data).toMatchObject({ id: team.id, role: 'admin' });

      expect(await teamExists(team.id)).toBe(false);
      expect(await membershipsOf(ctx, team.id)).toEqual({});
      expect(await ctx.db.selectFrom('team_invitations').select('id').where('team_id', '=', team.id).execute()).toEqual([]);
      expect(await currentTeamOf(ctx, user.id)).toBe(user.teamId);
      expect(await currentTeamOf(ctx, team.owner.id)).toBe(team.owner.teamId);
      // The joined event exists exactly when the accept succeeded.
      expect(await auditEvents(ctx, { teamId: team.id, action: 'member.joined' })).toHaveLength(accept.status === 200 ? 1 : 0);
      await expectNoOrphans();
    }
    outcomes.report(expect.getState().currentTestName ?? 'race');
  });

  it(`deleted while an admin invites someone: no invitation is left for the missing team — ${TRIALS} times`, async ({
    ctx,
    expectNoOrphans,
  }) => {
    const outcomes = tally();
    for (let trial = 0; trial < TRIALS; trial++) {
      const team = await sharedTeam(ctx, ['admin']);
      const [invite, remove] = await race(
        trial,
        () =>
          http(team.members.admin!.token, 'POST', `/teams/${team.id}/invitations`, { email: `late-${trial}@example.com`, role: 'member' }),
        () => http(team.owner.token, 'DELETE', `/teams/${team.id}`),
      );
      outcomes.add(`invite ${invite.status}`);
      expect(remove, outcomes.toString()).toEqual(answer(200, { message: TEAM_DELETED }));
      expect([201, 404], outcomes.toString()).toContain(invite.status);
      expect(await ctx.db.selectFrom('team_invitations').select('id').where('email', '=', `late-${trial}@example.com`).execute()).toEqual(
        [],
      );
      expect(await currentTeamOf(ctx, team.members.admin!.id)).toBe(team.members.admin!.teamId);
      await expectNoOrphans();
    }
    outcomes.report(expect.getState().currentTestName ?? 'race');
  });

  it(`deleted while a member switches their current team to it: their current team is never the deleted one — ${TRIALS} times`, async ({
    ctx,
    expectNoOrphans,
  }) => {
    const outcomes = tally();
    for (let trial = 0; trial < TRIALS; trial++) {
      const team = await sharedTeam(ctx);
      const member = await ctx.given.user({ plan: 'enterprise' });
      await ctx.given.member(team.id, member, 'member', { makeCurrent: false });
      const [switched, remove] = await race(
        trial,
        () => http(member.token, 'PUT', '/user/current-team', { team_id: team.id }),
        () => http(team.owner.token, 'DELETE', `/teams/${team.id}`),
      );
      outcomes.add(`switch ${switched.status}`);
      expect(remove, outcomes.toString()).toEqual(answer(200, { message: TEAM_DELETED }));
      expect([200, 404], outcomes.toString()).toContain(switched.status);
      expect(await currentTeamOf(ctx, member.id)).toBe(member.teamId);
      await expectNoOrphans();
    }
    outcomes.report(expect.getState().currentTestName ?? 'race');
  });
});
