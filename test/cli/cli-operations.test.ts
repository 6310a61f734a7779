import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigrator } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { SqliteDatabase } from '../../src/db/sqlite-binding.js';
import {
  api,
  BIN,
  createSandbox,
  ok,
  okJson,
  ROOT,
  runNode,
  startServer,
  type RunningServer,
  type Sandbox,
  expectOneLineFailure,
} from './cli-process.js';
import { onPostgres } from '../helpers/test-backend.js';

/**
 * The operator command's version, migrate:status and backup, and the rule that only serve and
 * migrate may create a SQLite database (issue 14), run as real processes wherever a working folder
 * or a process of its own matters (relative paths, a backup beside a writing server), and in this
 * process (cli-process.ts) for the rest.
 */

const TIMESTAMP = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const MIGRATION_NAMES = Object.keys(migrations).sort();

describe('scoreboard --version', () => {
  it("prints package.json's version and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await runNode([BIN, '--version'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } });
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe.skipIf(onPostgres)('a command run where the SQLite file does not exist (issue 14)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox();
  });
  afterAll(() => sandbox?.cleanup());

  const EVERY_COMMAND_BUT_SERVE_AND_MIGRATE = [
    ['users:create', '--email', 'a@example.com'],
    ['tokens:create', '--email', 'a@example.com'],
    ['users:plan', '--email', 'a@example.com', '--plan', 'business'],
    ['teams:create', '--owner', 'a@example.com', '--name', 'T'],
    ['teams:add-member', '--team', '1', '--email', 'a@example.com', '--role', 'member'],
    ['users:switch-team', '--email', 'a@example.com', '--team', '1'],
    ['users:update', '--email', 'a@example.com', '--name', 'A'],
    ['users:delete', '--email', 'a@example.com', '--yes'],
    ['teams:remove-member', '--team', '1', '--email', 'a@example.com'],
    ['tokens:revoke', '--id', '1'],
    ['users:list'],
    ['users:show', '--email', 'a@example.com'],
    ['teams:list', '--json'],
    ['teams:show', '--team', '1'],
    ['tokens:list', '--email', 'a@example.com'],
    ['migrate:status'],
    ['backup', '--to', 'copy.db'],
    ['secrets:reencrypt'],
  ];

  it('says so, naming the resolved path, and creates neither the file nor its folder', async () => {
    // A relative DATABASE_URL, run from another folder than the one holding the database.
    const elsewhere = join(sandbox.dir, 'elsewhere');
    mkdirSync(elsewhere);
    const env = { ...sandbox.env, DATABASE_URL: 'sqlite:./data/scoreboard.db' };
    const expected = join(elsewhere, 'data', 'scoreboard.db');
    for (const args of EVERY_COMMAND_BUT_SERVE_AND_MIGRATE) {
      const result = await runNode([BIN, ...args], { cwd: elsewhere, env });
      expectOneLineFailure(
        result,
        new RegExp(`No SQLite database at ${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: run \`scoreboard migrate\``),
      );
      expect(result.stderr).toMatch(/DATABASE_URL/);
    }
    expect(existsSync(join(elsewhere, 'data'))).toBe(false);
    expect(existsSync(join(elsewhere, 'copy.db'))).toBe(false);

    // migrate creates it; then the same commands find it.
    const migrate = await runNode([BIN, 'migrate'], { cwd: elsewhere, env });
    expect(migrate.code).toBe(0);
    expect(existsSync(expected)).toBe(true);
    expect((await runNode([BIN, 'users:create', '--email', 'a@example.com'], { cwd: elsewhere, env })).code).toBe(0);
  });

  it('sqlite::memory: is not a file: nothing is refused for a missing file', async () => {
    const env = { ...sandbox.env, DATABASE_URL: 'sqlite::memory:' };
    const run = (...args: string[]) => runNode([BIN, ...args], { cwd: sandbox.dir, env });
    expect((await run('users:create', '--email', 'memory@example.com')).code).toBe(0); // migrates its own empty database
    expectOneLineFailure(await run('users:list'), /pending migrations/);
    expectOneLineFailure(await run('backup', '--to', 'memory.db'), /sqlite::memory:.*nothing to back up/);
    const status = JSON.parse((await run('migrate:status', '--json')).stdout) as { migrations: Array<{ status: string }> };
    expect(status.migrations.map((m) => m.status)).toEqual(MIGRATION_NAMES.map(() => 'pending'));
    expect(existsSync(join(sandbox.dir, 'memory.db'))).toBe(false);
  });
});

