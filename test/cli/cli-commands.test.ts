import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { createSandbox, ok, okJson, type CliResult, type Sandbox } from './cli-process.js';
import { PERSONAL_ACCESS_TOKEN, sha256 } from '../helpers/contract.js';
import { onPostgres } from '../helpers/test-backend.js';

/**
 * The operator command `scoreboard` (D20), run in this process (cli-process.ts) but where only the
 * real command shows it (`sandbox.bin`): its exit status, several processes at once. These tests
 * look at its output, exit code and the database it writes; cli-server.test.ts checks the effects
 * over HTTP.
 */

const COMMANDS = [
  'serve',
  'migrate',
  'secrets:reencrypt',
  'users:create',
  'tokens:create',
  'users:plan',
  'teams:create',
  'teams:add-member',
  'users:switch-team',
  'users:list',
  'users:show',
  'teams:list',
  'teams:show',
  'tokens:list',
  'migrate:status',
  'backup',
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

describe('scoreboard --help', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ inProcess: true });
  });
  afterAll(() => sandbox.cleanup());

  it('exits 0, lists every command and does not touch the database', async () => {
    // The real command: its help goes to the process's stdout, and it exits 0.
    const result = await sandbox.bin('--help');
    expect(result.code).toBe(0);
    for (const command of COMMANDS) expect(result.stdout).toContain(command);
    if (onPostgres) {
      // No file to look for: the store's schema must still have no tables at all.
      const tables = await sandbox.withDb(async (db) =>
        sql<{ n: number | string }>`select count(*) as n from information_schema.tables where table_schema = current_schema()`.execute(db),
      );
      expect(Number(tables.rows[0]!.n)).toBe(0);
    } else {
      // SQLite: opening the database would have created the file.
      expect(existsSync(sandbox.store.sqliteFile!)).toBe(false);
    }
  });

  it('marks the required options of a command, and shows the default abilities as one types them', async () => {
    const result = await sandbox.cli('tokens:create', '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/--email <email>\s+email address of the user \(required\)\n/);
    expect(result.stdout).toMatch(/--name <name>\s+token name \(default: "CLI token"\)\n/); // optional: not marked
    expect(result.stdout).toMatch(/--abilities <list>\s+comma-separated abilities \(default: read,write,admin\)\n/);
    const plan = await sandbox.cli('users:plan', '--help');
    expect(plan.stdout).toMatch(/--plan <plan>\s+subscription plan \(choices: [^)]*\) \(required\)\n/);
  });
});

describe('scoreboard migrate', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ inProcess: true });
  });
  afterAll(() => sandbox.cleanup());

  it('migrates a fresh database and is idempotent', async () => {
    const first = await sandbox.cli('migrate');
    expect(first.code).toBe(0);
    // SQLite only: the database is a file, which migrate creates.
    if (!onPostgres) expect(existsSync(sandbox.store.sqliteFile!)).toBe(true);

    // Every table exists (and is empty), on either backend.
    const tables = ['users', 'teams', 'team_members', 'subscriptions', 'personal_access_tokens', 'projects', 'reports'] as const;
    const rows = await sandbox.withDb(async (db) => {
      const counts: Record<string, number> = {};
      for (const table of tables) {
        const row = await db.selectFrom(table).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
        counts[table] = Number(row.n);
      }
      return counts;
    });
    expect(rows).toEqual(Object.fromEntries(tables.map((table) => [table, 0])));

    // SQLite only: the CLI and a running server share the file, so it must be in WAL mode.
    if (!onPostgres) {
      const sqlite = sandbox.sqlite();
      try {
        expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        sqlite.close();
      }
    }

    const second = await sandbox.cli('migrate');
    expect(second.code).toBe(0);
    expect(second.stderr).toBe('');
  });

  // Two instances started together on a new database (or `migrate` beside a starting `serve`) both
  // migrate it: one must wait for the other, not apply the same migration a second time.
  it('migrates once when several processes migrate a fresh database at the same time', async () => {
    // Racy by nature: before the fix, eight processes collided in every run of four rounds.
    for (let round = 0; round < 4; round++) {
      const fresh = await createSandbox({ inProcess: true });
      try {
        const results = await Promise.all(Array.from({ length: 8 }, () => fresh.bin('migrate')));
        for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
        const applied = await fresh.withDb(async (db) =>
          sql<{ name: string }>`select name from kysely_migration order by name`.execute(db),
        );
        const names = applied.rows.map((row) => row.name);
        expect(new Set(names).size).toBe(names.length);
        const status = await okJson<{ migrations: Array<{ status: string }> }>(fresh, 'migrate:status', '--json');
        expect(status.migrations.every((migration) => migration.status === 'applied')).toBe(true);
      } finally {
        await fresh.cleanup();
      }
    }
  });
});

