import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './cli-process.js';

/**
 * A service manager (systemd, a container's init, a terminal's Ctrl-C) signals the process it
 * started: with `npm start` that is npm, not the server. The server must stop with it, not be left
 * listening on its port as an orphan.
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'scoreboard-npm-start-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('stops the server when npm receives %s', async (signal) => {
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dir,
        DATABASE_URL: `sqlite:${join(dir, `${signal}.db`)}`,
        PORT: '0',
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const npmExited = new Promise<void>((resolve) => npm.on('exit', () => resolve()));
    let output = '';
    let serverPid: number | undefined;
    try {
      const url = await new Promise<string>((resolve, reject) => {
        npm.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk;
          serverPid ??= Number(/"pid":(\d+)/.exec(output)?.[1]) || undefined;
          const match = /Scoreboard listening on (http:\/\/[^\s"]+)/.exec(output);
          if (match) resolve(match[1]!);
        });
        npm.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
        void npmExited.then(() => reject(new Error(`npm start exited before listening:\n${output}`)));
      });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect(serverPid).not.toBe(npm.pid);

      npm.kill(signal);
      await npmExited;

      // npm waits for its script to end: once it has exited the server must be gone too.
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
      expect(isAlive(serverPid!)).toBe(false);
      expect(output).toContain('shutting down');
    } finally {
      npm.kill('SIGKILL');
      if (serverPid !== undefined && isAlive(serverPid)) process.kill(serverPid, 'SIGKILL');
    }
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
