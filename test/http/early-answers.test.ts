/**
 * D23: when the service answers before it has read a whole body (413 over the limit, 401, 415, 400
 * for broken gzip), the client receives that answer. Closing the connection while the client is
 * still sending makes the client's kernel receive a reset, which can throw away the answer before
 * the client has read it: the published client then reports a network error instead of "payload
 * too large". These tests send whole oversized bodies over real sockets, the way curl and the
 * client package do, and require the answer every time.
 */
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import { JSON_UTF8, UNAUTHENTICATED } from '../helpers/contract.js';
import { minimalReport, storedRows } from '../helpers/client-wire.js';
import { sendRaw, type RawRequest, type RawResponse } from '../helpers/raw-http.js';
import { buildTestApp, listenOnLoopback, type TestContext, type TestUser } from '../helpers/test-app.js';
import { DISCARD_LIMIT_BYTES } from '../../src/http/early-answer.js';
import { eventually } from '../helpers/eventually.js';

const it = sharedAppTest({ env: { UPLOAD_RATE_LIMIT: '1000' } });

const MiB = 1024 * 1024;
/** How many oversized requests in a row each case sends (the reproduction lost 5 in 12). */
const TRIES = 20;

let user: TestUser;
let apiToken: string;
let port: number;
it.beforeAll(async ({ ctx }) => {
  // Enterprise: the v1 cases send many requests as one user.
  user = await ctx.given.user({ plan: 'enterprise' });
  ({ apiToken } = await ctx.given.project(user, { name: 'Early answers' }));
  port = await listenOnLoopback(ctx);
});

/** An upload over the 10 MiB limit that is otherwise a valid report. */
const elevenMiBReport = Buffer.from(JSON.stringify({ ...minimalReport(), pad: ' '.repeat(11 * MiB) }));
/** A v1 body over the 1 MiB limit that is otherwise a valid project. */
const overOneMiBProject = Buffer.from(JSON.stringify({ name: 'Big', framework_version: '11', pad: ' '.repeat(MiB + 1024) }));

const upload = (body: Buffer, extra: Partial<RawRequest> = {}, headers: [string, string][] = []): RawRequest => ({
  method: 'POST',
  target: '/api/reports',
  headers: [['Authorization', `Bearer ${apiToken}`], ['Content-Type', 'application/json'], ...headers],
  body,
  ...extra,
});

/**
 * `tries` times in a row, each on a new connection: every one must be answered, and its connection
 * closed without a reset while the client sends the rest of its body (a reset can destroy the answer
 * before the client reads it, and curl gives up on one while it is still sending).
 */
async function everyAnswer(request: () => RawRequest, tries = TRIES): Promise<RawResponse[]> {
  const answers: RawResponse[] = [];
  for (let i = 0; i < tries; i++) answers.push(await sendRaw(port, request(), { untilCleanClose: true }));
  return answers;
}

function expectClientEnvelope(response: RawResponse, status: number, error: string, message: RegExp | string): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe(JSON_UTF8);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'message', 'success']);
  expect(body.success).toBe(false);
  expect(body.error).toBe(error);
  if (typeof message === 'string') expect(body.message).toBe(message);
  else expect(body.message).toMatch(message);
}