describe('scoreboard users:create and tokens:create (database effects)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ migrated: true, inProcess: true });
  });
  afterAll(() => sandbox.cleanup());

  it('creates the user, a personal team owned by them and current, a solo subscription and a full token', async () => {
    const created = await okJson(sandbox, 'users:create', '--email', 'ada@example.com', '--name', 'Ada');
    expect(created).toEqual({
      user: { id: expect.any(Number), email: 'ada@example.com' },
      team: { id: expect.any(Number) },
      token: expect.stringMatching(PERSONAL_ACCESS_TOKEN),
    });

    await sandbox.withDb(async (db) => {
      const user = await db.selectFrom('users').selectAll().where('id', '=', created.user.id).executeTakeFirst();
      expect(user).toMatchObject({ email: 'ada@example.com', name: 'Ada', current_team_id: created.team.id });
      expect(
        await db.selectFrom('team_members').select(['team_id', 'user_id', 'role']).where('user_id', '=', created.user.id).execute(),
      ).toEqual([{ team_id: created.team.id, user_id: created.user.id, role: 'owner' }]);
      expect(
        await db.selectFrom('subscriptions').select(['plan', 'status', 'ends_at']).where('user_id', '=', created.user.id).execute(),
      ).toEqual([{ plan: 'solo', status: 'active', ends_at: null }]);
      const tokens = await db
        .selectFrom('personal_access_tokens')
        .select(['token_hash', 'abilities', 'expires_at'])
        .where('user_id', '=', created.user.id)
        .execute();
      expect(tokens).toHaveLength(1);
      // D9: only the SHA-256 of the whole plain text is stored.
      expect(tokens[0]!.token_hash).toBe(sha256(created.token));
      expect(JSON.parse(tokens[0]!.abilities)).toEqual(['read', 'write', 'admin']);
      expect(tokens[0]!.expires_at).toBeNull();
    });
  });

  it('prints the token in the human-readable output too', async () => {
    const stdout = await ok(sandbox, 'users:create', '--email', 'plain@example.com');
    expect(stdout.match(/service_[A-Za-z0-9]{48}/g)).toHaveLength(1);
  });

  it('--plan none creates no subscription; --no-team creates no team and prints team null', async () => {
    const created = await okJson(
      sandbox,
      'users:create',
      '--email',
      'lone@example.com',
      '--plan',
      'none',
      '--no-team',
      '--abilities',
      'read',
    );
    expect(created.team).toBeNull();
    await sandbox.withDb(async (db) => {
      expect(await db.selectFrom('users').select('current_team_id').where('id', '=', created.user.id).executeTakeFirst()).toEqual({
        current_team_id: null,
      });
      expect(await db.selectFrom('team_members').selectAll().where('user_id', '=', created.user.id).execute()).toEqual([]);
      expect(
        await db.selectFrom('subscriptions').selectAll().where('user_id', '=', created.user.id).where('status', '=', 'active').execute(),
      ).toEqual([]);
      const token = await db
        .selectFrom('personal_access_tokens')
        .select('abilities')
        .where('user_id', '=', created.user.id)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(token.abilities)).toEqual(['read']);
    });
  });

  it('tokens:create --json prints {id, token} and stores the given name, abilities and a past expiry', async () => {
    await ok(sandbox, 'users:create', '--email', 'tok@example.com');
    const created = await okJson(
      sandbox,
      'tokens:create',
      '--email',
      'tok@example.com',
      '--name',
      'deploy',
      '--abilities',
      'read,write',
      '--expires-at',
      '2000-01-01',
    );
    expect(created).toEqual({ id: expect.any(Number), token: expect.stringMatching(PERSONAL_ACCESS_TOKEN) });
    const row = await sandbox.withDb((db) =>
      db
        .selectFrom('personal_access_tokens')
        .select(['name', 'abilities', 'expires_at', 'token_hash'])
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow(),
    );
    expect(row.name).toBe('deploy');
    expect(JSON.parse(row.abilities)).toEqual(['read', 'write']);
    expect(row.expires_at).toBe('2000-01-01T00:00:00.000Z'); // D9: date means 00:00:00 UTC
    expect(row.token_hash).toBe(sha256(created.token));
  });

  it('never writes a printed plain-text token into the database (D9)', async () => {
    const user = await okJson(sandbox, 'users:create', '--email', 'secret@example.com');
    const extra = await okJson(sandbox, 'tokens:create', '--email', 'secret@example.com');
    // Every row of every table (and on SQLite the bytes of the file and its WAL).
    const stored = await sandbox.store.everythingStored();
    for (const token of [user.token, extra.token]) {
      // The token rows are really in there: their hashes are, so a plain text would be too.
      expect(stored.includes(sha256(token)), `hash of ${token} stored`).toBe(true);
      expect(stored.includes(token), `${token} stored`).toBe(false);
      expect(stored.includes(token.slice('service_'.length, 'service_'.length + 40)), 'token body stored').toBe(false);
    }
  });
});

