import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, ok, okJson, type CliResult, type Sandbox } from './cli-process.js';
import { PERSONAL_ACCESS_TOKEN, sha256 } from '../helpers/contract.js';

/**
 * The operator command `scoreboard` (D20), run as a real child process. These tests look at its
 * output, exit code and the database it writes; cli-server.test.ts checks the effects over HTTP.
 */

const COMMANDS = [
  'serve',
  'migrate',
  'users:create',
  'tokens:create',
  'users:plan',
  'teams:create',
  'teams:add-member',
  'users:switch-team',
];

/** D20 contract: a failure prints ONE line to stderr, nothing to stdout, and exits non-zero. */
function expectOneLineFailure(result: CliResult, mentions: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.code).not.toBeNull();
  expect(result.stdout).toBe('');
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(mentions);
  expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+\)?$/m); // no stack trace
}

describe('scoreboard --help', { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox();
  });
  afterAll(() => sandbox.cleanup());

  it('exits 0, lists every command and does not touch the database', async () => {
    const result = await sandbox.cli('--help');
    expect(result.code).toBe(0);
    for (const command of COMMANDS) expect(result.stdout).toContain(command);
    expect(existsSync(sandbox.databaseFile)).toBe(false);
  });
});

describe('scoreboard migrate', { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox();
  });
  afterAll(() => sandbox.cleanup());

  it('migrates a fresh database file and is idempotent', async () => {
    const first = await sandbox.cli('migrate');
    expect(first.code).toBe(0);
    expect(existsSync(sandbox.databaseFile)).toBe(true);

    const sqlite = sandbox.sqlite();
    try {
      const tables = sqlite
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((row) => (row as { name: string }).name);
      for (const table of ['users', 'teams', 'team_members', 'subscriptions', 'personal_access_tokens', 'projects', 'reports']) {
        expect(tables).toContain(table);
      }
      // The CLI and a running server share the file: it must be in WAL mode.
      expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      sqlite.close();
    }

    const second = await sandbox.cli('migrate');
    expect(second.code).toBe(0);
    expect(second.stderr).toBe('');
  });
});