describe('scoreboard migrate:status', () => {
  let sandbox: Sandbox;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    sandbox = await createSandbox({ inProcess: true });
  });
  afterAll(async () => {
    await server?.stop();
    await sandbox?.cleanup();
  });

  it('lists each migration as applied (with when) or pending; the back-fill waits for the migrations', async () => {
    // Half-way, by this build's own migrator (on SQLite this creates the file).
    await sandbox.withDb(async (db) => {
      const { error } = await (await createMigrator(db)).migrateTo('0003-team-project-count');
      expect(error).toBeUndefined();
    });
    const half = await okJson(sandbox, 'migrate:status');
    expect(half).toEqual({
      migrations: MIGRATION_NAMES.map((name, i) =>
        i < 3 ? { name, status: 'applied', applied_at: TIMESTAMP } : { name, status: 'pending', applied_at: null },
      ),
      backfill: { pending_reports: null },
    });
    const text = await ok(sandbox, 'migrate:status');
    expect(text).toMatch(/^MIGRATION\s+STATUS\s+APPLIED AT$/m);
    expect(text).toMatch(/^0001-initial\s+applied\s+\d{4}-\d{2}-\d{2}T/m);
    expect(text).toMatch(/^0007-teams-and-audit\s+pending\s+-$/m);
    expect(text).toMatch(/^Back-fill: runs after the pending migrations/m);

    await ok(sandbox, 'migrate');
    const done = await okJson(sandbox, 'migrate:status');
    expect(done.migrations.map((m: { status: string }) => m.status)).toEqual(MIGRATION_NAMES.map(() => 'applied'));
    expect(done.backfill).toEqual({ pending_reports: 0 });
    expect(await ok(sandbox, 'migrate:status')).toMatch(/^Back-fill: nothing left\.$/m);
  });

  it('counts the reports the back-fill has left (fingerprinted_at null) until migrate does them', async () => {
    server = await startServer(sandbox);
    const { token } = await okJson<{ token: string }>(sandbox, 'users:create', '--email', 'status@example.com');
    const project = await api(server, 'POST', '/api/v1/projects', token, { name: 'Status', framework_version: '11' });
    expect(project.status).toBe(201);
    for (let i = 0; i < 3; i += 1) expect((await upload(server, project.body.api_token, i)).status).toBe(201);
    // (teams:list counts the project the server created: the counter D16 keeps with each insert.)
    const teams = (await okJson(sandbox, 'teams:list')).data;
    expect(teams.map((t: { project_count: number; owner_email: string }) => [t.owner_email, t.project_count])).toEqual([
      ['status@example.com', 1],
    ]);
    // As a report stored before migration 0004 would be.
    await sandbox.withDb((db) =>
      db
        .updateTable('reports')
        .set({ fingerprinted_at: null })
        .where('id', 'in', db.selectFrom('reports').select('id').orderBy('id').limit(2))
        .execute(),
    );
    expect((await okJson(sandbox, 'migrate:status')).backfill).toEqual({ pending_reports: 2 });
    expect(await ok(sandbox, 'migrate:status')).toMatch(/^Back-fill: 2 report\(s\) without fingerprints; `scoreboard migrate`/m);
    await ok(sandbox, 'migrate');
    expect((await okJson(sandbox, 'migrate:status')).backfill).toEqual({ pending_reports: 0 });
  });
});

describe('scoreboard backup on PostgreSQL', () => {
  it('refuses in one line that points to pg_dump, with the URL but never its password', async () => {
    const secretUrl = 'postgres://operator:s3cret-pw@db.example.com:5432/scoreboard?sslmode=require&password=other-secret';
    const result = await runNode([BIN, 'backup', '--to', 'x.dump'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: secretUrl },
    });
    expectOneLineFailure(
      result,
      /pg_dump --format=custom --file=scoreboard\.dump 'postgres:\/\/operator@db\.example\.com:5432\/scoreboard\?sslmode=require'/,
    );
    expect(result.stderr).toMatch(/pg_restore/);
    expect(result.stderr).not.toMatch(/s3cret|other-secret/);
    expect(existsSync(join(ROOT, 'x.dump'))).toBe(false);
  });

  it.skipIf(!onPostgres)("does so for the store's own DATABASE_URL", async () => {
    const sandbox = await createSandbox({ migrated: true });
    try {
      const result = await sandbox.cli('backup', '--to', 'x.dump', '--json');
      expectOneLineFailure(result, /copies SQLite databases only; on PostgreSQL use pg_dump.*postgres/);
      expect(existsSync(join(sandbox.dir, 'x.dump'))).toBe(false);
    } finally {
      await sandbox.cleanup();
    }
  });
});

