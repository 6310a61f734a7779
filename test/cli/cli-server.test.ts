import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.js';
import {
  api,
  BIN,
  createSandbox,
  ok,
  okJson,
  runNode,
  startServer,
  type RunningServer,
  type Sandbox,
  type CreatedUser,
} from './cli-process.js';
import { NOT_FOUND, NO_TEAM, SUBSCRIPTION_REQUIRED, TOKEN_LIMIT, UNAUTHENTICATED, missingAbility, sha256 } from '../helpers/contract.js';
import { onPostgres } from '../helpers/test-backend.js';
import { eventually } from '../helpers/eventually.js';

/**
 * `scoreboard serve` and the operator commands on one database (a SQLite file in WAL mode, or a
 * PostgreSQL schema): every effect of a CLI command (run in this process, cli-process.ts, but for
 * the concurrency test) is checked over HTTP against the real server process, which keeps running
 * meanwhile.
 */

const NEW_PROJECT = { name: 'Shop', framework_version: '11' };

describe('scoreboard serve with the CLI writing to the same database', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  let serverStopped = false;

  beforeAll(async () => {
    sandbox = await createSandbox({ inProcess: true });
    // A fresh database: `serve` must run the migrations itself before listening.
    server = await startServer(sandbox);
  });

  afterAll(async () => {
    if (!serverStopped) await server?.stop();
    await sandbox?.cleanup();
  });

  let sequence = 0;
  const createUser = (...flags: string[]): Promise<CreatedUser> => {
    sequence += 1;
    return okJson<CreatedUser>(sandbox, 'users:create', '--email', `user${sequence}@example.com`, ...flags);
  };

  it('migrates a fresh database before listening and logs its URL', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Kysely's own bookkeeping table, in the same database on either backend.
    const applied = await sandbox.withDb(
      async (db) => (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)).rows,
    );
    expect(applied.map((row) => row.name)).toEqual(Object.keys(migrations).sort());
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('users:create gives a token that lists and creates projects in the personal team', async () => {
    const created = await createUser('--name', 'Ada');

    const list = await api(server, 'GET', '/api/v1/projects', created.token);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    expect(list.headers.get('x-ratelimit-limit')).toBe('120'); // default plan solo (D8)

    const post = await api(server, 'POST', '/api/v1/projects', created.token, NEW_PROJECT);
    expect(post.status).toBe(201);
    expect(post.body.project).toMatchObject({ name: 'Shop', team_id: created.team!.id });

    const tokens = await api(server, 'GET', '/api/v1/tokens', created.token);
    expect(tokens.status).toBe(200);
    expect(tokens.body.data).toHaveLength(1);
    expect(tokens.body.data[0].abilities).toEqual(['read', 'write', 'admin']);
    expect(tokens.body.data[0].expires_at).toBeNull();
  });

  it('never stores the printed token in the database while the server runs (D9)', async () => {
    const created = await createUser();
    expect((await api(server, 'GET', '/api/v1/projects', created.token)).status).toBe(200);
    // SQLite only: the file is in WAL mode, so the write-ahead log is there beside it.
    if (!onPostgres) expect(existsSync(`${sandbox.store.sqliteFile!}-wal`)).toBe(true);
    // Every row of every table (and on SQLite the bytes of the file and its WAL).
    const stored = await sandbox.store.everythingStored();
    expect(stored.includes(sha256(created.token))).toBe(true); // the token row is really in there
    expect(stored.includes(created.token)).toBe(false);
    expect(stored.includes(created.token.slice(8, 48))).toBe(false);
    expect(server.output()).not.toContain(created.token.slice(8, 48));
  });

  it('users:plan takes effect on the running server: none -> 403 on projects but tokens still work; enterprise -> 1200/min', async () => {
    const created = await createUser();
    const email = created.user.email;

    await ok(sandbox, 'users:plan', '--email', email, '--plan', 'none');
    const denied = await api(server, 'GET', '/api/v1/projects', created.token);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual(SUBSCRIPTION_REQUIRED); // D3, D7
    const tokens = await api(server, 'GET', '/api/v1/tokens', created.token);
    expect(tokens.status).toBe(200); // D7: token endpoints need no subscription
    expect(tokens.headers.get('x-ratelimit-limit')).toBe('120'); // D8: no subscription -> multiplier 1

    await ok(sandbox, 'users:plan', '--email', email, '--plan', 'enterprise');
    const enterprise = await api(server, 'GET', '/api/v1/projects', created.token);
    expect(enterprise.status).toBe(200);
    expect(enterprise.headers.get('x-ratelimit-limit')).toBe('1200');

    await ok(sandbox, 'users:plan', '--email', email, '--plan', 'business');
    const business = await api(server, 'GET', '/api/v1/projects', created.token);
    expect(business.status).toBe(200);
    expect(business.headers.get('x-ratelimit-limit')).toBe('360');
  });

  it('users:create --plan none gives a token without project access', async () => {
    const created = await createUser('--plan', 'none');
    const denied = await api(server, 'GET', '/api/v1/projects', created.token);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual(SUBSCRIPTION_REQUIRED);
  });

  it('users:create --abilities read gives a token that can read but not write (D6)', async () => {
    const created = await createUser('--abilities', 'read');
    expect((await api(server, 'GET', '/api/v1/projects', created.token)).status).toBe(200);
    const post = await api(server, 'POST', '/api/v1/projects', created.token, NEW_PROJECT);
    expect(post.status).toBe(403);
    expect(post.body).toEqual(missingAbility('write'));
    const tokens = await api(server, 'GET', '/api/v1/tokens', created.token);
    expect(tokens.body.data[0].abilities).toEqual(['read']);
  });

  it('users:create --no-team prints team null and the user cannot create projects', async () => {
    const created = await createUser('--no-team');
    expect(created.team).toBeNull();
    const post = await api(server, 'POST', '/api/v1/projects', created.token, NEW_PROJECT);
    expect(post.status).toBe(403);
    expect(post.body).toEqual(NO_TEAM);
  });

  it('teams:create makes a new, empty current team; users:switch-team goes back', async () => {
    const owner = await createUser();
    const first = await api(server, 'POST', '/api/v1/projects', owner.token, { ...NEW_PROJECT, name: 'In personal team' });
    expect(first.status).toBe(201);

    const { team } = await okJson<{ team: { id: number } }>(sandbox, 'teams:create', '--owner', owner.user.email, '--name', 'Platform');
    expect(team).toEqual({ id: expect.any(Number) });
    expect(team.id).not.toBe(owner.team!.id);

    const empty = await api(server, 'GET', '/api/v1/projects', owner.token);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    expect(empty.body.meta.total).toBe(0);
    const second = await api(server, 'POST', '/api/v1/projects', owner.token, { ...NEW_PROJECT, name: 'In Platform' });
    expect(second.status).toBe(201);
    expect(second.body.project.team_id).toBe(team.id);

    await ok(sandbox, 'users:switch-team', '--email', owner.user.email, '--team', String(owner.team!.id));
    const back = await api(server, 'GET', '/api/v1/projects', owner.token);
    expect(back.body.data.map((p: { name: string }) => p.name)).toEqual(['In personal team']);
  });

  it('teams:add-member --role readonly + users:switch-team: the member sees the projects but may not update them (D15)', async () => {
    const owner = await createUser();
    const member = await createUser();
    const { project } = (await api(server, 'POST', '/api/v1/projects', owner.token, NEW_PROJECT)).body;
    const teamId = String(owner.team!.id);

    await ok(sandbox, 'teams:add-member', '--team', teamId, '--email', member.user.email, '--role', 'readonly');
    // Adding does not switch: the member still lists their own (empty) personal team.
    expect((await api(server, 'GET', '/api/v1/projects', member.token)).body.data).toEqual([]);

    await ok(sandbox, 'users:switch-team', '--email', member.user.email, '--team', teamId);
    const list = await api(server, 'GET', '/api/v1/projects', member.token);
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([project.id]);
    expect((await api(server, 'GET', `/api/v1/projects/${project.id}`, member.token)).status).toBe(200);

    const put = await api(server, 'PUT', `/api/v1/projects/${project.id}`, member.token, { name: 'Renamed', framework_version: '12' });
    expect(put.status).toBe(404);
    expect(put.body).toEqual(NOT_FOUND);

    // Adding again changes the role: a member may update.
    await ok(sandbox, 'teams:add-member', '--team', teamId, '--email', member.user.email, '--role', 'member');
    const allowed = await api(server, 'PUT', `/api/v1/projects/${project.id}`, member.token, { name: 'Renamed', framework_version: '12' });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data).toMatchObject({ name: 'Renamed', framework_version: '12' });
  });

  it('tokens:create accepts a past expiry (exit 0) but that token gets 401; a future one works', async () => {
    const created = await createUser();
    const email = created.user.email;

    const expired = await sandbox.cli('tokens:create', '--email', email, '--expires-at', '2000-01-01');
    expect(expired.code).toBe(0);
    const expiredToken = /service_[A-Za-z0-9]{48}/.exec(expired.stdout)?.[0];
    expect(expiredToken).toBeDefined();
    const rejected = await api(server, 'GET', '/api/v1/tokens', expiredToken!);
    expect(rejected.status).toBe(401);
    expect(rejected.body).toEqual(UNAUTHENTICATED);

    const future = await okJson<{ id: number; token: string }>(
      sandbox,
      'tokens:create',
      '--email',
      email,
      '--name',
      'ci',
      '--abilities',
      'read',
      '--expires-at',
      '2999-01-01T00:00:00Z',
    );
    expect(future).toEqual({ id: expect.any(Number), token: expect.stringMatching(/^service_/) });
    const list = await api(server, 'GET', '/api/v1/tokens', future.token);
    expect(list.status).toBe(200);
    expect(list.body.data.find((t: { id: number }) => t.id === future.id)).toMatchObject({
      name: 'ci',
      abilities: ['read'],
      expires_at: '2999-01-01T00:00:00.000Z',
    });
  });

  it('tokens made by the CLI count toward the limit of 10 (D9)', async () => {
    const created = await createUser();
    // Sequential on purpose: see the concurrency test below.
    for (let i = 0; i < 9; i += 1) await ok(sandbox, 'tokens:create', '--email', created.user.email);
    const post = await api(server, 'POST', '/api/v1/tokens', created.token, { name: 'eleventh', abilities: ['read'] });
    expect(post.status).toBe(403);
    expect(post.body).toEqual(TOKEN_LIMIT);
  });

  it('CLI writes and server writes running at the same time all succeed (WAL + busy timeout)', async () => {
    const writer = await createUser();
    const [cli, http] = await Promise.all([
      // Real processes: six writers at once, beside the server's.
      Promise.all(Array.from({ length: 6 }, (_, i) => sandbox.bin('users:create', '--email', `parallel${i}@example.com`))),
      Promise.all([
        ...Array.from({ length: 3 }, (_, i) => api(server, 'POST', '/api/v1/projects', writer.token, { ...NEW_PROJECT, name: `P${i}` })),
        ...Array.from({ length: 3 }, (_, i) => api(server, 'POST', '/api/v1/tokens', writer.token, { name: `T${i}`, abilities: ['read'] })),
      ]),
    ]);
    // Known failure mode: a deferred transaction that reads then writes gets SQLITE_BUSY at once
    // ("database is locked"), the busy timeout does not apply to that lock upgrade.
    expect(cli.map((r) => ({ code: r.code, stderr: r.stderr }))).toEqual(Array(6).fill({ code: 0, stderr: '' }));
    expect(http.map((r) => r.status)).toEqual(Array(6).fill(201));
  });

  it('stops cleanly on SIGTERM with exit code 0', async () => {
    serverStopped = true;
    const exit = await server.stop();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain('shutting down');
  });
});

