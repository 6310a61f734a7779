import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { Db } from '../../src/db/database.js';
import { SqliteDatabase } from '../../src/db/sqlite-binding.js';
import { createTestStore, type TestStore } from '../helpers/test-backend.js';

/**
 * Helpers that run the `scoreboard` command against the test backend's store (a SQLite file in a
 * temp dir, or a PostgreSQL schema and a Redis prefix), in either of two ways:
 * - as the real command (bin/scoreboard.js -> dist/) in a child process, whose cwd is that temp dir,
 *   so no `.env` of the checkout is read, with a minimal environment, so nothing of the test
 *   runner's environment leaks in;
 * - in this process (`inProcess`), through the entry the bin calls (runCli) with the same
 *   environment, the temp dir as the folder of `.env`, and streams of its own: the same commands
 *   and output without a Node start, imports and a connection per command (a second or more each,
 *   most of these files' time). What only a process shows (its exit status, signals, `serve`,
 *   several processes at once) stays on the real command: `sandbox.bin`.
 */
export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = join(ROOT, 'bin', 'scoreboard.js');
/** How `npm start`, the container and the bin's shebang start the service (README, "Large reports"). */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];

// Tells a hung process from a slow one (a start takes 1 s quiet, 10 s and more on a loaded machine);
// under the tests' own timeout (vitest.config.ts), so the process's output is what the failure shows.
const RUN_TIMEOUT_MS = 120_000;

export interface Sandbox {
  dir: string;
  store: TestStore;
  env: Record<string, string>;
  /** Runs `scoreboard <args>` (in this process with `inProcess`) and resolves when it exits. */
  cli(...args: string[]): Promise<CliResult>;
  /** Runs `scoreboard <args>` with `input` piped to its standard input. */
  cliWithInput(input: string, ...args: string[]): Promise<CliResult>;
  /** Runs the real `scoreboard <args>` in a child process, whatever `inProcess` says. */
  bin(...args: string[]): Promise<CliResult>;
  /** Runs `work` on a new connection to the database the CLI and the server use. */
  withDb<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /** Opens the SQLite file directly, on the sqlite backend only (file-level checks such as WAL mode). */
  sqlite(): SqliteDatabase;
  cleanup(): Promise<void>;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * A fresh store, not migrated: on SQLite not even created, which only `serve` and `migrate` may do
 * (issue 14). `migrated: true` runs `scoreboard migrate` first, for tests whose first command is
 * another one (users:create...); tests that start a server first need not, `serve` migrates.
 * `inProcess: true` runs `sandbox.cli` in this process (see above).
 */
export async function createSandbox(options: { migrated?: boolean; inProcess?: boolean } = {}): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'scoreboard-cli-'));
  const store = await createTestStore(dir);
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', DATABASE_POOL_MAX: '4', ...store.env };
  const sandbox = sandboxOn(dir, store, env, options.inProcess ?? false);
  if (options.migrated) {
    await ok(sandbox, 'migrate').catch(async (error: unknown) => {
      await sandbox.cleanup();
      throw error;
    });
  }
  return sandbox;
}

function sandboxOn(dir: string, store: TestStore, env: Record<string, string>, inProcess: boolean): Sandbox {
  const inThisProcess = serially();
  const run = (args: string[], input?: string): Promise<CliResult> =>
    inProcess ? inThisProcess(() => runInProcess(args, { cwd: dir, env, input })) : runNode([BIN, ...args], { cwd: dir, env, input });
  return {
    dir,
    store,
    env,
    cli: (...args) => run(args),
    cliWithInput: (input, ...args) => run(args, input),
    bin: (...args) => runNode([BIN, ...args], { cwd: dir, env }),
    async withDb(work) {
      const db = store.open();
      try {
        return await work(db);
      } finally {
        await db.destroy();
      }
    },
    sqlite: () => {
      if (store.sqliteFile === null) throw new Error('sandbox.sqlite() is for the sqlite backend only');
      const db = new SqliteDatabase(store.sqliteFile);
      db.pragma('busy_timeout = 5000');
      return db;
    },
    async cleanup() {
      await store.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function runNode(args: string[], options: { cwd: string; env: Record<string, string>; input?: string }): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const stdin = options.input === undefined ? 'ignore' : 'pipe';
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: [stdin, 'pipe', 'pipe'] });
    if (options.input !== undefined) child.stdin!.end(options.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: node ${args.join(' ')}\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, RUN_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

/**
 * `scoreboard <args>` in this process (runCli, the bin's entry), on the streams of this run alone.
 * Standard input is `input`, or empty like the child's /dev/null.
 */
async function runInProcess(args: string[], options: { cwd: string; env: Record<string, string>; input?: string }): Promise<CliResult> {
  // `serve` would listen in the test process and never exit: startServer runs the real one.
  if (args[0] === 'serve') throw new Error('serve runs as a process: use startServer');
  const stdin = new PassThrough();
  stdin.end(options.input ?? '');
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: options.env,
    cwd: options.cwd,
    stdin,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, signal: null, stdout, stderr };
}

/**
 * One run at a time per sandbox: on SQLite, two runs in one thread could wait on each other's lock
 * (better-sqlite3 waits synchronously, blocking the run that holds it). Tests of commands run side
 * by side use real processes (`bin`).
 */
function serially(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>) => {
    const result = tail.then(work);
    tail = result.catch(() => undefined);
    return result;
  };
}

/** Runs a CLI command that must succeed and returns its stdout. */
export async function ok(sandbox: Sandbox, ...args: string[]): Promise<string> {
  const result = await sandbox.cli(...args);
  if (result.code !== 0) {
    throw new Error(`scoreboard ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  }
  return result.stdout;
}

/** Runs a CLI command that must succeed with `input` on its standard input (a password, never an argument). */
export async function okWithInput(sandbox: Sandbox, input: string, ...args: string[]): Promise<string> {
  const result = await sandbox.cliWithInput(input, ...args);
  if (result.code !== 0) throw new Error(`scoreboard ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

/** Runs a `--json` CLI command that must succeed and parses its single line of output. */
export async function okJson<T = any>(sandbox: Sandbox, ...args: string[]): Promise<T> {
  return JSON.parse(await ok(sandbox, ...args, '--json')) as T;
}

export interface RunningServer {
  /** e.g. `http://127.0.0.1:41234` */
  url: string;
  /** Everything the server printed on stdout so far. */
  output(): string;
  /** Sends SIGTERM and resolves with the exit code and signal. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `scoreboard serve` on a free port and waits for its "listening" log line. */
export function startServer(sandbox: Sandbox, extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  const child: ChildProcess = spawn(process.execPath, [...SERVICE_NODE_FLAGS, BIN, 'serve'], {
    cwd: sandbox.dir,
    env: { ...sandbox.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.on('exit', (code, signal) => resolveExit({ code, signal })),
  );

  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, RUN_TIMEOUT_MS);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`server exited early with ${code}\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /Scoreboard listening on (http:\/\/[^\s"]+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      resolvePromise({
        url: match[1]!,
        output: () => stdout,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    });
  });
}

/** `fetch` with a bearer token and an optional JSON body. */
export async function api(
  server: RunningServer,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** What `users:create --json` prints: the user, the personal team (null without one) and the first token. */
export interface CreatedUser {
  user: { id: number; email: string };
  team: { id: number } | null;
  token: string;
}

/** D20: a failure prints ONE line to stderr, starting `scoreboard: `, nothing to stdout, and exits 1. */
export function expectOneLineFailure(result: CliResult, mentions: RegExp): void {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^scoreboard: /);
  expect(lines[0]).toMatch(mentions);
}