describe.skipIf(onPostgres)('scoreboard backup (SQLite)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ migrated: true, inProcess: true });
    await ok(sandbox, 'users:create', '--email', 'backup@example.com', '--name', 'Backup');
  });
  afterAll(() => sandbox?.cleanup());

  it('copies the database to a new file (a path relative to the working folder) and prints the path and size', async () => {
    // The real command: a relative path is resolved from the working folder of its process.
    const relative = await sandbox.bin('backup', '--to', 'copy.db');
    expect(relative).toMatchObject({ code: 0, stderr: '' });
    const text = relative.stdout;
    const path = join(sandbox.dir, 'copy.db');
    const bytes = statSync(path).size;
    expect(text).toBe(`Backed up ${sandbox.store.sqliteFile} to ${path} (${bytes} bytes).\n`);
    expect(bytes).toBeGreaterThan(0);
    expect(readUsers(path)).toEqual(['backup@example.com']);

    const json = await okJson(sandbox, 'backup', '--to', join(sandbox.dir, 'copy2.db'));
    expect(json).toEqual({ path: join(sandbox.dir, 'copy2.db'), bytes: statSync(join(sandbox.dir, 'copy2.db')).size });
  });

  it('never overwrites an existing file, and says why in one line', async () => {
    const target = join(sandbox.dir, 'precious.txt');
    writeFileSync(target, 'keep me');
    expectOneLineFailure(await sandbox.cli('backup', '--to', target), /precious\.txt already exists/);
    expectOneLineFailure(await sandbox.cli('backup', '--to', target, '--json'), /already exists/);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('fails in one line when the target folder does not exist', async () => {
    expectOneLineFailure(await sandbox.cli('backup', '--to', join(sandbox.dir, 'no', 'such', 'copy.db')), /folder does not exist/);
  });
});

