/**
 * "Accept exactly what it sends": the published client package's calls, replayed over a raw TCP
 * socket against the real `scoreboard serve` process.
 *
 * Headers come from test/fixtures/client-wire/request-headers.json in the client's wire order and case
 * (only Host, Content-Length and the Authorization value are filled in), bodies are the recorded
 * fixture files byte for byte (the placeholder project id replaced by the real one), and the HTTP/1.1
 * is written by hand so nothing (fetch, undici) adds, drops, reorders or re-cases a header, and
 * `Expect: 100-Continue` is handled the way cURL does: headers first, body after the interim 100.
 *
 * The answers are read the way the client reads them (CLIENT-WIRE.md "How the client reads the
 * answer"): a JSON object with a boolean `success` and a string `message`, never a redirect.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createSandbox, okJson, startServer, type RunningServer, type Sandbox } from '../cli/cli-process.js';
import { countResults, type FixtureName, fixtureText, loadFixture } from '../helpers/client-wire.js';
import { PROJECT_API_TOKEN, UNAUTHENTICATED } from '../helpers/contract.js';
import { HANG_MS } from '../helpers/eventually.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/client-wire', import.meta.url));
const PLACEHOLDER_PROJECT_ID = '0190c8a0-0000-7000-8000-000000000001';
/** D3's 401 envelope with the `success` flag every /api answer carries. */
const CLIENT_UNAUTHENTICATED = { success: false, ...UNAUTHENTICATED };

// ---------------------------------------------------------------------------------------------
// The recorded calls
// ---------------------------------------------------------------------------------------------

interface RecordedCall {
  call: string;
  method: string;
  path: string;
  query: string;
  http_version: string;
  body_bytes: number;
  headers: [string, string][];
}

const recording = JSON.parse(readFileSync(`${FIXTURES}/request-headers.json`, 'utf8')) as { requests: RecordedCall[] };

const hasExpect = (call: RecordedCall) => call.headers.some(([name]) => name.toLowerCase() === 'expect');

function recordedCall(name: string, options: { expectContinue?: boolean } = {}): RecordedCall {
  const matches = recording.requests.filter((call) => call.call === name && hasExpect(call) === (options.expectContinue ?? false));
  if (matches.length !== 1) throw new Error(`expected exactly one recorded ${name} call, found ${matches.length}`);
  return matches[0]!;
}

/** Bodies under 1 MiB: Guzzle sends no `Expect` (request-headers.json, first call). */
const SEND_REPORT = recordedCall('ShieldCIClient::sendReport');
/** Bodies of 1 MiB or more: `Expect: 100-Continue` (request-headers.json, second call). */
const SEND_LARGE_REPORT = recordedCall('ShieldCIClient::sendReport', { expectContinue: true });
const SEND_FAILURE = recordedCall('ShieldCIClient::sendFailureNotification');
const VERIFY_TOKEN = recordedCall('ShieldCIClient::verifyToken');
const GET_PROJECT = recordedCall('ShieldCIClient::getProject');

/** The fixture's exact bytes with only the placeholder project id replaced. */
function fixtureBody(name: FixtureName, projectId: string): Buffer {
  const text = fixtureText(name);
  expect(text.split(PLACEHOLDER_PROJECT_ID)).toHaveLength(2); // exactly one occurrence to replace
  return Buffer.from(text.replace(PLACEHOLDER_PROJECT_ID, projectId), 'utf8');
}

// ---------------------------------------------------------------------------------------------
// Expected summaries, counted here from the fixture's results (never the client's own summary)
// ---------------------------------------------------------------------------------------------

interface FixtureReport {
  laravel_version: string;
  package_version: string;
  triggered_by: string;
  analyzed_at: string;
  results: { status: string; issues: unknown[] | Record<string, unknown> }[];
}

function expectedCounts(name: FixtureName) {
  const report = loadFixture(name) as FixtureReport;
  return { counts: countResults(report.results), report };
}

// ---------------------------------------------------------------------------------------------
// Hand-written HTTP/1.1 over node:net
// ---------------------------------------------------------------------------------------------

interface RawResponse {
  statusLine: string;
  status: number;
  /** Header names lower-cased, in wire order. */
  headers: [string, string][];
  body: Buffer;
}

const header = (response: RawResponse, name: string) => response.headers.find(([key]) => key === name)?.[1];