describe('an answer sent before the whole body arrived reaches the client (D23)', () => {
  it(`${TRIES} uploads of 11 MiB in a row, sent like curl (keep-alive, Expect: 100-continue), each get the 413 envelope`, async ({
    ctx,
  }) => {
    const before = await storedRows(ctx);
    const answers = await everyAnswer(() => upload(elevenMiBReport, { keepAlive: true }, [['Expect', '100-continue']]));
    for (const answer of answers) expectClientEnvelope(answer, 413, 'Payload Too Large', /10 MiB/);
    expect(await storedRows(ctx)).toEqual(before);
  });

  it(`${TRIES} uploads of 11 MiB in a row from a client that asks to close the connection each get the 413 envelope`, async () => {
    const answers = await everyAnswer(() => upload(elevenMiBReport));
    for (const answer of answers) expectClientEnvelope(answer, 413, 'Payload Too Large', /10 MiB/);
  });

  it('an 11 MiB upload sent in chunks (no Content-Length) gets the 413 envelope once it passes the limit', async () => {
    const answers = await everyAnswer(() => upload(elevenMiBReport, { chunked: true }));
    for (const answer of answers) expectClientEnvelope(answer, 413, 'Payload Too Large', /10 MiB/);
  });

  it('a gzip body that inflates past the limit while it is still arriving gets the 413 envelope', async () => {
    // About 64 KiB compressed; the limit is passed after the first sixth of it.
    const bomb = gzipSync(Buffer.from(JSON.stringify({ ...minimalReport(), pad: ' '.repeat(64 * MiB) })));
    const answers = await everyAnswer(() => upload(bomb, {}, [['Content-Encoding', 'gzip']]));
    for (const answer of answers) expectClientEnvelope(answer, 413, 'Payload Too Large', /10 MiB/);
  });

  it('an 11 MiB upload with a token no project has gets the 401 envelope', async () => {
    // Ten a minute per IP without a valid token: stay under it.
    const answers = await everyAnswer(
      () => ({
        ...upload(elevenMiBReport, { keepAlive: true }),
        headers: [
          ['Authorization', `Bearer ${'x'.repeat(40)}`],
          ['Content-Type', 'application/json'],
        ],
      }),
      4,
    );
    for (const answer of answers) expectClientEnvelope(answer, 401, 'Unauthenticated', 'Authentication required.');
  });

  it(`${TRIES} bodies over 1 MiB in a row to POST /api/v1/projects each get the 413 envelope`, async () => {
    const answers = await everyAnswer(() => ({
      method: 'POST',
      target: '/api/v1/projects',
      headers: [
        ['Authorization', `Bearer ${user.token}`],
        ['Content-Type', 'application/json'],
      ],
      body: Buffer.concat([overOneMiBProject, Buffer.alloc(10 * MiB, ' ')]),
      keepAlive: true,
    }));
    for (const answer of answers) {
      expect(answer.status).toBe(413);
      expect(answer.headers['content-type']).toBe(JSON_UTF8);
      expect(JSON.parse(answer.body)).toEqual({ error: 'Payload Too Large', message: 'The request body may not be larger than 1 MiB.' });
    }
  });

  it('a large body that is not JSON gets the 415 envelope on /api/v1', async () => {
    const answers = await everyAnswer(() => ({
      method: 'POST',
      target: '/api/v1/projects',
      headers: [
        ['Authorization', `Bearer ${user.token}`],
        ['Content-Type', 'text/plain'],
      ],
      body: Buffer.alloc(8 * MiB, 'a'),
    }));
    for (const answer of answers)
      expect({ status: answer.status, error: JSON.parse(answer.body).error }).toEqual({ status: 415, error: 'Unsupported Media Type' });
  });

  it('a large body without a token gets the 401 envelope on /api/v1', async () => {
    // Ten a minute per IP without a valid token (D8), four of them spent above: stay under it.
    const answers = await everyAnswer(
      () => ({
        method: 'POST',
        target: '/api/v1/projects',
        headers: [['Content-Type', 'application/json']],
        body: Buffer.concat([overOneMiBProject, Buffer.alloc(10 * MiB, ' ')]),
      }),
      4,
    );
    for (const answer of answers)
      expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({ status: 401, body: UNAUTHENTICATED });
  });

  it('keeps serving after all of them', async () => {
    const answer = await sendRaw(port, { method: 'GET', target: '/healthz' });
    expect(answer.status).toBe(200);
  });
});

describe('the rest of a body answered early is read only up to a bound (D23)', () => {
  it(`disconnects a client that keeps sending past ${DISCARD_LIMIT_BYTES / MiB} MiB after its 413, which it has received`, async () => {
    const chunk = Buffer.alloc(MiB, ' ');
    // Half-open allowed: the client goes on sending after the server has closed its half.
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    let received = '';
    let sent = 0;
    socket.on('data', (data) => (received += data.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    socket.write(
      `POST /api/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiToken}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${1024 * MiB}\r\n\r\n`,
    );
    // Send as fast as the server reads, until it hangs up.
    while (!socket.destroyed && sent < 1024 * MiB) {
      sent += chunk.length;
      if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
    }
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    // The server checks the bound a few times a second; on loopback a client sends a few hundred MiB
    // meanwhile. What matters: past the bound it is cut off, long before its 1 GiB.
    expect(sent).toBeGreaterThan(DISCARD_LIMIT_BYTES);
    expect(sent).toBeLessThan(512 * MiB);
  });
});

// With a request deadline of 600 ms, a client answered early that then stalls is disconnected at the
// deadline, and gets no second answer (Node's 408) written after the one it already has.
describe('a client answered early that stops sending (HTTP_REQUEST_TIMEOUT_MS=600)', () => {
  let slow: TestContext;
  let slowPort: number;
  let slowApiToken: string;
  beforeAll(async () => {
    slow = await buildTestApp({ env: { HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600' } });
    const owner = await slow.given.user();
    ({ apiToken: slowApiToken } = await slow.given.project(owner, { name: 'Stalls' }));
    slowPort = await listenOnLoopback(slow);
  });
  afterAll(async () => slow.close());

  it('is disconnected at the deadline with its one 413 and nothing after it', async () => {
    // Half-open allowed: the client keeps its half open after the server has closed its own.
    const socket = connect({ host: '127.0.0.1', port: slowPort, allowHalfOpen: true });
    let received = '';
    socket.on('data', (data) => (received += data.toString('latin1')));
    socket.on('error', () => {});
    socket.write(
      `POST /api/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${slowApiToken}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${20 * MiB}\r\n\r\n${' '.repeat(1024)}`,
    );
    while (!received.includes('\r\n\r\n')) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    const openConnections = () =>
      new Promise<number>((resolve, reject) => slow.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    await eventually(async () => (await openConnections()) === 0);
    const elapsed = Date.now() - started;
    socket.destroy();

    expect(await openConnections()).toBe(0);
    expect(elapsed).toBeGreaterThanOrEqual(500);
    expect(received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    const body = received.slice(received.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body)).toMatchObject({ success: false, error: 'Payload Too Large' });
  });
});
