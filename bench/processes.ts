import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';

/** A server started as its own process, and what the benchmark reads of it. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** Resident set size now, in bytes (from /proc). */
  rss(): number;
  /** Highest RSS seen by the sampler so far, in bytes. */
  peakRss(): number;
  /** How the process ended ("exit code 1", "signal SIGKILL"), or null while it runs. */
  ended(): string | null;
  stop(): Promise<void>;
}

/**
 * The service's environment for a measurement: production settings, logging at warn, the given
 * database, and the rate limiter on with budgets large enough that it never answers 429.
 */
export function serviceEnv(databaseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_USER_BASE: '100000000',
    UPLOAD_RATE_LIMIT: '100000000',
    BADGE_RATE_LIMIT: '100000000',
    ...extra,
  };
}

/** How `npm start`, the container and the bin's shebang start the service (README, "Large reports"). */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];

/** What a result file says about where it was measured. */
export function machine() {
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    date: new Date().toISOString(),
  };
}

/**
 * Starts `node <args>` on a free port (PORT in its environment) and resolves once `readyPath`
 * answers 200: with logging at warn, the service prints nothing when it starts listening.
 * `onLog` receives each line the process prints on stdout (its log); without it stdout is dropped.
 */
export async function startServer(
  args: string[],
  env: NodeJS.ProcessEnv,
  readyPath: string,
  options: { onLog?: (line: string) => void } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { onLog } = options;
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', onLog ? 'pipe' : 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  if (onLog) {
    let pending = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line.trim() !== '') onLog(line);
    });
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${args.join(' ')} exited with ${child.exitCode ?? child.signalCode}\n${errors}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not answer ${readyPath} within 60 s\n${errors}`);
    }
    try {
      if ((await fetch(`${url}${readyPath}`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const pid = child.pid!;
  let peak = 0;
  const rss = () => readRss(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 200);
  return {
    url,
    pid,
    rss,
    peakRss: () => Math.max(peak, readPeak(pid)),
    ended: () =>
      child.exitCode !== null ? `exit code ${child.exitCode}` : child.signalCode !== null ? `signal ${child.signalCode}` : null,
    stop: () =>
      new Promise((done) => {
        clearInterval(sampler);
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function status(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}

const kib = (text: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
const readRss = (pid: number) => kib(status(pid), 'VmRSS');
const readPeak = (pid: number) => kib(status(pid), 'VmHWM');
