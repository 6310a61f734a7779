import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, createSandbox, runNode, type Sandbox } from './cli-process.js';

/** D21: configuration comes from the environment and from a `.env` file in the working directory. */
describe('configuration from .env (D21)', () => {
  let sandbox: Sandbox;
  // SQLite only (vitest.config.ts excludes this file from the postgres project): it checks files.
  let databaseFile: string;
  beforeEach(async () => {
    sandbox = await createSandbox();
    databaseFile = sandbox.store.sqliteFile!;
  });
  afterEach(() => sandbox.cleanup());

  const scoreboard = (env: Record<string, string>, ...args: string[]) =>
    runNode([BIN, ...args], { cwd: sandbox.dir, env: { PATH: process.env.PATH ?? '', ...env } });

  it('reads DATABASE_URL from .env in the working directory', async () => {
    writeFileSync(join(sandbox.dir, '.env'), 'DATABASE_URL=sqlite:./from-dotenv.db\n');
    // Only serve and migrate create the database (issue 14); users:create then finds it.
    expect((await scoreboard({}, 'migrate')).code).toBe(0);
    expect(existsSync(join(sandbox.dir, 'from-dotenv.db'))).toBe(true);
    const result = await scoreboard({}, 'users:create', '--email', 'dotenv@example.com', '--json');
    expect(result.code).toBe(0);
  });

  it('lets the process environment override .env', async () => {
    writeFileSync(join(sandbox.dir, '.env'), 'DATABASE_URL=sqlite:./from-dotenv.db\n');
    const result = await scoreboard({ DATABASE_URL: `sqlite:${databaseFile}` }, 'migrate');
    expect(result.code).toBe(0);
    expect(existsSync(databaseFile)).toBe(true);
    expect(existsSync(join(sandbox.dir, 'from-dotenv.db'))).toBe(false);
  });

  it('stops start-up naming the variable when .env holds a bad value', async () => {
    writeFileSync(join(sandbox.dir, '.env'), `DATABASE_URL=sqlite:${databaseFile}\nPORT=not-a-port\n`);
    const result = await scoreboard({}, 'serve');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/PORT/);
    expect(result.stdout).not.toMatch(/listening/i);
  });
});
