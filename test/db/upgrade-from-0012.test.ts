import { v7 as uuidv7 } from 'uuid';
import { describe, expect } from 'vitest';
import { createMigrator } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/migrate.js';
import { it } from '../helpers/app-fixture.js';
import { clientCall, expectClientUnauthenticated, minimalReport, upload, uploadOk } from '../helpers/client-wire.js';
import type { TestContext, TestUser } from '../helpers/test-app.js';

/**
 * Migration 0013 (D34) on what the releases before it could store: a personal team handed to a
 * member, and teams left without an owner, or without any member, by deleting the users who owned
 * them. After `scoreboard migrate` every team has exactly one owner, a personal team is its own
 * user's, a team nobody belongs to is gone with its projects (its project token no longer uploads),
 * and teams that were fine are as they were.
 */

const MINUTE = 60_000;

async function roles(ctx: TestContext, teamId: number): Promise<Record<number, string>> {
  const rows = await ctx.db.selectFrom('team_members').select(['user_id', 'role']).where('team_id', '=', teamId).execute();
  return Object.fromEntries(rows.map((row) => [row.user_id, row.role]));
}

async function teamRow(ctx: TestContext, teamId: number) {
  const row = await ctx.db.selectFrom('teams').select(['id', 'name', 'personal_team']).where('id', '=', teamId).executeTakeFirst();
  return row && { ...row, personal_team: Boolean(row.personal_team) };
}

/** The personal teams `user` owns. */
async function personalTeamsOf(ctx: TestContext, user: TestUser): Promise<number[]> {
  const rows = await ctx.db
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select('t.id')
    .where('m.user_id', '=', user.id)
    .where('m.role', '=', 'owner')
    .where('t.personal_team', '=', 1)
    .orderBy('t.id')
    .execute();
  return rows.map((row) => row.id);
}

/** What the transfer of the releases before D34 stored: `to` owner, `from` admin. */
async function handOver(ctx: TestContext, teamId: number, from: TestUser, to: TestUser): Promise<void> {
  await ctx.db.updateTable('team_members').set({ role: 'owner' }).where('team_id', '=', teamId).where('user_id', '=', to.id).execute();
  await ctx.db.updateTable('team_members').set({ role: 'admin' }).where('team_id', '=', teamId).where('user_id', '=', from.id).execute();
}

/** What their `users:delete` did when it took the user's own personal team: the user, the team, the memberships elsewhere. */
async function deleteAsBefore(ctx: TestContext, user: TestUser): Promise<void> {
  await ctx.db.deleteFrom('teams').where('id', '=', user.teamId!).execute();
  await ctx.db.deleteFrom('users').where('id', '=', user.id).execute();
}

