import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigrator } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createSandbox, ok, okJson, type Sandbox, expectOneLineFailure, type CreatedUser } from './cli-process.js';
import { onPostgres } from '../helpers/test-backend.js';

/** Every migration of this build, in order: all of them are pending on a fresh database. */
const MIGRATION_NAMES = Object.keys(migrations).sort();

/**
 * The operator's read-only commands (issue 14): users:list, users:show, teams:list, teams:show and
 * tokens:list, run in this process (cli-process.ts), in text and in --json, and their failures.
 */

const TIMESTAMP = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

describe('scoreboard users:list, users:show, teams:list, teams:show, tokens:list', () => {
  let sandbox: Sandbox;
  let ada: CreatedUser;
  let bob: CreatedUser;
  let carol: CreatedUser;
  let platform: number;
  let deployToken: number;

  beforeAll(async () => {
    sandbox = await createSandbox({ migrated: true, inProcess: true });
    // Sequential: ids and the order of memberships are asserted below.
    ada = await okJson<CreatedUser>(sandbox, 'users:create', '--email', 'Ada@Example.com', '--name', 'Ada');
    bob = await okJson<CreatedUser>(sandbox, 'users:create', '--email', 'bob@example.com', '--plan', 'none', '--no-team');
    carol = await okJson<CreatedUser>(sandbox, 'users:create', '--email', 'carol@example.com', '--name', 'Carol', '--plan', 'business');
    platform = (await okJson<{ team: { id: number } }>(sandbox, 'teams:create', '--owner', 'ada@example.com', '--name', 'Platform')).team
      .id;
    await ok(sandbox, 'teams:add-member', '--team', String(platform), '--email', 'bob@example.com', '--role', 'member');
    await ok(sandbox, 'teams:add-member', '--team', String(platform), '--email', 'carol@example.com', '--role', 'readonly');
    deployToken = (
      await okJson<{ id: number }>(
        sandbox,
        'tokens:create',
        '--email',
        'ada@example.com',
        '--name',
        'deploy',
        '--abilities',
        'read',
        '--expires-at',
        '2030-01-01',
      )
    ).id;
  });
  afterAll(() => sandbox?.cleanup());

  it('users:list --json: every user by id, plan null without a subscription, token counts', async () => {
    const { data } = await okJson(sandbox, 'users:list');
    expect(data).toEqual([
      {
        id: ada.user.id,
        email: 'ada@example.com',
        name: 'Ada',
        plan: 'solo',
        current_team_id: platform,
        token_count: 2,
        created_at: TIMESTAMP,
      },
      { id: bob.user.id, email: 'bob@example.com', name: null, plan: null, current_team_id: null, token_count: 1, created_at: TIMESTAMP },
      {
        id: carol.user.id,
        email: 'carol@example.com',
        name: 'Carol',
        plan: 'business',
        current_team_id: carol.team!.id,
        token_count: 1,
        created_at: TIMESTAMP,
      },
    ]);
  });

  it('users:list prints a table: a header and one row per user, - for null', async () => {
    const lines = (await ok(sandbox, 'users:list')).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+EMAIL\s+NAME\s+PLAN\s+CURRENT TEAM\s+TOKENS\s+CREATED AT$/);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(new RegExp(`^${ada.user.id}\\s+ada@example\\.com\\s+Ada\\s+solo\\s+${platform}\\s+2\\s+\\d{4}-`));
    expect(lines[2]).toMatch(new RegExp(`^${bob.user.id}\\s+bob@example\\.com\\s+-\\s+-\\s+-\\s+1\\s+\\d{4}-`));
  });

  it('users:show --json finds the user case-insensitively, with their teams and roles', async () => {
    const { data } = await okJson(sandbox, 'users:show', '--email', '  ADA@example.COM ');
    expect(data).toEqual({
      id: ada.user.id,
      email: 'ada@example.com',
      name: 'Ada',
      plan: 'solo',
      current_team_id: platform,
      token_count: 2,
      created_at: TIMESTAMP,
      teams: [
        { id: ada.team!.id, name: "Ada's team", role: 'owner' },
        { id: platform, name: 'Platform', role: 'owner' },
      ],
    });
    const member = await okJson(sandbox, 'users:show', '--email', 'bob@example.com');
    expect(member.data.teams).toEqual([{ id: platform, name: 'Platform', role: 'member' }]);
  });

  it('users:show prints the fields, then a table of teams', async () => {
    const text = await ok(sandbox, 'users:show', '--email', 'carol@example.com');
    expect(text).toMatch(/^email:\s+carol@example\.com$/m);
    expect(text).toMatch(/^plan:\s+business$/m);
    expect(text).toMatch(/^tokens:\s+1$/m);
    expect(text).toMatch(/^ID\s+NAME\s+ROLE$/m);
    expect(text).toMatch(new RegExp(`^${carol.team!.id}\\s+Carol's team\\s+owner$`, 'm'));
    expect(text).toMatch(new RegExp(`^${platform}\\s+Platform\\s+readonly$`, 'm'));
  });

  it('users:show shows plan null once the subscription is ended', async () => {
    await ok(sandbox, 'users:create', '--email', 'ended@example.com');
    await ok(sandbox, 'users:plan', '--email', 'ended@example.com', '--plan', 'none');
    expect((await okJson(sandbox, 'users:show', '--email', 'ended@example.com')).data.plan).toBeNull();
  });

  it('teams:list --json: every team by id with its owner, member and project counts', async () => {
    const { data } = await okJson(sandbox, 'teams:list');
    const byId = new Map(data.map((team: { id: number }) => [team.id, team]));
    expect(byId.get(ada.team!.id)).toEqual({
      id: ada.team!.id,
      name: "Ada's team",
      owner_id: ada.user.id,
      owner_email: 'ada@example.com',
      member_count: 1,
      project_count: 0,
      created_at: TIMESTAMP,
    });
    expect(byId.get(platform)).toEqual({
      id: platform,
      name: 'Platform',
      owner_id: ada.user.id,
      owner_email: 'ada@example.com',
      member_count: 3,
      project_count: 0,
      created_at: TIMESTAMP,
    });
    expect(data.map((t: { id: number }) => t.id)).toEqual([...data.map((t: { id: number }) => t.id)].sort((a, b) => a - b));
  });

  it('teams:list prints a table', async () => {
    const text = await ok(sandbox, 'teams:list');
    expect(text).toMatch(/^ID\s+NAME\s+OWNER ID\s+OWNER EMAIL\s+MEMBERS\s+PROJECTS\s+CREATED AT$/m);
    expect(text).toMatch(new RegExp(`^${platform}\\s+Platform\\s+${ada.user.id}\\s+ada@example\\.com\\s+3\\s+0\\s+\\d{4}-`, 'm'));
  });

  it("teams:show --json: the team and its members in E4's member shape, in the order they joined", async () => {
    const shown = await okJson(sandbox, 'teams:show', '--team', String(platform));
    expect(shown).toEqual({
      data: {
        id: platform,
        name: 'Platform',
        owner_id: ada.user.id,
        owner_email: 'ada@example.com',
        member_count: 3,
        project_count: 0,
        created_at: TIMESTAMP,
      },
      members: [
        { id: ada.user.id, name: 'Ada', email: 'ada@example.com', role: 'owner', joined_at: TIMESTAMP },
        { id: bob.user.id, name: null, email: 'bob@example.com', role: 'member', joined_at: TIMESTAMP },
        { id: carol.user.id, name: 'Carol', email: 'carol@example.com', role: 'readonly', joined_at: TIMESTAMP },
      ],
    });
  });

  it('teams:show prints the fields, then a table of members', async () => {
    const text = await ok(sandbox, 'teams:show', '--team', String(platform));
    expect(text).toMatch(new RegExp(`^owner:\\s+${ada.user.id} \\(ada@example\\.com\\)$`, 'm'));
    expect(text).toMatch(/^members:\s+3$/m);
    expect(text).toMatch(/^ID\s+NAME\s+EMAIL\s+ROLE\s+JOINED AT$/m);
    expect(text).toMatch(new RegExp(`^${bob.user.id}\\s+-\\s+bob@example\\.com\\s+member\\s+\\d{4}-`, 'm'));
  });

  it('tokens:list --json: the metadata of each token, newest first, as the API shows it', async () => {
    const { data } = await okJson(sandbox, 'tokens:list', '--email', 'ADA@example.com');
    expect(data).toEqual([
      {
        id: deployToken,
        name: 'deploy',
        abilities: ['read'],
        last_used_at: null,
        expires_at: '2030-01-01T00:00:00.000Z',
        created_at: TIMESTAMP,
      },
      {
        id: expect.any(Number),
        name: 'CLI token',
        abilities: ['read', 'write', 'admin'],
        last_used_at: null,
        expires_at: null,
        created_at: TIMESTAMP,
      },
    ]);
  });

  it('tokens:list never shows a token hash or a plain-text token, in text or in JSON', async () => {
    const hashes = await sandbox.withDb((db) => db.selectFrom('personal_access_tokens').select('token_hash').execute());
    expect(hashes.length).toBeGreaterThanOrEqual(5);
    const text = await ok(sandbox, 'tokens:list', '--email', 'ada@example.com');
    const json = await ok(sandbox, 'tokens:list', '--email', 'ada@example.com', '--json');
    expect(text).toMatch(/^ID\s+NAME\s+ABILITIES\s+LAST USED AT\s+EXPIRES AT\s+CREATED AT$/m);
    expect(text).toMatch(new RegExp(`^${deployToken}\\s+deploy\\s+read\\s+-\\s+2030-01-01T00:00:00\\.000Z\\s+\\d{4}-`, 'm'));
    for (const output of [text, json]) {
      for (const { token_hash } of hashes) {
        expect(output).not.toContain(token_hash);
        expect(output).not.toContain(token_hash.slice(0, 16));
      }
      expect(output).not.toContain(ada.token);
      expect(output).not.toContain(ada.token.slice(8, 48));
      expect(output).not.toMatch(/hash/i);
    }
  });

  it('an unknown email or team is one line on stderr naming it, exit 1', async () => {
    const [user, tokens, team, badTeam] = await Promise.all([
      sandbox.cli('users:show', '--email', 'nobody@example.com'),
      sandbox.cli('tokens:list', '--email', 'nobody@example.com', '--json'),
      sandbox.cli('teams:show', '--team', '999', '--json'),
      sandbox.cli('teams:show', '--team', 'abc'),
    ]);
    expectOneLineFailure(user, /nobody@example\.com/);
    expectOneLineFailure(tokens, /nobody@example\.com/);
    expectOneLineFailure(team, /999/);
    expectOneLineFailure(badTeam, /team|abc/i);
  });

  it('shows control characters of a stored name as U+FFFD in text, escaped in JSON', async () => {
    await ok(sandbox, 'users:create', '--email', 'esc@example.com', '--name', 'Eve\u001b[2J\nroot');
    const text = await ok(sandbox, 'users:show', '--email', 'esc@example.com');
    expect(text).not.toContain('\u001b');
    expect(text).toMatch(/^name:\s+Eve\uFFFD\[2J\uFFFDroot$/m);
    expect((await okJson(sandbox, 'users:show', '--email', 'esc@example.com')).data.name).toBe('Eve\u001b[2J\nroot');
  });

  it('empty lists say so in text and are empty arrays in JSON', async () => {
    const empty = await createSandbox({ migrated: true, inProcess: true });
    try {
      expect(await ok(empty, 'users:list')).toBe('No users.\n');
      expect(await ok(empty, 'teams:list')).toBe('No teams.\n');
      expect(await okJson(empty, 'users:list')).toEqual({ data: [] });
      await ok(empty, 'users:create', '--email', 'solo@example.com', '--no-team');
      const tokens = await okJson(empty, 'tokens:list', '--email', 'solo@example.com');
      expect(tokens.data).toHaveLength(1);
      expect(await ok(empty, 'users:show', '--email', 'solo@example.com')).toMatch(/^No teams\.$/m);
    } finally {
      await empty.cleanup();
    }
  });
});