// Concurrent: none of these commands writes (the sandbox runs its commands one at a time all the same).
describe.concurrent('scoreboard errors: one line on stderr, non-zero exit, no change', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ migrated: true, inProcess: true });
    await ok(sandbox, 'users:create', '--email', 'owner@example.com', '--no-team');
    await ok(sandbox, 'users:create', '--email', 'other@example.com');
  });
  afterAll(() => sandbox.cleanup());

  /** How many rows the query returns (counted here: count(*) is a string on PostgreSQL). */
  const count = (rows: (db: Db) => Promise<unknown[]>): Promise<number> => sandbox.withDb(async (db) => (await rows(db)).length);

  it('rejects a duplicate email (case-insensitively) and keeps one user', async () => {
    expectOneLineFailure(await sandbox.cli('users:create', '--email', 'Owner@Example.com'), /already exists/i);
    const owners = await count((db) =>
      db.selectFrom('users').select('id').where(sql<string>`lower(email)`, '=', 'owner@example.com').execute(),
    );
    expect(owners).toBe(1);
  });

  it('rejects an unknown plan without creating the user', async () => {
    expectOneLineFailure(await sandbox.cli('users:create', '--email', 'gold@example.com', '--plan', 'gold'), /plan|gold/i);
    expect(await count((db) => db.selectFrom('users').select('id').where('email', '=', 'gold@example.com').execute())).toBe(0);
  });

  it('rejects an unknown ability without creating the user', async () => {
    expectOneLineFailure(await sandbox.cli('users:create', '--email', 'fly@example.com', '--abilities', 'read,fly'), /abilit/i);
    expect(await count((db) => db.selectFrom('users').select('id').where('email', '=', 'fly@example.com').execute())).toBe(0);
  });

  it('rejects an unknown flag', async () => {
    expectOneLineFailure(await sandbox.cli('users:create', '--email', 'flag@example.com', '--bogus'), /--bogus/);
    expect(await count((db) => db.selectFrom('users').select('id').where('email', '=', 'flag@example.com').execute())).toBe(0);
  });

  it('names an unknown option rather than a required one it hides (a typo of --email)', async () => {
    const result = await sandbox.cli('users:show', '--emial', 'owner@example.com');
    expectOneLineFailure(result, /^scoreboard: unknown option '--emial' \(Did you mean --email\?\)$/);
    expect(result.stderr).not.toMatch(/required/);
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
    const before = await count((db) => db.selectFrom('personal_access_tokens').select('id').execute());
    const results = await Promise.all([
      sandbox.cli('tokens:create', '--email', 'nobody@example.com'),
      sandbox.cli('users:plan', '--email', 'nobody@example.com', '--plan', 'business'),
      sandbox.cli('teams:create', '--owner', 'nobody@example.com', '--name', 'X'),
      sandbox.cli('teams:add-member', '--team', '1', '--email', 'nobody@example.com', '--role', 'member'),
      sandbox.cli('users:switch-team', '--email', 'nobody@example.com', '--team', '1'),
    ]);
    for (const result of results) expectOneLineFailure(result, /nobody@example\.com/);
    expect(await count((db) => db.selectFrom('personal_access_tokens').select('id').execute())).toBe(before);
    expect(await count((db) => db.selectFrom('teams').select('id').where('name', '=', 'X').execute())).toBe(0);
  });

  it('rejects an unknown role', async () => {
    expectOneLineFailure(
      await sandbox.cli('teams:add-member', '--team', '1', '--email', 'owner@example.com', '--role', 'king'),
      /role|king/i,
    );
    expect(await count((db) => db.selectFrom('team_members').select('user_id').where('team_id', '=', 1).execute())).toBe(1);
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
    const stillWithoutTeam = await count((db) =>
      db.selectFrom('users').select('id').where('email', '=', 'owner@example.com').where('current_team_id', 'is', null).execute(),
    );
    expect(stillWithoutTeam).toBe(1);
  });

  it('rejects adding a member to a team that does not exist', async () => {
    expectOneLineFailure(await sandbox.cli('teams:add-member', '--team', '999', '--email', 'owner@example.com', '--role', 'member'), /999/);
    expect(await count((db) => db.selectFrom('team_members').select('user_id').where('team_id', '=', 999).execute())).toBe(0);
  });

  it('rejects an unparseable --expires-at', async () => {
    expectOneLineFailure(await sandbox.cli('tokens:create', '--email', 'other@example.com', '--expires-at', 'next tuesday'), /expires/i);
  });

  it('rejects an unknown command', async () => {
    // The real command: one line on the process's stderr, and a non-zero exit status.
    expectOneLineFailure(await sandbox.bin('users:purge', '--email', 'owner@example.com'), /unknown command 'users:purge'/);
  });
});
