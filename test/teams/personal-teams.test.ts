/**
 * D34: a personal team stays its user's. `POST /teams/{team}/transfer` on a personal team is 403 (a
 * state 403, after the 404s and the role 403, before 422), and the operator cannot hand one over with
 * `teams:add-member --role owner` either. Deleting a user (`users:delete`) never leaves a team without
 * an owner: their personal team goes with them, and any other team they own must be transferred first.
 *
 * The attack this replays: a personal team handed to a member, then that member deleted, left a team
 * with no owner whose project token still uploaded.
 */
import { describe, expect } from 'vitest';
import { ApiError } from '../../src/wire/api-error.js';
import { operatorFeatures } from '../../src/operator-features.js';
import { expectClientUnauthenticated, minimalReport, upload, uploadOk } from '../helpers/client-wire.js';
import { NOT_FOUND } from '../helpers/contract.js';
import type { TestContext } from '../helpers/test-app.js';
import {
  expectError,
  expectNoEvent,
  lastEventId,
  membershipsOf,
  NEEDS_OWNER,
  PERSONAL_TEAM_STAYS,
  teamsTest as it,
} from './teams-world.js';

/** Those of `teamIds` stored without an owner member (D34: there must be none). The app is shared by the file. */
async function ownerlessTeams(ctx: TestContext, teamIds: number[]): Promise<number[]> {
  const rows = await ctx.db
    .selectFrom('teams as t')
    .select('t.id')
    .where('t.id', 'in', teamIds)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('team_members as m').select('m.user_id').whereRef('m.team_id', '=', 't.id').where('m.role', '=', 'owner'))),
    )
    .orderBy('t.id')
    .execute();
  return rows.map((row) => row.id);
}

/** A user's personal team with a project, and a second user (with a personal team of their own) as `role` in it. */
async function personalTeamWithColleague(ctx: TestContext, role: 'admin' | 'member' | 'readonly' = 'member') {
  const owner = await ctx.given.user({ plan: 'enterprise' });
  const colleague = await ctx.given.user({ plan: 'enterprise' });
  ctx.clock.advance(1000);
  await ctx.given.member(owner.teamId!, colleague, role);
  const { project, apiToken } = await ctx.given.project(owner);
  return { owner, colleague, teamId: owner.teamId!, project, apiToken };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'the operator change was refused').toBeInstanceOf(ApiError);
  return (error as ApiError).message;
}

describe('D34: a personal team cannot be transferred', () => {
  it('answers its owner 403 in the envelope, whatever the body; nothing changes and no event is written', async ({ ctx, api }) => {
    const { owner, colleague, teamId } = await personalTeamWithColleague(ctx);
    const since = await lastEventId(ctx);
    for (const body of [{ user_id: colleague.id }, { user_id: 'x' }, {}]) {
      expectError(await api.transfer(owner.token, teamId, body), 403, PERSONAL_TEAM_STAYS);
    }
    expect(await membershipsOf(ctx, teamId)).toEqual({ [owner.id]: 'owner', [colleague.id]: 'member' });
    expect((await api.show(owner.token, teamId)).json().data).toMatchObject({ personal_team: true, owner_id: owner.id });
    await expectNoEvent(ctx, since);
  });

  it('keeps D4 order: a non-member gets 404 and an admin the owner-role 403 before the personal-team one', async ({ ctx, api }) => {
    const { colleague, teamId } = await personalTeamWithColleague(ctx, 'admin');
    const stranger = await ctx.given.user({ plan: 'enterprise' });
    expectError(await api.transfer(stranger.token, teamId, { user_id: colleague.id }), 404, NOT_FOUND);
    expectError(await api.transfer(colleague.token, teamId, { user_id: colleague.id }), 403, NEEDS_OWNER);
  });

  it('is refused to the operator too (teams:add-member --role owner), naming the team', async ({ ctx }) => {
    const { owner, colleague, teamId } = await personalTeamWithColleague(ctx);
    const { accounts } = operatorFeatures(ctx.db, ctx.clock);
    expect(await refusal(accounts.addMember(teamId, colleague.email, 'owner'))).toBe(
      `Team ${teamId} is a personal team: it cannot be transferred.`,
    );
    expect(await membershipsOf(ctx, teamId)).toEqual({ [owner.id]: 'owner', [colleague.id]: 'member' });
  });

  it('replays the attack: the transfer is refused, so deleting the colleague leaves the owner in charge and deleting the owner takes the team and its token with them', async ({
    ctx,
    api,
  }) => {
    const { owner, colleague, teamId, project, apiToken } = await personalTeamWithColleague(ctx);
    const { accounts } = operatorFeatures(ctx.db, ctx.clock);

    expectError(await api.transfer(owner.token, teamId, { user_id: colleague.id }), 403, PERSONAL_TEAM_STAYS);
    await accounts.deleteUser(colleague.email);
    expect(await membershipsOf(ctx, teamId)).toEqual({ [owner.id]: 'owner' });
    expect(await ownerlessTeams(ctx, [teamId, colleague.teamId!])).toEqual([]);
    await uploadOk(ctx, apiToken, minimalReport({ project_id: project.id }));

    await accounts.deleteUser(owner.email);
    expect(await ctx.db.selectFrom('teams').select('id').where('id', '=', teamId).execute()).toEqual([]);
    expectClientUnauthenticated(await upload(ctx, apiToken, minimalReport({ project_id: project.id })));
  });
});