describe('scoreboard serve on a port something else listens on', () => {
  it('says the port is in use and to set PORT, in one line, and exits 1', async () => {
    const sandbox = await createSandbox();
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const { port } = squatter.address() as AddressInfo;
    try {
      const result = await runNode([BIN, 'serve'], {
        cwd: sandbox.dir,
        env: { ...sandbox.env, HOST: '127.0.0.1', PORT: String(port), LOG_FORMAT: 'json' },
      });
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `scoreboard: port ${port} is in use (127.0.0.1:${port}): set PORT to a free port, or stop what listens there.`,
      );
    } finally {
      squatter.close();
      await sandbox.cleanup();
    }
  });
});

describe('scoreboard serve with a report retention', () => {
  let sandbox: Sandbox;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    sandbox = await createSandbox({ inProcess: true });
  });
  afterAll(async () => {
    await server?.stop();
    await sandbox?.cleanup();
  });

  it('REPORT_RETENTION_KEEP is applied by the serving process soon after it starts', async () => {
    server = await startServer(sandbox);
    const owner = await okJson<CreatedUser>(sandbox, 'users:create', '--email', 'retention@example.com', '--plan', 'business');
    const created = await api(server, 'POST', '/api/v1/projects', owner.token, NEW_PROJECT);
    expect(created.status).toBe(201);
    const projectId = created.body.project.id as string;
    const uploaded: string[] = [];
    for (let minutesAgo = 3; minutesAgo >= 1; minutesAgo--) {
      const analyzedAt = new Date(Date.now() - minutesAgo * 60_000).toISOString();
      const upload = await api(server, 'POST', '/api/reports', created.body.api_token, {
        analyzed_at: analyzedAt,
        results: [{ analyzer_id: 'csrf-protection', status: 'passed', message: 'ok', issues: [] }],
      });
      expect(upload.status, JSON.stringify(upload.body)).toBe(201);
      uploaded.push(upload.body.report.uuid);
    }
    await server.stop();

    server = await startServer(sandbox, { REPORT_RETENTION_KEEP: '2' });
    const listed = async () =>
      (await api(server!, 'GET', `/api/v1/projects/${projectId}/reports`, owner.token)).body.data.map((r: { uuid: string }) => r.uuid);
    // The first run is a second after the start.
    await eventually(async () => (await listed()).length <= 2);
    expect(await listed()).toEqual([uploaded[2], uploaded[1]]);
    expect(server.output()).toContain('deleted reports past their retention');
  });
});
