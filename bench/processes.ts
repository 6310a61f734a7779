import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A server started as its own process, and what the benchmark reads of it. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** Resident set size now, in bytes (from /proc). */
  rss(): number;
  /** Highest RSS seen by the sampler so far, in bytes. */
  peakRss(): number;
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` on a free port (PORT in its environment) and resolves once `readyPath`
 * answers 200: with logging at warn, the service prints nothing when it starts listening.
 */
export async function startServer(args: string[], env: NodeJS.ProcessEnv, readyPath: string): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}\n${errors}`);
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
    stop: () =>
      new Promise((done) => {
        clearInterval(sampler);
        if (child.exitCode !== null) return done();
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
