import { AsyncLocalStorage } from 'node:async_hooks';
import { join } from 'node:path';
import { loadConfig, type Config } from '../config.js';

/**
 * What a run of the `scoreboard` command reads and writes outside its database: its environment,
 * the folder its `.env` is read from, and its three standard streams. The bin runs it on the
 * process's own (`processIo`); the test suite runs most commands in its own process on streams of
 * its own (test/cli/cli-process.ts), which saves a Node start per command, and keeps real child
 * processes for what only a process shows (exit status, signals, `serve`).
 *
 * Held in an AsyncLocalStorage rather than passed down every command: the commands are Commander
 * actions, which receive their options only, and several runs may be under way in one process.
 */
export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where `.env` is read from. */
  readonly cwd: string;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
}

export interface CliOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export function processIo(): CliIo {
  return { env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

const current = new AsyncLocalStorage<CliIo>();

/** Runs `work` with `io` as the command's streams and environment. */
export function runWithIo<T>(io: CliIo, work: () => Promise<T>): Promise<T> {
  return current.run(io, work);
}

/** The streams and environment of the command being run; the process's own outside a run. */
export function cliIo(): CliIo {
  return current.getStore() ?? processIo();
}

/** The configuration from the command's environment and the `.env` of its folder (D21). */
export function loadCliConfig(): Config {
  const io = cliIo();
  return loadConfig(io.env, { dotenv: { path: join(io.cwd, '.env') } });
}
