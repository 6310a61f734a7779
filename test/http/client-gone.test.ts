/**
 * A client that drops its connection in the middle of a body is the client's doing: logged at info,
 * never as an error, and never taken for a database that went away (which would answer 503 and
 * count against the service's health). The reproduction: ECONNRESET from the request was
 * read as a database error and logged at error level.
 */
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalReport, storedRows } from '../helpers/client-wire.js';
import { buildTestApp, listenOnLoopback, type TestContext, type TestUser } from '../helpers/test-app.js';
import { HANG_MS } from '../helpers/eventually.js';

interface LogLine {
  level: number;
  msg?: string;
  res?: { statusCode?: number };
}

let ctx: TestContext;
let user: TestUser;
let apiToken: string;
let port: number;
let lines: LogLine[];
beforeAll(async () => {
  lines = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  ctx = await buildTestApp({ env: { LOG_LEVEL: 'info' }, deps: { logStream } });
  user = await ctx.given.user();
  ({ apiToken } = await ctx.given.project(user, { name: 'Dropped' }));
  port = await listenOnLoopback(ctx);
});
afterAll(async () => ctx.close());

/** Sends the head and half of `body`, then resets the connection; resolves once the server has logged it. */
async function dropMidBody(target: string, token: string, body: string): Promise<LogLine[]> {
  const before = lines.length;
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => {});
  await new Promise<void>((resolve) =>
    socket.write(
      `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, body.length / 2)}`,
      () => resolve(),
    ),
  );
  // Let the server read what was sent (and identify the request), then vanish.
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.resetAndDestroy();
  const deadline = Date.now() + HANG_MS;
  while (!lines.slice(before).some((line) => /closed the connection/.test(line.msg ?? ''))) {
    if (Date.now() > deadline) throw new Error(`nothing logged about the dropped client:\n${JSON.stringify(lines.slice(before))}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return lines.slice(before);
}

describe('a client that drops the connection mid-body', () => {
  it.each([
    ['an upload', '/api/reports', () => apiToken, () => JSON.stringify({ ...minimalReport(), pad: ' '.repeat(200_000) })],
    [
      'a v1 body',
      '/api/v1/projects',
      () => user.token,
      () => JSON.stringify({ name: 'x', framework_version: '11', pad: ' '.repeat(200_000) }),
    ],
  ])('%s: is logged at info, not as an error nor a database outage, and stores nothing', async (_label, target, token, body) => {
    const logged = await dropMidBody(target, token(), body());
    expect(logged.filter((line) => line.level >= 50)).toEqual([]);
    expect(logged.some((line) => line.res?.statusCode === 503)).toBe(false);
    expect(logged.find((line) => /closed the connection/.test(line.msg ?? ''))!.level).toBe(30);
    expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 0 });
  });

  it('leaves the service ready (no dependency counted as down)', async () => {
    const ready = await ctx.request({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
  });
});