describe.skipIf(onPostgres)('scoreboard backup while scoreboard serve is writing, then a restore', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  let token: string;
  const backupFile = () => join(sandbox.dir, 'online.db');
  /** Every write the server acknowledged (201), with when its answer arrived. */
  const acknowledged: Array<{ kind: 'project' | 'report'; id: string; at: number }> = [];
  let backupStartedAt = 0;

  beforeAll(async () => {
    sandbox = await createSandbox();
    server = await startServer(sandbox, { UPLOAD_RATE_LIMIT: '100000', RATE_LIMIT_USER_BASE: '100000' });
    ({ token } = await okJson<{ token: string }>(sandbox, 'users:create', '--email', 'busy@example.com', '--plan', 'enterprise'));
  });
  afterAll(async () => {
    await server?.stop();
    await sandbox?.cleanup();
  });

  it('is a valid SQLite database holding every write acknowledged before it started, and nothing never acknowledged', async () => {
    const first = await api(server, 'POST', '/api/v1/projects', token, { name: 'Busy', framework_version: '11' });
    expect(first.status).toBe(201);
    acknowledged.push({ kind: 'project', id: first.body.project.id, at: performance.now() });
    const apiToken: string = first.body.api_token;

    // Two writers, one uploading reports, one creating projects, until told to stop. Paced so the
    // write-ahead log stays below SQLite's automatic checkpoint (1,000 pages) until the backup is
    // done: the acknowledged writes are then in the -wal file only, which a plain copy of the
    // database file would miss.
    let stopping = false;
    let sequence = 0;
    const failures: string[] = [];
    const writer = async (kind: 'project' | 'report') => {
      while (!stopping) {
        sequence += 1;
        if (kind === 'report') {
          const answer = await upload(server, apiToken, sequence);
          if (answer.status === 201) acknowledged.push({ kind, id: answer.body.report.uuid, at: performance.now() });
          else failures.push(`upload ${answer.status}`);
        } else {
          const answer = await api(server, 'POST', '/api/v1/projects', token, { name: `P${sequence}`, framework_version: '11' });
          if (answer.status === 201) acknowledged.push({ kind, id: answer.body.project.id, at: performance.now() });
          else failures.push(`project ${answer.status}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    };
    const writers = [writer('report'), writer('project')];
    const waitForAcks = async (count: number) => {
      while (acknowledged.length < count) await new Promise((resolve) => setTimeout(resolve, 20));
    };

    await waitForAcks(20);
    backupStartedAt = performance.now();
    const before = acknowledged.filter((ack) => ack.at <= backupStartedAt);
    const result = await sandbox.cli('backup', '--to', backupFile(), '--json');
    const backupEndedAt = performance.now();
    // More writes after the backup, which it must not hold and the restore must undo.
    await waitForAcks(acknowledged.length + 10);
    stopping = true;
    await Promise.all(writers);

    expect(failures).toEqual([]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ path: backupFile(), bytes: statSync(backupFile()).size });
    // The server did go on writing while the backup process ran.
    expect(acknowledged.some((ack) => ack.at > backupStartedAt && ack.at < backupEndedAt)).toBe(true);

    const copy = new SqliteDatabase(backupFile(), { fileMustExist: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(copy.pragma('foreign_key_check')).toEqual([]);
      const projects = new Set((copy.prepare('select id from projects').all() as Array<{ id: string }>).map((row) => row.id));
      const reports = new Set((copy.prepare('select uuid from reports').all() as Array<{ uuid: string }>).map((row) => row.uuid));
      const ids = (kind: 'project' | 'report', acks: typeof acknowledged) => acks.filter((a) => a.kind === kind).map((a) => a.id);

      // Everything acknowledged before the backup started is in it...
      for (const id of ids('project', before)) expect(projects.has(id)).toBe(true);
      for (const uuid of ids('report', before)) expect(reports.has(uuid)).toBe(true);
      // ...and nothing the server never acknowledged (every write in flight has been answered by now).
      const allProjects = new Set(ids('project', acknowledged));
      const allReports = new Set(ids('report', acknowledged));
      for (const id of projects) expect(allProjects.has(id)).toBe(true);
      for (const uuid of reports) expect(allReports.has(uuid)).toBe(true);
      // Not everything: the writes after the backup are missing from it.
      expect(projects.size + reports.size).toBeLessThan(allProjects.size + allReports.size);

      // One instant's state: the counters and pointers written with each row agree with the rows.
      const team = copy.prepare('select projects_count, (select count(*) from projects) as n from teams').get() as {
        projects_count: number;
        n: number;
      };
      expect(team.projects_count).toBe(team.n);
      const latest = copy
        .prepare(
          `select p.latest_report_id as latest, (select r.id from reports r where r.project_id = p.id order by r.analyzed_at desc, r.id desc limit 1) as newest
           from projects p where p.id = ?`,
        )
        .get(first.body.project.id) as { latest: number | null; newest: number | null };
      expect(latest.latest).toBe(latest.newest);
    } finally {
      copy.close();
    }

    // The backup is a database the operator command reads as it reads the live one.
    const status = await runNode([BIN, 'migrate:status', '--json'], {
      cwd: sandbox.dir,
      env: { ...sandbox.env, DATABASE_URL: `sqlite:${backupFile()}` },
    });
    expect(JSON.parse(status.stdout).migrations.map((m: { status: string }) => m.status)).toEqual(MIGRATION_NAMES.map(() => 'applied'));
  });

  it('restores as the README says: stop, copy over the file, remove -wal and -shm, start', async () => {
    const liveFile = sandbox.store.sqliteFile!;
    const inBackup = (() => {
      const copy = new SqliteDatabase(backupFile(), { fileMustExist: true });
      try {
        return (copy.prepare('select id from projects').all() as Array<{ id: string }>).map((row) => row.id).sort();
      } finally {
        copy.close();
      }
    })();
    const lost = acknowledged.filter((ack) => ack.kind === 'project' && !inBackup.includes(ack.id));
    expect(lost.length).toBeGreaterThan(0);

    expect(await server.stop()).toEqual({ code: 0, signal: null });
    copyFileSync(backupFile(), liveFile);
    rmSync(`${liveFile}-wal`, { force: true });
    rmSync(`${liveFile}-shm`, { force: true });
    server = await startServer(sandbox);

    const listed: string[] = [];
    for (let page = 1; ; page += 1) {
      const answer = await api(server, 'GET', `/api/v1/projects?page=${page}`, token);
      expect(answer.status).toBe(200);
      listed.push(...answer.body.data.map((project: { id: string }) => project.id));
      if (page >= answer.body.meta.last_page) break;
    }
    expect(listed.sort()).toEqual(inBackup);
    expect((await api(server, 'GET', `/api/v1/projects/${lost[0]!.id}`, token)).status).toBe(404);
  });
});

/** A client-package upload with one issue, different each time. */
function upload(server: RunningServer, apiToken: string, n: number): Promise<{ status: number; body: any }> {
  return fetch(`${server.url}/api/reports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      analyzed_at: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
      metadata: { git_branch: 'main' },
      results: [
        {
          analyzer_id: 'sql-injection',
          status: 'failed',
          message: '1 issue',
          issues: [{ message: `Raw query ${n}`, severity: 'high', recommendation: 'Bind.', location: { file: `app/F${n}.php`, line: n } }],
        },
      ],
    }),
  }).then(async (response) => ({ status: response.status, body: await response.json() }));
}

function readUsers(file: string): string[] {
  const db = new SqliteDatabase(file, { fileMustExist: true });
  try {
    return (db.prepare('select email from users order by id').all() as Array<{ email: string }>).map((row) => row.email);
  } finally {
    db.close();
  }
}