/** Parses one response at the start of `buffer`; null when it is not complete yet. */
function parseResponse(buffer: Buffer, ended: boolean): { response: RawResponse; consumed: number } | null {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const [statusLine = '', ...lines] = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine);
  if (!match) throw new Error(`not an HTTP/1.x status line: ${JSON.stringify(statusLine)}`);
  const status = Number(match[1]);
  const headers = lines.map((line): [string, string] => {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`malformed header line: ${JSON.stringify(line)}`);
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
  });
  let offset = headEnd + 4;
  const response: RawResponse = { statusLine, status, headers, body: Buffer.alloc(0) };
  if (status < 200 || status === 204 || status === 304) return { response, consumed: offset };

  const transferEncoding = header(response, 'transfer-encoding');
  const contentLength = header(response, 'content-length');
  if (transferEncoding !== undefined && /\bchunked\b/i.test(transferEncoding)) {
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = buffer.indexOf('\r\n', offset);
      if (lineEnd < 0) return null;
      const sizeText = buffer.subarray(offset, lineEnd).toString('latin1').split(';')[0]!.trim();
      if (!/^[0-9a-fA-F]+$/.test(sizeText)) throw new Error(`bad chunk size: ${JSON.stringify(sizeText)}`);
      const size = parseInt(sizeText, 16);
      offset = lineEnd + 2;
      if (size === 0) {
        for (;;) {
          // trailer section, ends with an empty line
          const trailerEnd = buffer.indexOf('\r\n', offset);
          if (trailerEnd < 0) return null;
          const empty = trailerEnd === offset;
          offset = trailerEnd + 2;
          if (empty) break;
        }
        break;
      }
      if (buffer.length < offset + size + 2) return null;
      chunks.push(buffer.subarray(offset, offset + size));
      offset += size + 2;
    }
    response.body = Buffer.concat(chunks);
  } else if (contentLength !== undefined) {
    const length = Number(contentLength);
    if (!Number.isInteger(length) || length < 0) throw new Error(`bad Content-Length: ${contentLength}`);
    if (buffer.length < offset + length) return null;
    response.body = Buffer.from(buffer.subarray(offset, offset + length));
    offset += length;
  } else {
    // Delimited by the end of the connection.
    if (!ended) return null;
    response.body = Buffer.from(buffer.subarray(offset));
    offset = buffer.length;
  }
  return { response, consumed: offset };
}

class RawConnection {
  private buffer = Buffer.alloc(0);
  private ended = false;
  private error: Error | null = null;
  private wake: (() => void) | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.notify();
    });
    socket.on('end', () => {
      this.ended = true;
      this.notify();
    });
    socket.on('close', () => {
      this.ended = true;
      this.notify();
    });
    socket.on('error', (error) => {
      this.error = error;
      this.notify();
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
    });
  }

  private notify() {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  write(data: Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (error) => (error ? reject(error) : resolve())));
  }

  /** The next complete response (interim 1xx included); rejects after `timeoutMs`. */
  async next(timeoutMs: number, what: string): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponse(this.buffer, this.ended);
      if (parsed) {
        this.buffer = this.buffer.subarray(parsed.consumed);
        return parsed.response;
      }
      if (this.ended || this.error) {
        throw new Error(
          `connection ${this.error ? `failed (${this.error.message})` : 'closed'} before ${what}; received: ` +
            JSON.stringify(this.buffer.toString('latin1').slice(0, 500)),
        );
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.wake = null;
          resolve();
        }, remaining);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  close() {
    this.socket.destroy();
  }
}

interface Replayed {
  /** Interim (1xx) responses, in order. */
  interim: RawResponse[];
  response: RawResponse;
  /** The final answer's body, decoded as the client does (json_decode). */
  json: unknown;
}

/**
 * Sends one recorded call: its headers in its order and case, with Host = the real host:port,
 * Authorization = `Bearer <token>` (just `Bearer` for null, as Laravel's trimmed withToken('')),
 * Content-Length = the byte length of `body`. With `Expect`, the body goes only after `100 Continue`.
 */
