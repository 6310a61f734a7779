import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { minimalReport } from '../helpers/client-wire.js';
import {
  api,
  createSandbox,
  ok,
  okJson,
  startServer,
  type RunningServer,
  type Sandbox,
  expectOneLineFailure,
  type CreatedUser,
} from './cli-process.js';

/**
 * The operator's commands that change accounts (issue 14): users:update, users:delete,
 * teams:remove-member, tokens:revoke, and the owner transfer of teams:add-member, run (in this
 * process: cli-process.ts) against the database of a running server process, whose API then shows
 * the change; and the audit event (actor `operator`, E5) every changing command writes in the
 * change's transaction.
 */

/** The operator's audit events after `since`, oldest first, with their details parsed. */
async function operatorEvents(db: Db, since = 0) {
  const rows = await db
    .selectFrom('audit_events')
    .selectAll()
    .where('id', '>', since)
    .where('actor_type', '=', 'operator')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    action: row.action,
    target: `${row.target_type}:${row.target_id}`,
    team_id: row.team_id,
    user_id: row.user_id,
    details: JSON.parse(row.details),
  }));
}

async function lastEventId(db: Db): Promise<number> {
  return (await db.selectFrom('audit_events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst())?.id ?? 0;
}

describe('the operator commands that change accounts, against a running server', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  let ada: CreatedUser;
  let bob: CreatedUser;
  let carol: CreatedUser;
  let platform: number;

  beforeAll(async () => {
    sandbox = await createSandbox({ inProcess: true });
    server = await startServer(sandbox); // `serve` migrates the new database
    ada = await okJson<CreatedUser>(sandbox, 'users:create', '--email', 'ada@example.com', '--name', 'Ada', '--plan', 'business');
    bob = await okJson<CreatedUser>(sandbox, 'users:create', '--email', 'bob@example.com', '--name', 'Bob');
    carol = await okJson<CreatedUser>(sandbox, 'users:create', '--email', 'carol@example.com');
    platform = (await okJson<{ team: { id: number } }>(sandbox, 'teams:create', '--owner', 'ada@example.com', '--name', 'Platform')).team
      .id;
  });
  afterAll(async () => {
    await server?.stop();
    await sandbox?.cleanup();
  });

  it('writes an operator audit event with every change, users:create through users:switch-team', async () => {
    const events = await sandbox.withDb((db) => operatorEvents(db));
    // users:create: the user, the personal team, the first token; then teams:create.
    expect(events.filter((e) => e.user_id === ada.user.id || e.team_id === platform).map((e) => [e.action, e.target])).toEqual([
      ['user.created', `user:${ada.user.id}`],
      ['team.created', `team:${ada.team!.id}`],
      ['token.created', expect.stringMatching(/^token:\d+$/)],
      ['team.created', `team:${platform}`],
    ]);
    expect(events.find((e) => e.action === 'user.created' && e.user_id === ada.user.id)!.details).toEqual({
      email: 'ada@example.com',
      name: 'Ada',
      plan: 'business',
    });

    const since = await sandbox.withDb(lastEventId);
    await ok(sandbox, 'teams:add-member', '--team', String(platform), '--email', 'carol@example.com', '--role', 'member');
    await ok(sandbox, 'teams:add-member', '--team', String(platform), '--email', 'carol@example.com', '--role', 'readonly');
    await ok(sandbox, 'teams:add-member', '--team', String(platform), '--email', 'carol@example.com', '--role', 'readonly'); // no change, no event
    await ok(sandbox, 'users:switch-team', '--email', 'carol@example.com', '--team', String(platform));
    await ok(sandbox, 'users:plan', '--email', 'carol@example.com', '--plan', 'enterprise');
    await ok(sandbox, 'users:plan', '--email', 'carol@example.com', '--plan', 'enterprise'); // no change, no event
    expect((await sandbox.withDb((db) => operatorEvents(db, since))).map((e) => [e.action, e.details])).toEqual([
      ['member.added', { email: 'carol@example.com', role: 'member' }],
      ['member.role_changed', { email: 'carol@example.com', role: { old: 'member', new: 'readonly' } }],
      ['user.updated', { current_team_id: { old: carol.team!.id, new: platform } }],
      ['user.plan_changed', { plan: { old: 'solo', new: 'enterprise' } }],
    ]);
    // The team's audit list shows the operator's changes to it (E5).
    const list = await api(server, 'GET', `/api/v1/teams/${platform}/audit-events`, ada.token);
    expect(list.status).toBe(200);
    expect(list.body.data.slice(0, 2).map((e: { action: string; actor: unknown }) => [e.action, e.actor])).toEqual([
      ['member.role_changed', { type: 'operator', id: null, email: null, token_id: null }],
      ['member.added', { type: 'operator', id: null, email: null, token_id: null }],
    ]);
  });

  it('users:update changes the name and the email (stored lower-cased); the API shows them, the user sees the event', async () => {
    const updated = await okJson(
      sandbox,
      'users:update',
      '--email',
      'bob@example.com',
      '--name',
      'Robert',
      '--new-email',
      ' Robert@Example.COM ',
    );
    expect(updated).toEqual({ user: { id: bob.user.id, email: 'robert@example.com', name: 'Robert' } });
    const profile = await api(server, 'GET', '/api/v1/user', bob.token);
    expect(profile.body.data).toMatchObject({ id: bob.user.id, email: 'robert@example.com', name: 'Robert' });
    const mine = await api(server, 'GET', '/api/v1/user/audit-events?action=user.updated', bob.token);
    expect(mine.body.data[0]).toMatchObject({
      action: 'user.updated',
      actor: { type: 'operator', id: null },
      details: { name: { old: 'Bob', new: 'Robert' }, email: { old: 'bob@example.com', new: 'robert@example.com' } },
    });

    expect(await ok(sandbox, 'users:update', '--email', 'robert@example.com', '--name', 'Bob')).toBe(
      `User ${bob.user.id} updated: robert@example.com (Bob).\n`,
    );
    await ok(sandbox, 'users:update', '--email', 'robert@example.com', '--new-email', 'bob@example.com');
  });

  it('users:update refuses in one line: nothing to change, a taken or invalid email, an unknown user; changing nothing', async () => {
    const since = await sandbox.withDb(lastEventId);
    expectOneLineFailure(
      await sandbox.cli('users:update', '--email', 'bob@example.com'),
      /Nothing to change: give --name and\/or --new-email/,
    );
    expectOneLineFailure(
      await sandbox.cli('users:update', '--email', 'bob@example.com', '--new-email', 'ADA@example.com'),
      /A user with email ada@example\.com already exists/,
    );
    expectOneLineFailure(
      await sandbox.cli('users:update', '--email', 'bob@example.com', '--new-email', 'not-an-email'),
      /"not-an-email" is not an email address/,
    );
    expectOneLineFailure(
      await sandbox.cli('users:update', '--email', 'bob@example.com', '--name', ' '),
      /The name must be 1 to 255 characters/,
    );
    expectOneLineFailure(
      await sandbox.cli('users:update', '--email', 'nobody@example.com', '--name', 'X'),
      /No user with email nobody@example\.com/,
    );
    expect(await sandbox.withDb((db) => operatorEvents(db, since))).toEqual([]);
    expect((await api(server, 'GET', '/api/v1/user', bob.token)).body.data).toMatchObject({ email: 'bob@example.com', name: 'Bob' });
  });

  it('teams:remove-member removes a member, who falls back to their personal team; never the owner', async () => {
    await ok(sandbox, 'teams:add-member', '--team', String(platform), '--email', 'bob@example.com', '--role', 'admin');
    await ok(sandbox, 'users:switch-team', '--email', 'bob@example.com', '--team', String(platform));
    const since = await sandbox.withDb(lastEventId);

    const removed = await okJson(sandbox, 'teams:remove-member', '--team', String(platform), '--email', 'bob@example.com');
    expect(removed).toEqual({ team_id: platform, email: 'bob@example.com', removed: true });
    expect((await api(server, 'GET', `/api/v1/teams/${platform}`, bob.token)).status).toBe(404);
    expect((await api(server, 'GET', '/api/v1/user', bob.token)).body.data.current_team_id).toBe(bob.team!.id);
    expect((await sandbox.withDb((db) => operatorEvents(db, since))).map((e) => [e.action, e.target, e.team_id, e.details])).toEqual([
      ['member.removed', `member:${bob.user.id}`, platform, { email: 'bob@example.com', role: 'admin' }],
    ]);

    expectOneLineFailure(
      await sandbox.cli('teams:remove-member', '--team', String(platform), '--email', 'bob@example.com'),
      /bob@example\.com is not a member of team/,
    );
    expectOneLineFailure(
      await sandbox.cli('teams:remove-member', '--team', String(platform), '--email', 'ada@example.com'),
      /ada@example\.com is the owner of team \d+: make another member owner first/,
    );
    expectOneLineFailure(
      await sandbox.cli('teams:remove-member', '--team', '999999', '--email', 'ada@example.com'),
      /No team with id 999999/,
    );
    expectOneLineFailure(
      await sandbox.cli('teams:remove-member', '--team', '99999999999', '--email', 'ada@example.com'),
      /--team.*expected an id from 1 to 2147483647/,
    );
    expect((await api(server, 'GET', `/api/v1/teams/${platform}`, ada.token)).body.data.role).toBe('owner');
  });

  it('teams:add-member --role owner transfers the team: the previous owner stays on as admin (E4)', async () => {
    const dan = await okJson<CreatedUser>(sandbox, 'users:create', '--email', 'dan@example.com', '--plan', 'business');
    const team = (await okJson<{ team: { id: number } }>(sandbox, 'teams:create', '--owner', 'dan@example.com', '--name', 'Handover')).team
      .id;
    await ok(sandbox, 'teams:add-member', '--team', String(team), '--email', 'carol@example.com', '--role', 'member');
    const since = await sandbox.withDb(lastEventId);

    expect(await ok(sandbox, 'teams:add-member', '--team', String(team), '--email', 'carol@example.com', '--role', 'owner')).toBe(
      `carol@example.com is now owner of team ${team}.\n`,
    );
    const seen = await api(server, 'GET', `/api/v1/teams/${team}`, dan.token);
    expect(seen.body.data).toMatchObject({ owner_id: carol.user.id, role: 'admin' });
    expect((await sandbox.withDb((db) => operatorEvents(db, since))).map((e) => [e.action, e.details])).toEqual([
      ['member.role_changed', { email: 'carol@example.com', role: { old: 'member', new: 'owner' } }],
      ['team.transferred', { owner_id: { old: dan.user.id, new: carol.user.id } }],
    ]);
    // The owner's role changes only by a transfer to someone else.
    expectOneLineFailure(
      await sandbox.cli('teams:add-member', '--team', String(team), '--email', 'carol@example.com', '--role', 'admin'),
      /carol@example\.com is the owner of team \d+: make another member owner first/,
    );
  });

  it('teams:add-member --role owner refuses a personal team (D34), changing nothing', async () => {
    const personal = ada.team!.id;
    await ok(sandbox, 'teams:add-member', '--team', String(personal), '--email', 'bob@example.com', '--role', 'member');
    const since = await sandbox.withDb(lastEventId);
    expectOneLineFailure(
      await sandbox.cli('teams:add-member', '--team', String(personal), '--email', 'bob@example.com', '--role', 'owner'),
      new RegExp(`Team ${personal} is a personal team: it cannot be transferred\\.`),
    );
    expect(await sandbox.withDb((db) => operatorEvents(db, since))).toEqual([]);
    expect((await api(server, 'GET', `/api/v1/teams/${personal}`, ada.token)).body.data).toMatchObject({
      owner_id: ada.user.id,
      role: 'owner',
    });
    await ok(sandbox, 'teams:remove-member', '--team', String(personal), '--email', 'bob@example.com');
  });

  it("tokens:revoke revokes any user's token by id: the API refuses it at once; an unknown id is one line", async () => {
    const made = await okJson<{ id: number; token: string }>(sandbox, 'tokens:create', '--email', 'carol@example.com', '--name', 'laptop');
    expect((await api(server, 'GET', '/api/v1/tokens', made.token)).status).toBe(200);
    const since = await sandbox.withDb(lastEventId);

    expect(await okJson(sandbox, 'tokens:revoke', '--id', String(made.id))).toEqual({ id: made.id, user_id: carol.user.id, revoked: true });
    expect((await api(server, 'GET', '/api/v1/tokens', made.token)).status).toBe(401);
    expect((await sandbox.withDb((db) => operatorEvents(db, since))).map((e) => [e.action, e.target, e.user_id])).toEqual([
      ['token.revoked', `token:${made.id}`, carol.user.id],
    ]);
    expectOneLineFailure(await sandbox.cli('tokens:revoke', '--id', String(made.id)), new RegExp(`No token with id ${made.id}\\.`));
    expectOneLineFailure(await sandbox.cli('tokens:revoke', '--id', 'abc'), /--id.*expected an id/);
    expect((await api(server, 'GET', '/api/v1/tokens', carol.token)).status).toBe(200);
  });

  it('users:delete needs --yes, refuses while the user owns a shared team (naming it), then deletes everything that was theirs', async () => {
    const erin = await okJson<CreatedUser>(sandbox, 'users:create', '--email', 'erin@example.com', '--plan', 'business');
    // Erin's personal team holds a project with a report; she is a member of Platform and owns a shared team.
    const project = await api(server, 'POST', '/api/v1/projects', erin.token, { name: 'Shop', framework_version: '11' });
    expect(project.status).toBe(201);
    const upload = await fetch(`${server.url}/api/reports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.body.api_token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(minimalReport({ project_id: project.body.project.id })),
    });
    expect(upload.status).toBe(201);
    await ok(sandbox, 'teams:add-member', '--team', String(platform), '--email', 'erin@example.com', '--role', 'member');
    const owned = (await okJson<{ team: { id: number } }>(sandbox, 'teams:create', '--owner', 'erin@example.com', '--name', 'Erin & co'))
      .team.id;
    await ok(sandbox, 'users:switch-team', '--email', 'erin@example.com', '--team', String(erin.team!.id));
    const since = await sandbox.withDb(lastEventId);

    expectOneLineFailure(await sandbox.cli('users:delete', '--email', 'erin@example.com'), /run again with --yes to confirm/);
    expectOneLineFailure(
      await sandbox.cli('users:delete', '--email', 'erin@example.com', '--yes'),
      new RegExp(`erin@example\\.com owns the team ${owned} "Erin & co": transfer it first`),
    );
    expect(await sandbox.withDb((db) => operatorEvents(db, since))).toEqual([]);
    expect((await api(server, 'GET', '/api/v1/user', erin.token)).status).toBe(200);

    await ok(sandbox, 'teams:add-member', '--team', String(owned), '--email', 'ada@example.com', '--role', 'owner');
    const deleted = await okJson(sandbox, 'users:delete', '--email', 'erin@example.com', '--yes');
    expect(deleted).toEqual({
      user: { id: erin.user.id, email: 'erin@example.com' },
      personal_team_id: erin.team!.id,
      projects_deleted: 1,
      tokens_deleted: 1,
      memberships_removed: [platform, owned],
    });

    expect((await api(server, 'GET', '/api/v1/user', erin.token)).status).toBe(401);
    const left = await sandbox.withDb(async (db) => ({
      users: (await db.selectFrom('users').select('id').where('id', '=', erin.user.id).execute()).length,
      tokens: (await db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', erin.user.id).execute()).length,
      memberships: (await db.selectFrom('team_members').select('team_id').where('user_id', '=', erin.user.id).execute()).length,
      teams: (await db.selectFrom('teams').select('id').where('id', '=', erin.team!.id).execute()).length,
      projects: (await db.selectFrom('projects').select('id').where('id', '=', project.body.project.id).execute()).length,
      reports: (await db.selectFrom('reports').select('id').where('project_id', '=', project.body.project.id).execute()).length,
    }));
    expect(left).toEqual({ users: 0, tokens: 0, memberships: 0, teams: 0, projects: 0, reports: 0 });
    // The shared teams she belonged to keep going without her.
    expect((await api(server, 'GET', `/api/v1/teams/${owned}`, ada.token)).body).toMatchObject({
      data: { owner_id: ada.user.id, member_count: 1 },
    });

    const events = await sandbox.withDb((db) => operatorEvents(db, since));
    expect(events.map((e) => [e.action, e.target, e.team_id])).toEqual([
      ['member.added', `member:${ada.user.id}`, owned], // the transfer that made the deletion possible
      ['team.transferred', `team:${owned}`, owned],
      ['team.deleted', `team:${erin.team!.id}`, erin.team!.id],
      ['member.removed', `member:${erin.user.id}`, platform],
      ['member.removed', `member:${erin.user.id}`, owned],
      ['user.deleted', `user:${erin.user.id}`, null],
    ]);
    expect(events.at(-1)!.details).toEqual({ email: 'erin@example.com', name: null, token_count: 1, personal_team_id: erin.team!.id });
    expectOneLineFailure(await sandbox.cli('users:delete', '--email', 'erin@example.com', '--yes'), /No user with email erin@example\.com/);
  });
});