describe('scoreboard users:create and tokens:create (database effects)', { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox();
  });
  afterAll(() => sandbox.cleanup());

  it('creates the user, a personal team owned by them and current, a solo subscription and a full token', async () => {
    const created = await okJson(sandbox, 'users:create', '--email', 'ada@example.com', '--name', 'Ada');
    expect(created).toEqual({
      user: { id: expect.any(Number), email: 'ada@example.com' },
      team: { id: expect.any(Number) },
      token: expect.stringMatching(PERSONAL_ACCESS_TOKEN),
    });

    const sqlite = sandbox.sqlite();
    try {
      const user = sqlite.prepare('SELECT * FROM users WHERE id = ?').get(created.user.id) as any;
      expect(user).toMatchObject({ email: 'ada@example.com', name: 'Ada', current_team_id: created.team.id });
      expect(sqlite.prepare('SELECT team_id, user_id, role FROM team_members WHERE user_id = ?').all(created.user.id)).toEqual([
        { team_id: created.team.id, user_id: created.user.id, role: 'owner' },
      ]);
      expect(sqlite.prepare('SELECT plan, status, ends_at FROM subscriptions WHERE user_id = ?').all(created.user.id)).toEqual([
        { plan: 'solo', status: 'active', ends_at: null },
      ]);
      const tokens = sqlite.prepare('SELECT token_hash, abilities, expires_at FROM personal_access_tokens WHERE user_id = ?').all(created.user.id) as any[];
      expect(tokens).toHaveLength(1);
      // D9: only the SHA-256 of the whole plain text is stored.
      expect(tokens[0].token_hash).toBe(sha256(created.token));
      expect(JSON.parse(tokens[0].abilities)).toEqual(['read', 'write', 'admin']);
      expect(tokens[0].expires_at).toBeNull();
    } finally {
      sqlite.close();
    }
  });

  it('prints the token in the human-readable output too', async () => {
    const stdout = await ok(sandbox, 'users:create', '--email', 'plain@example.com');
    expect(stdout.match(/service_[A-Za-z0-9]{48}/g)).toHaveLength(1);
  });

  it('--plan none creates no subscription; --no-team creates no team and prints team null', async () => {
    const created = await okJson(sandbox, 'users:create', '--email', 'lone@example.com', '--plan', 'none', '--no-team', '--abilities', 'read');
    expect(created.team).toBeNull();
    const sqlite = sandbox.sqlite();
    try {
      expect(sqlite.prepare('SELECT current_team_id FROM users WHERE id = ?').get(created.user.id)).toEqual({ current_team_id: null });
      expect(sqlite.prepare('SELECT COUNT(*) AS n FROM team_members WHERE user_id = ?').get(created.user.id)).toEqual({ n: 0 });
      expect(sqlite.prepare("SELECT COUNT(*) AS n FROM subscriptions WHERE user_id = ? AND status = 'active'").get(created.user.id)).toEqual({ n: 0 });
      const token = sqlite.prepare('SELECT abilities FROM personal_access_tokens WHERE user_id = ?').get(created.user.id) as any;
      expect(JSON.parse(token.abilities)).toEqual(['read']);
    } finally {
      sqlite.close();
    }
  });

  it('tokens:create --json prints {id, token} and stores the given name, abilities and a past expiry', async () => {
    await ok(sandbox, 'users:create', '--email', 'tok@example.com');
    const created = await okJson(sandbox, 'tokens:create', '--email', 'tok@example.com', '--name', 'deploy', '--abilities', 'read,write', '--expires-at', '2000-01-01');
    expect(created).toEqual({ id: expect.any(Number), token: expect.stringMatching(PERSONAL_ACCESS_TOKEN) });
    const sqlite = sandbox.sqlite();
    try {
      const row = sqlite.prepare('SELECT name, abilities, expires_at, token_hash FROM personal_access_tokens WHERE id = ?').get(created.id) as any;
      expect(row.name).toBe('deploy');
      expect(JSON.parse(row.abilities)).toEqual(['read', 'write']);
      expect(row.expires_at).toBe('2000-01-01T00:00:00.000Z'); // D9: date means 00:00:00 UTC
      expect(row.token_hash).toBe(sha256(created.token));
    } finally {
      sqlite.close();
    }
  });

  it('never writes a printed plain-text token into the SQLite files (D9)', async () => {
    const user = await okJson(sandbox, 'users:create', '--email', 'secret@example.com');
    const extra = await okJson(sandbox, 'tokens:create', '--email', 'secret@example.com');
    const files = [sandbox.databaseFile, `${sandbox.databaseFile}-wal`, `${sandbox.databaseFile}-shm`].filter(existsSync);
    expect(files).toContain(sandbox.databaseFile);
    for (const file of files) {
      const content = readFileSync(file);
      for (const token of [user.token, extra.token]) {
        expect(content.includes(token), `${token} in ${file}`).toBe(false);
        expect(content.includes(token.slice('service_'.length, 'service_'.length + 40)), `token body in ${file}`).toBe(false);
      }
    }
  });
});