async function replay(
  serverUrl: string,
  call: RecordedCall,
  token: string | null,
  body: Buffer = Buffer.alloc(0),
  options: { requireContinue?: boolean } = {},
): Promise<Replayed> {
  const { host, port } = new URL(serverUrl);
  const lines = [`${call.method} ${call.path}${call.query ? `?${call.query}` : ''} HTTP/${call.http_version}`];
  for (const [name, recorded] of call.headers) {
    switch (name.toLowerCase()) {
      case 'host':
        lines.push(`${name}: ${host}`);
        break;
      case 'authorization':
        lines.push(`${name}: ${token === null ? 'Bearer' : `Bearer ${token}`}`);
        break;
      case 'content-length':
        lines.push(`${name}: ${body.length}`);
        break;
      default:
        lines.push(`${name}: ${recorded}`);
    }
  }
  if (body.length > 0 && !call.headers.some(([name]) => name.toLowerCase() === 'content-length')) {
    throw new Error(`the recorded ${call.call} call has no Content-Length but a body was given`);
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  // The client gives up after 10 to 30 s per call (CLIENT-WIRE.md "Calls it makes"); how fast the
  // service answers is the benchmark's to measure. Here a wait only tells a hang from a busy machine.
  const timeout = HANG_MS;

  const connection = await RawConnection.open(Number(port));
  try {
    const interim: RawResponse[] = [];
    let response: RawResponse;
    if (hasExpect(call)) {
      await connection.write(head);
      // cURL waits for the interim answer (about 1 s at most, then it sends the body anyway).
      const first = await connection.next(HANG_MS, 'answer to the request headers (HTTP/1.1 100 Continue)');
      if (first.status === 100) {
        interim.push(first);
        await connection.write(body);
        response = await connection.next(timeout, 'final answer');
      } else {
        // A final answer instead of 100: cURL does not send the body.
        if (options.requireContinue) {
          throw new Error(`expected "HTTP/1.1 100 Continue" before the body, got ${JSON.stringify(first.statusLine)}`);
        }
        response = first;
      }
    } else {
      await connection.write(Buffer.concat([head, body]));
      response = await connection.next(timeout, 'final answer');
    }
    while (response.status >= 100 && response.status < 200) {
      interim.push(response);
      response = await connection.next(timeout, 'final answer');
    }
    const text = response.body.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`${call.method} ${call.path} answered ${response.status} with a non-JSON body: ${text.slice(0, 300)}`);
    }
    return { interim, response, json };
  } finally {
    connection.close();
  }
}

/** What the client needs of every answer (CLIENT-WIRE.md "How the client reads the answer", D8 headers). */
function expectClientReadable(replayed: Replayed, success: boolean) {
  const { response, json } = replayed;
  // A redirect turns the POST into a body-less GET: /api/* never redirects.
  expect(response.status < 300 || response.status >= 400, `status ${response.status}`).toBe(true);
  expect(header(response, 'location')).toBeUndefined();
  expect(typeof json === 'object' && json !== null && !Array.isArray(json), `a JSON object: ${JSON.stringify(json)}`).toBe(true);
  const body = json as Record<string, unknown>;
  expect(body.success).toBe(success);
  expect(typeof body.message).toBe('string');
  expect(header(response, 'x-ratelimit-limit')).toMatch(/^\d+$/);
  expect(header(response, 'x-ratelimit-remaining')).toMatch(/^\d+$/);
  return body as Record<string, any>;
}

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