describe('D34: deleting a user never leaves a team without an owner', () => {
  it('refuses to delete a user who owns a team other than their own personal team, even one an earlier release let be handed to them', async ({
    ctx,
  }) => {
    const { owner, colleague, teamId } = await personalTeamWithColleague(ctx);
    // What an earlier release's transfer stored: the colleague owns the personal team, its user is admin.
    await ctx.db
      .updateTable('team_members')
      .set({ role: 'owner' })
      .where('team_id', '=', teamId)
      .where('user_id', '=', colleague.id)
      .execute();
    await ctx.db.updateTable('team_members').set({ role: 'admin' }).where('team_id', '=', teamId).where('user_id', '=', owner.id).execute();
    const { accounts } = operatorFeatures(ctx.db, ctx.clock);
    const since = await lastEventId(ctx);

    const message = await refusal(accounts.deleteUser(colleague.email));
    expect(message).toContain(`${colleague.email} owns the team ${teamId} "`);
    expect(message).toContain('transfer it first');
    await expectNoEvent(ctx, since);
    expect(await membershipsOf(ctx, teamId)).toEqual({ [owner.id]: 'admin', [colleague.id]: 'owner' });
    expect(await ctx.db.selectFrom('teams').select('id').where('id', 'in', [teamId, colleague.teamId!]).execute()).toHaveLength(2);
    expect(await ownerlessTeams(ctx, [teamId, colleague.teamId!])).toEqual([]);
  });

  it('takes a personal team for its user even when a member joined in the same instant it was made (a tie is not a transfer)', async ({
    ctx,
  }) => {
    // The colleague is the older user (lower id) and joins at the very time the team is made.
    const colleague = await ctx.given.user({ plan: 'enterprise' });
    const owner = await ctx.given.user({ plan: 'enterprise' });
    await ctx.given.member(owner.teamId!, colleague, 'admin');
    const deleted = await operatorFeatures(ctx.db, ctx.clock).accounts.deleteUser(owner.email);
    expect(deleted.personal_team_id).toBe(owner.teamId);
    expect(await ctx.db.selectFrom('teams').select('id').where('id', '=', owner.teamId!).execute()).toEqual([]);
  });

  it('deletes a user with their personal team (the members they had go on without it) and leaves every shared team they belonged to owned', async ({
    ctx,
    api,
  }) => {
    const { owner, colleague, teamId } = await personalTeamWithColleague(ctx, 'admin');
    const shared = await ctx.given.team(colleague, 'Shared by the colleague');
    await ctx.given.member(shared, owner, 'admin');
    const { accounts } = operatorFeatures(ctx.db, ctx.clock);

    const deleted = await accounts.deleteUser(owner.email);
    expect(deleted).toMatchObject({ personal_team_id: teamId, projects_deleted: 1, memberships_removed: [shared] });
    expect(await ownerlessTeams(ctx, [shared, colleague.teamId!])).toEqual([]);
    expect((await api.show(colleague.token, shared)).json().data).toMatchObject({ owner_id: colleague.id, member_count: 1 });
  });
});
