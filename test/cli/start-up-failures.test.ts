import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, expectOneLineFailure, ROOT, runNode, SERVICE_NODE_FLAGS } from './cli-process.js';

/**
 * `scoreboard serve` through the real binary, with the configurations a newcomer gets wrong: each
 * refusal is one line that names the variable, says what was expected and how to fix it, and
 * exits 1 without listening (were a bad value accepted, serve would listen until killed).
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'scoreboard-start-up-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function serve(env: Record<string, string>) {
  return runNode([...SERVICE_NODE_FLAGS, BIN, 'serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'ok.db')}`, ...env },
  });
}

/** A port of 127.0.0.1 on which nothing listens (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('scoreboard serve names the variable and the fix when it cannot start', () => {
  it('an unreachable PostgreSQL: its host and port, never the password', async () => {
    const port = await closedPort();
    const result = await serve({ DATABASE_URL: `postgres://scoreboard:s3cret-pw@127.0.0.1:${port}/scoreboard` });
    expectOneLineFailure(
      result,
      new RegExp(`Cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port} \\(DATABASE_URL\\): the connection was refused`),
    );
    expect(result.stderr).not.toContain('s3cret-pw');
    expect(result.stderr).not.toContain('unexpected error');
  });

  it('a PostgreSQL host name that does not resolve', async () => {
    const result = await serve({ DATABASE_URL: 'postgres://u@no-such-host.invalid:5432/db' });
    expectOneLineFailure(
      result,
      /Cannot reach PostgreSQL at no-such-host\.invalid:5432 \(DATABASE_URL\): the host name no-such-host\.invalid does not resolve/,
    );
  });

  it('a database PostgreSQL does not have', async () => {
    const result = await serve({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/scoreboard_no_such_database' });
    // Without a PostgreSQL on this machine, the refusal above is what a newcomer sees instead.
    expectOneLineFailure(
      result,
      /has no database scoreboard_no_such_database \(DATABASE_URL\): create it|Cannot reach PostgreSQL at 127\.0\.0\.1:5432/,
    );
  });

  it('a SQLite path without its scheme: the URL it meant', async () => {
    const result = await serve({ DATABASE_URL: './data/scoreboard.db' });
    expectOneLineFailure(
      result,
      /env\/DATABASE_URL must be sqlite:<file>, sqlite::memory: or postgres:\/\/.*did you mean sqlite:\.\/data\/scoreboard\.db\?/,
    );
    expect(result.stderr).not.toContain('^(');
  });

  it('a SQLite file that cannot be created', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const result = await serve({ DATABASE_URL: `sqlite:${join(file, 'scoreboard.db')}` });
    expectOneLineFailure(
      result,
      /Cannot create the SQLite database .*a-file\/scoreboard\.db: a part of its path is a file, not a folder\. Check DATABASE_URL\./,
    );
  });

  it('a HOST with a port: HOST and PORT apart', async () => {
    const result = await serve({ HOST: 'localhost:3000' });
    expectOneLineFailure(result, /env\/HOST must be a host name or an address without a port: set HOST=localhost and PORT=3000/);
  });

  it('a HOST that does not resolve', async () => {
    const result = await serve({ HOST: 'no-such-host.invalid' });
    expectOneLineFailure(result, /HOST no-such-host\.invalid does not resolve to an address: set HOST/);
  });

  it.each(['yes', 'on', 'maybe'])('TRUST_PROXY=%s: the values it takes', async (value) => {
    const result = await serve({ TRUST_PROXY: value });
    expectOneLineFailure(
      result,
      /env\/TRUST_PROXY must be true, false, a hop count \(1, 2, …\) or a comma-separated list of proxy addresses or CIDR ranges/,
    );
  });
});