describe('the read commands on a database that is not migrated', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ inProcess: true });
  });
  afterAll(() => sandbox?.cleanup());

  it('name the pending migrations and say to run scoreboard migrate, changing nothing', async () => {
    // SQLite: an existing file (a missing one is refused before, see cli-operations.test.ts).
    if (!onPostgres) writeFileSync(sandbox.store.sqliteFile!, '');
    const results = await Promise.all(
      [
        ['users:list'],
        ['users:show', '--email', 'a@example.com'],
        ['teams:list'],
        ['teams:show', '--team', '1'],
        ['tokens:list', '--email', 'a@example.com'],
      ].map((args) => sandbox.cli(...args)),
    );
    for (const result of results)
      expectOneLineFailure(result, new RegExp(`pending migrations \\(${MIGRATION_NAMES.join(', ')}\\).*scoreboard migrate`));
    // Half-way: the first three applied, by this build's own migrator.
    await sandbox.withDb(async (db) => {
      const { error } = await (await createMigrator(db)).migrateTo('0003-team-project-count');
      expect(error).toBeUndefined();
    });
    expectOneLineFailure(
      await sandbox.cli('users:list', '--json'),
      new RegExp(`pending migrations \\(${MIGRATION_NAMES.slice(3).join(', ')}\\)`),
    );
    await ok(sandbox, 'migrate');
    expect(await okJson(sandbox, 'users:list')).toEqual({ data: [] });
  });
});