// Concurrent: none of these commands writes, and each is a separate process.
describe.concurrent('scoreboard errors: one line on stderr, non-zero exit, no change', { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = createSandbox();
    await ok(sandbox, 'users:create', '--email', 'owner@example.com', '--no-team');
    await ok(sandbox, 'users:create', '--email', 'other@example.com');
  });
  afterAll(() => sandbox.cleanup());

  const count = (sql: string) => {
    const sqlite = sandbox.sqlite();
    try {
      return (sqlite.prepare(sql).get() as { n: number }).n;
    } finally {
      sqlite.close();
    }
  };

  it('rejects a duplicate email (case-insensitively) and keeps one user', async () => {
    expectOneLineFailure(await sandbox.cli('users:create', '--email', 'Owner@Example.com'), /already exists/i);
    expect(count("SELECT COUNT(*) AS n FROM users WHERE lower(email) = 'owner@example.com'")).toBe(1);
  });

  it('rejects an unknown plan without creating the user', async () => {
    expectOneLineFailure(await sandbox.cli('users:create', '--email', 'gold@example.com', '--plan', 'gold'), /plan|gold/i);
    expect(count("SELECT COUNT(*) AS n FROM users WHERE email = 'gold@example.com'")).toBe(0);
  });

  it('rejects an unknown ability without creating the user', async () => {
    expectOneLineFailure(await sandbox.cli('users:create', '--email', 'fly@example.com', '--abilities', 'read,fly'), /abilit/i);
    expect(count("SELECT COUNT(*) AS n FROM users WHERE email = 'fly@example.com'")).toBe(0);
  });

  it('rejects an unknown flag', async () => {
    expectOneLineFailure(await sandbox.cli('users:create', '--email', 'flag@example.com', '--bogus'), /--bogus/);
    expect(count("SELECT COUNT(*) AS n FROM users WHERE email = 'flag@example.com'")).toBe(0);
  });

  it('rejects a missing required option', async () => {
    const [create, plan, team] = await Promise.all([
      sandbox.cli('users:create'),
      sandbox.cli('users:plan', '--email', 'owner@example.com'),
      sandbox.cli('teams:create', '--owner', 'owner@example.com'),
    ]);
    expectOneLineFailure(create, /--email/);
    expectOneLineFailure(plan, /--plan/);
    expectOneLineFailure(team, /--name/);
  });

  it('rejects an unknown user on every command that names one', async () => {
    const before = count('SELECT COUNT(*) AS n FROM personal_access_tokens');
    const results = await Promise.all([
      sandbox.cli('tokens:create', '--email', 'nobody@example.com'),
      sandbox.cli('users:plan', '--email', 'nobody@example.com', '--plan', 'business'),
      sandbox.cli('teams:create', '--owner', 'nobody@example.com', '--name', 'X'),
      sandbox.cli('teams:add-member', '--team', '1', '--email', 'nobody@example.com', '--role', 'member'),
      sandbox.cli('users:switch-team', '--email', 'nobody@example.com', '--team', '1'),
    ]);
    for (const result of results) expectOneLineFailure(result, /nobody@example\.com/);
    expect(count('SELECT COUNT(*) AS n FROM personal_access_tokens')).toBe(before);
    expect(count("SELECT COUNT(*) AS n FROM teams WHERE name = 'X'")).toBe(0);
  });

  it('rejects an unknown role', async () => {
    expectOneLineFailure(await sandbox.cli('teams:add-member', '--team', '1', '--email', 'owner@example.com', '--role', 'king'), /role|king/i);
    expect(count('SELECT COUNT(*) AS n FROM team_members WHERE team_id = 1')).toBe(1);
  });

  it('rejects a non-numeric team id', async () => {
    const [add, change] = await Promise.all([
      sandbox.cli('teams:add-member', '--team', 'abc', '--email', 'owner@example.com', '--role', 'member'),
      sandbox.cli('users:switch-team', '--email', 'owner@example.com', '--team', '1x'),
    ]);
    expectOneLineFailure(add, /team|abc/i);
    expectOneLineFailure(change, /team|1x/i);
  });

  it('rejects switching to a team the user is not a member of, keeping the current team', async () => {
    // other@example.com owns team 1 (owner@example.com was created with --no-team).
    expectOneLineFailure(await sandbox.cli('users:switch-team', '--email', 'owner@example.com', '--team', '1'), /member/i);
    expect(count("SELECT COUNT(*) AS n FROM users WHERE email = 'owner@example.com' AND current_team_id IS NULL")).toBe(1);
  });

  it('rejects adding a member to a team that does not exist', async () => {
    expectOneLineFailure(await sandbox.cli('teams:add-member', '--team', '999', '--email', 'owner@example.com', '--role', 'member'), /999/);
    expect(count('SELECT COUNT(*) AS n FROM team_members WHERE team_id = 999')).toBe(0);
  });

  it('rejects an unparseable --expires-at', async () => {
    expectOneLineFailure(await sandbox.cli('tokens:create', '--email', 'other@example.com', '--expires-at', 'next tuesday'), /expires/i);
  });

  it('rejects an unknown command', async () => {
    expectOneLineFailure(await sandbox.cli('users:delete', '--email', 'owner@example.com'), /users:delete/);
  });
});