describe('migration 0013 on a database written by the releases before D34', () => {
  it('gives every team an owner, gives personal teams back to their users, and deletes the teams nobody belongs to', async ({ ctx }) => {
    const { error } = await (await createMigrator(ctx.db)).migrateTo('0012-auth-changes');
    expect(error).toBeUndefined();
    const user = (name: string) => ctx.given.user({ plan: 'enterprise', name });
    const later = () => ctx.clock.advance(MINUTE * 5);

    // (a) A personal team whose every member was deleted: its project keeps a report, and its token
    // is still valid. (Checked without uploading: an upload writes tables of later migrations.)
    const gone = await user('Gone');
    const { project: orphan, apiToken: orphanToken } = await ctx.given.project(gone);
    await ctx.db.deleteFrom('team_members').where('team_id', '=', gone.teamId!).execute();
    // Written as that release's schema has it: today's report service also keeps E8's issue states.
    const at = ctx.clock.now().toISOString();
    const counts = { score: 80, total: 0, passed: 0, failed: 0, warnings: 0, skipped: 0, errors: 0, total_issues: 0 };
    const severities = { issues_critical: 0, issues_high: 0, issues_medium: 0, issues_low: 0, issues_info: 0 };
    await ctx.db
      .insertInto('reports')
      .values({
        uuid: uuidv7(),
        project_id: orphan.id,
        ...counts,
        ...severities,
        analyzed_at: at,
        created_at: at,
        results: '[]',
        metadata: '{}',
      } as never)
      .execute();
    expect((await clientCall(ctx, orphanToken, undefined, { url: '/api/token/verify' })).statusCode).toBe(200);

    // (b) A shared team whose owner was deleted, with a readonly member, a member and an admin, in the order they joined.
    const founder = await user('Founder');
    const shared = await ctx.given.team(founder, 'Shared');
    later();
    const reader = await user('Reader');
    await ctx.given.member(shared, reader, 'readonly');
    later();
    const member = await user('Member');
    await ctx.given.member(shared, member, 'member');
    later();
    const admin = await user('Admin');
    await ctx.given.member(shared, admin, 'admin');
    await ctx.db.deleteFrom('team_members').where('team_id', '=', shared).where('user_id', '=', founder.id).execute();

    // (c) The same with no admin: the longest-standing member, not the readonly one who joined first.
    const second = await ctx.given.team(founder, 'No admin');
    later();
    await ctx.given.member(second, reader, 'readonly', { makeCurrent: false });
    later();
    await ctx.given.member(second, member, 'member', { makeCurrent: false });
    later();
    await ctx.given.member(second, admin, 'member', { makeCurrent: false });
    await ctx.db.deleteFrom('team_members').where('team_id', '=', second).where('user_id', '=', founder.id).execute();

    // (d) A personal team handed to a member, both still here.
    const cy = await user('Cy');
    const { project: cyProject, apiToken: cyToken } = await ctx.given.project(cy);
    later();
    const dee = await user('Dee');
    await ctx.given.member(cy.teamId!, dee, 'member', { makeCurrent: false });
    await handOver(ctx, cy.teamId!, cy, dee);

    // (e) A personal team handed to a member who was then deleted: its user is left as admin.
    const eve = await user('Eve');
    later();
    const fay = await user('Fay');
    await ctx.given.member(eve.teamId!, fay, 'member');
    await handOver(ctx, eve.teamId!, eve, fay);
    await deleteAsBefore(ctx, fay);

    // (f) Teams that were fine.
    const fine = await user('Fine');
    // An older user joining in the very instant the personal team was made is no transfer.
    await ctx.given.member(fine.teamId!, reader, 'member', { makeCurrent: false });
    const fineShared = await ctx.given.team(fine, 'Fine and shared');
    await ctx.given.member(fineShared, cy, 'admin', { makeCurrent: false });
    const untouched = async () => ({
      teams: await Promise.all([fine.teamId!, fineShared, dee.teamId!].map((id) => teamRow(ctx, id))),
      roles: await Promise.all([fine.teamId!, fineShared, dee.teamId!].map((id) => roles(ctx, id))),
    });
    const before = await untouched();
    const since = (await ctx.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst())?.id ?? 0;

    await migrateToLatest(ctx.db);

    // (a) Gone with its project and reports; the token is refused.
    expect(await teamRow(ctx, gone.teamId!)).toBeUndefined();
    expect(await ctx.db.selectFrom('projects').select('id').where('id', '=', orphan.id).execute()).toEqual([]);
    expect(await ctx.db.selectFrom('reports').select('id').where('project_id', '=', orphan.id).execute()).toEqual([]);
    expectClientUnauthenticated(await upload(ctx, orphanToken, minimalReport({ project_id: orphan.id })));
    // (b), (c) The admin, else the longest-standing member, owns the team; the others keep their roles.
    expect(await roles(ctx, shared)).toEqual({ [reader.id]: 'readonly', [member.id]: 'member', [admin.id]: 'owner' });
    expect(await roles(ctx, second)).toEqual({ [reader.id]: 'readonly', [member.id]: 'owner', [admin.id]: 'member' });
    // (d) The transfer stands, as a shared team; Cy gets a new, empty personal team and keeps her current team.
    expect(await teamRow(ctx, cy.teamId!)).toMatchObject({ personal_team: false });
    expect(await roles(ctx, cy.teamId!)).toEqual({ [cy.id]: 'admin', [dee.id]: 'owner' });
    const [cyPersonal, ...more] = await personalTeamsOf(ctx, cy);
    expect(more).toEqual([]);
    expect(cyPersonal).not.toBe(cy.teamId);
    expect(await teamRow(ctx, cyPersonal!)).toMatchObject({ name: "Cy's team", personal_team: true });
    expect(await roles(ctx, cyPersonal!)).toEqual({ [cy.id]: 'owner' });
    expect(await personalTeamsOf(ctx, dee)).toEqual([dee.teamId]);
    expect(
      (await ctx.db.selectFrom('users').select('current_team_id').where('id', '=', cy.id).executeTakeFirstOrThrow()).current_team_id,
    ).toBe(cy.teamId);
    await uploadOk(ctx, cyToken, minimalReport({ project_id: cyProject.id }));
    // (e) Eve, its user and longest-standing admin, owns her personal team again.
    expect(await roles(ctx, eve.teamId!)).toEqual({ [eve.id]: 'owner' });
    expect(await personalTeamsOf(ctx, eve)).toEqual([eve.teamId]);
    // (f) As they were.
    expect(await untouched()).toEqual(before);

    // Every team has exactly one owner.
    const owners = await ctx.db
      .selectFrom('teams as t')
      .leftJoin('team_members as m', (join) => join.onRef('m.team_id', '=', 't.id').on('m.role', '=', 'owner'))
      .select(['t.id', 'm.user_id'])
      .execute();
    const perTeam = new Map<number, number>();
    for (const row of owners) perTeam.set(row.id, (perTeam.get(row.id) ?? 0) + (row.user_id === null ? 0 : 1));
    expect(
      [...perTeam.values()].every((count) => count === 1),
      JSON.stringify([...perTeam]),
    ).toBe(true);

    // The operator's audit events say what the migration did.
    const events = await ctx.db
      .selectFrom('audit_events')
      .select(['action', 'team_id', 'actor_type'])
      .where('id', '>', since)
      .orderBy('id')
      .execute();
    expect(events.map((event) => [event.action, event.team_id, event.actor_type])).toEqual([
      ['team.transferred', shared, 'operator'],
      ['team.transferred', second, 'operator'],
      ['team.transferred', eve.teamId, 'operator'],
      ['team.deleted', gone.teamId, 'operator'],
      ['team.updated', cy.teamId, 'operator'],
      ['team.created', cyPersonal, 'operator'],
    ]);

    // Then the API: Cy cannot hand her new personal team over.
    const transfer = await ctx.request({
      method: 'POST',
      url: `/api/v1/teams/${cyPersonal}/transfer`,
      token: cy.token,
      body: { user_id: dee.id },
    });
    expect(transfer.statusCode, transfer.body).toBe(403);
    // A second run changes nothing.
    const { error: again } = await (await createMigrator(ctx.db)).migrateTo('0012-auth-changes');
    expect(again).toBeUndefined();
    await migrateToLatest(ctx.db);
    expect(await ctx.db.selectFrom('audit_events').select('id').where('id', '>', since).execute()).toHaveLength(events.length);
  });
});
