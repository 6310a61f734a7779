import { spawn } from 'node:child_process';
import { BIN, SERVICE_NODE_FLAGS, type Sandbox } from '../cli/cli-process.js';

/**
 * A real `scoreboard serve` (bin/scoreboard.js -> dist/: run `npm run build` first) as a child
 * process on a free port of 127.0.0.1, for fault tests that must see the process itself: whether it
 * survives a fault, and what a restart finds after `kill -9`. Unlike cli-process.ts's
 * `startServer`, it can be killed with any signal, it reports whether the process is still alive,
 * and it is ready only once `/healthz` answers.
 */
export interface ServerProcess {
  /** e.g. `http://127.0.0.1:41234` */
  url: string;
  pid: number;
  /** Everything the process printed on stdout and stderr so far. */
  output(): string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Resolves when the process has exited, however it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (SIGKILL unless told) and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** A new process with the same sandbox and environment (on a new port), after killing this one if it still runs. */
  restart(): Promise<ServerProcess>;
}

// Tells a hung process from a slow one (a start takes 1 s quiet, 10 s and more on a loaded machine);
// under the tests' own timeout (vitest.config.ts), so the process's output is what the failure shows.
const START_TIMEOUT_MS = 120_000;

export async function startServerProcess(sandbox: Sandbox, extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, BIN, 'serve'], {
    cwd: sandbox.dir,
    env: { ...sandbox.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let running = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      running = false;
      resolve({ code, signal });
    }),
  );

  const deadline = Date.now() + START_TIMEOUT_MS;
  const fail = (why: string) => {
    child.kill('SIGKILL');
    return new Error(`scoreboard serve ${why}\n${output}`);
  };
  let url: string | undefined;
  while (url === undefined) {
    if (!running) throw fail('exited during start-up');
    if (Date.now() > deadline) throw fail('did not start');
    url = /Scoreboard listening on (http:\/\/[^\s"]+)/.exec(output)?.[1];
    if (url === undefined) await pause(20);
  }
  while (!(await answers(`${url}/healthz`))) {
    if (!running) throw fail('exited before /healthz answered');
    if (Date.now() > deadline) throw fail('never answered /healthz');
    await pause(20);
  }

  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (running) child.kill(signal);
    return exited;
  };
  return {
    url,
    pid: child.pid!,
    output: () => output,
    alive: () => running,
    exited,
    kill,
    async restart() {
      await kill();
      return startServerProcess(sandbox, extraEnv);
    },
  };
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The parsed JSON body (null when empty, the text when not JSON). */
  body: any;
}

/** A request to a server process: `token` as a bearer token, `body` as JSON (a string is sent as is). */
export async function http(
  server: { url: string },
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const response = await fetch(`${server.url}${path}`, { method, headers, body, signal: options.signal });
  const text = await response.text();
  let parsed: unknown = null;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