describe('the published client package against the real server over TCP', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  let personalToken: string;

  beforeAll(async () => {
    sandbox = await createSandbox();
    server = await startServer(sandbox);
    const created = await okJson<{ token: string }>(sandbox, 'users:create', '--email', 'client@example.com', '--name', 'Client');
    personalToken = created.token;
  });

  afterAll(async () => {
    await server?.stop();
    await sandbox?.cleanup();
  });

  let sequence = 0;
  /** A fresh project through POST /api/v1/projects, with its project API token. */
  async function newProject(): Promise<{ id: string; name: string; apiToken: string }> {
    sequence += 1;
    const name = `Client replay ${sequence}`;
    const created = await api(server, 'POST', '/api/v1/projects', personalToken, { name, framework_version: '11' });
    expect(created.status).toBe(201);
    expect(created.body.api_token).toMatch(PROJECT_API_TOKEN);
    return { id: created.body.project.id, name, apiToken: created.body.api_token };
  }

  async function latestReportOf(projectId: string) {
    const project = await api(server, 'GET', `/api/v1/projects/${projectId}`, personalToken);
    expect(project.status).toBe(200);
    return project.body.data.latest_report as Record<string, any> | null;
  }

  /** The stored report as the project lists it, against the counts taken from the fixture. */
  function expectStoredAs(latest: Record<string, any> | null, name: FixtureName, uuid: string) {
    const { counts, report } = expectedCounts(name);
    expect(latest).not.toBeNull();
    expect(latest).toMatchObject({ uuid, ...counts });
    expect(latest!.framework_version).toBe(report.laravel_version);
    expect(latest!.package_version).toBe(report.package_version);
    expect(latest!.triggered_by).toBe(report.triggered_by);
    expect(Date.parse(latest!.analyzed_at)).toBe(Date.parse(report.analyzed_at));
  }

  describe("the test's own wire reader", () => {
    it('reads Content-Length and chunked framings, interim responses and trailers', () => {
      const wire = Buffer.from(
        'HTTP/1.1 100 Continue\r\n\r\n' +
          'HTTP/1.1 201 Created\r\nContent-Length: 7\r\n\r\n{"a":1}' +
          'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\n{"b\r\n4\r\n":2}\r\n0\r\nX-T: 1\r\n\r\n',
        'latin1',
      );
      const first = parseResponse(wire, false)!;
      expect(first.response.status).toBe(100);
      const second = parseResponse(wire.subarray(first.consumed), false)!;
      expect([second.response.status, second.response.body.toString()]).toEqual([201, '{"a":1}']);
      const rest = wire.subarray(first.consumed + second.consumed);
      const third = parseResponse(rest, false)!;
      expect([third.response.status, third.response.body.toString(), third.consumed]).toEqual([200, '{"b":2}', rest.length]);
      expect(parseResponse(rest.subarray(0, rest.length - 2), false)).toBeNull(); // incomplete
    });
  });

  describe('the recording matches the fixture bodies', () => {
    it('each recorded body size is the size of its fixture file', () => {
      // request-headers.json was recorded sending these files (with the placeholder project id).
      expect(SEND_REPORT.body_bytes).toBe(Buffer.byteLength(fixtureText('report-small')));
      expect(SEND_LARGE_REPORT.body_bytes).toBe(Buffer.byteLength(fixtureText('report-large')));
      expect(SEND_FAILURE.body_bytes).toBe(Buffer.byteLength(fixtureText('failure')));
      expect(SEND_LARGE_REPORT.body_bytes).toBeGreaterThanOrEqual(1024 * 1024); // why it carries Expect
      expect(VERIFY_TOKEN.body_bytes).toBe(0);
      expect(GET_PROJECT.body_bytes).toBe(0);
    });
  });

  describe('POST /api/reports with the client headers (CLIENT-WIRE.md "Calls it makes")', () => {
    it('accepts report-small.json: 201 success:true, stored with the counts of its results', async () => {
      const project = await newProject();
      const replayed = await replay(server.url, SEND_REPORT, project.apiToken, fixtureBody('report-small', project.id));

      expect(replayed.interim).toEqual([]);
      expect(replayed.response.status).toBe(201);
      const body = expectClientReadable(replayed, true);
      expect(body.message).toBe('Report received.');
      expect(header(replayed.response, 'x-ratelimit-limit')).toBe('60'); // default upload budget per project
      expect(body.report).toMatchObject(expectedCounts('report-small').counts);

      expectStoredAs(await latestReportOf(project.id), 'report-small', body.report.uuid);
    });

    it('accepts report-full.json (under 1 MiB, so the same headers, no Expect): 201, stored with its counts', async () => {
      const project = await newProject();
      const bytes = fixtureBody('report-full', project.id);
      expect(bytes.length).toBeLessThan(1024 * 1024);
      const replayed = await replay(server.url, SEND_REPORT, project.apiToken, bytes);

      expect(replayed.response.status).toBe(201);
      const body = expectClientReadable(replayed, true);
      expect(body.message).toBe('Report received.');
      expect(body.report).toMatchObject(expectedCounts('report-full').counts);

      expectStoredAs(await latestReportOf(project.id), 'report-full', body.report.uuid);
    });

    it('answers "Expect: 100-Continue" with an interim 100, then accepts report-large.json (201)', async () => {
      const project = await newProject();
      const replayed = await replay(server.url, SEND_LARGE_REPORT, project.apiToken, fixtureBody('report-large', project.id), {
        requireContinue: true,
      });

      expect(replayed.interim.map((interim) => interim.statusLine)).toEqual(['HTTP/1.1 100 Continue']);
      expect(replayed.response.status).toBe(201);
      const body = expectClientReadable(replayed, true);
      expect(body.message).toBe('Report received.');
      expect(body.report).toMatchObject(expectedCounts('report-large').counts);

      expectStoredAs(await latestReportOf(project.id), 'report-large', body.report.uuid);
    });

    it('successive uploads of one project: each newer analyzed_at becomes latest_report (D19)', async () => {
      const project = await newProject();
      // analyzed_at: small 05:09:22 < full 05:09:23 < large 05:09:24 (fixtures).
      const small = await replay(server.url, SEND_REPORT, project.apiToken, fixtureBody('report-small', project.id));
      expect(small.response.status).toBe(201);
      expectStoredAs(await latestReportOf(project.id), 'report-small', expectClientReadable(small, true).report.uuid);

      const full = await replay(server.url, SEND_REPORT, project.apiToken, fixtureBody('report-full', project.id));
      expect(full.response.status).toBe(201);
      expectStoredAs(await latestReportOf(project.id), 'report-full', expectClientReadable(full, true).report.uuid);

      const large = await replay(server.url, SEND_LARGE_REPORT, project.apiToken, fixtureBody('report-large', project.id), {
        requireContinue: true,
      });
      expect(large.response.status).toBe(201);
      expectStoredAs(await latestReportOf(project.id), 'report-large', expectClientReadable(large, true).report.uuid);

      const reports = await api(server, 'GET', `/api/v1/projects/${project.id}/reports`, personalToken);
      expect(reports.status).toBe(200);
      expect(reports.body.data).toHaveLength(3);
    });
  });

  describe('POST /api/reports/failure with the client headers', () => {
    it('accepts failure.json: 201 success:true, and the failure is listed for the project', async () => {
      const project = await newProject();
      const replayed = await replay(server.url, SEND_FAILURE, project.apiToken, fixtureBody('failure', project.id));

      expect(replayed.response.status).toBe(201);
      const body = expectClientReadable(replayed, true);
      expect(body).toEqual({ success: true, message: 'Failure recorded.' });

      const sent = JSON.parse(fixtureText('failure')) as Record<string, any>;
      const failures = await api(server, 'GET', `/api/v1/projects/${project.id}/failures`, personalToken);
      expect(failures.status).toBe(200);
      expect(failures.body.data).toHaveLength(1);
      const listed = failures.body.data[0];
      expect(listed).toMatchObject({
        failure_reason: sent.failure_reason,
        failure_label: sent.failure_label,
        error_message: sent.error_message,
        triggered_by: sent.triggered_by,
        framework_version: sent.laravel_version,
        package_version: sent.package_version,
        metadata: sent.metadata,
      });
      expect(Date.parse(listed.occurred_at)).toBe(Date.parse(sent.occurred_at));
    });
  });

  describe('GET /api/token/verify and GET /api/project with the client headers (no Content-Type, no Accept)', () => {
    it('verify answers 200 success:true, valid:true with the project id and name', async () => {
      const project = await newProject();
      const replayed = await replay(server.url, VERIFY_TOKEN, project.apiToken);

      expect(replayed.response.status).toBe(200);
      const body = expectClientReadable(replayed, true);
      expect(body.valid).toBe(true);
      expect(body.project).toEqual({ id: project.id, name: project.name });
    });

    it('project answers 200 success:true with data.id and data.settings', async () => {
      const project = await newProject();
      const replayed = await replay(server.url, GET_PROJECT, project.apiToken);

      expect(replayed.response.status).toBe(200);
      const body = expectClientReadable(replayed, true);
      expect(body.data.id).toBe(project.id);
      expect(body.data.name).toBe(project.name);
      expect(body.data).toHaveProperty('settings');
      expect(typeof body.data.settings).toBe('object');
      expect(body.data.settings).not.toBeNull();
      expect(body.data.latest_report).toBeNull();
    });
  });

  describe('with no token configured the client sends "Authorization: Bearer": 401 {success:false, message}', () => {
    it('answers every call 401 with a JSON object the client can read', async () => {
      const project = await newProject(); // only for a real project id in the bodies
      const calls: [RecordedCall, Buffer][] = [
        [SEND_REPORT, fixtureBody('report-small', project.id)],
        [SEND_LARGE_REPORT, fixtureBody('report-large', project.id)],
        [SEND_FAILURE, fixtureBody('failure', project.id)],
        [VERIFY_TOKEN, Buffer.alloc(0)],
        [GET_PROJECT, Buffer.alloc(0)],
      ];
      for (const [call, bytes] of calls) {
        const replayed = await replay(server.url, call, null, bytes);
        expect(replayed.response.status, `${call.method} ${call.path}`).toBe(401);
        const body = expectClientReadable(replayed, false);
        // D3 401 title and message; verify adds valid:false (CLIENT-WIRE.md).
        expect(body).toEqual(call === VERIFY_TOKEN ? { ...CLIENT_UNAUTHENTICATED, valid: false } : CLIENT_UNAUTHENTICATED);
        expect(header(replayed.response, 'x-ratelimit-limit')).toBe('10'); // per IP without a valid token
      }

      // Nothing was stored.
      expect(await latestReportOf(project.id)).toBeNull();
      const failures = await api(server, 'GET', `/api/v1/projects/${project.id}/failures`, personalToken);
      expect(failures.body.data).toEqual([]);
    });
  });
});
