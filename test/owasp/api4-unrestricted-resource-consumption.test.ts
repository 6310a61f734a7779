/**
 * OWASP API Security Top 10 (2023), API4: Unrestricted Resource Consumption.
 *
 * Every way a single request could make the service read, inflate, parse, validate, store or page
 * through more than it should is bounded, and the bound answers with its documented status:
 * - bodies: 1 MiB on /api/v1 (D5), 10 MiB on uploads measured after gzip (CLIENT-WIRE.md): 413;
 * - nesting: deeper than 32 levels (src/http/json-body.ts): 400;
 * - list lengths in uploads (results 10,000, issues and suppressed issues 100,000 per result,
 *   src/reports/upload/upload.schemas.ts) and string lengths (api-v1 section 8, upload schema): 422;
 * - pages: `page` is decimal digits, 1..2147483647 (D27), a page past the end is empty (D16), the page size is fixed;
 * - headers: Node's 16 KiB header limit answers 431;
 * - slow clients (slow-loris): the header block and the whole request each have a deadline
 *   (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS); past it the connection gets 408 and is closed;
 * - clients that stop reading an answer: the server holds a bounded buffer for each (D33), not the
 *   answer (test/reports/stalled-readers.test.ts measures each kind of answer).
 * Every refused request stores nothing.
 *
 * The exact-limit acceptances (a body of exactly 1 MiB / 10 MiB) are in test/http/transport.test.ts
 * and test/client-api/upload-errors.test.ts.
 */
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import { expectApiHeaders, expectError, expectErrorLike, expectValidationError } from '../helpers/contract.js';
import { clientCall, expectClientError, expectClientValidationError, minimalReport, storedRows, upload } from '../helpers/client-wire.js';
import { ENDPOINTS, snapshot } from '../helpers/endpoints.js';
import { heldBytes, longMessageReport, stalledRequest, untilStalled } from '../helpers/stalled-reader.js';

const MiB = 1024 * 1024;

/** The client-package routes that take a body. */
const CLIENT_POSTS = ['/api/reports', '/api/v1/reports', '/api/reports/failure'] as const;

/**
 * One app for the file's per-request tests (each refused request is shown to change nothing); a
 * fresh user, team and project for every test (`fresh`), so no test sees another's data or spends
 * another's rate limit.
 */
const it = sharedAppTest()
  .extend('fresh', async ({ ctx }) => {
    // Enterprise: these tests send many requests as one user.
    const user = await ctx.given.user({ plan: 'enterprise' });
    const { project, apiToken } = await ctx.given.project(user, { name: 'Bounded' });
    return { user, projectId: project.id, apiToken };
  })
  /** Everything a refused request could have written. */
  .extend('everything', ({ ctx }) => async () => ({ ...(await snapshot(ctx)), rows: await storedRows(ctx) }));

/** Another app for the file, listening, with the default deadlines. */
const defaultServerIt = sharedAppTest();

/** And one with short deadlines (HTTP_HEADERS_TIMEOUT_MS=300, HTTP_REQUEST_TIMEOUT_MS=600) and a project to upload to. */
const slowServerIt = sharedAppTest({ env: { HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600' }, project: { name: 'Slow' } });

/**
 * And one, listening, where an Enterprise user's project holds a report whose exports are large:
 * its `uuid`, the server's sockets as they connect and how many queries the app ran so far.
 */
const stalledIt = sharedAppTest({ user: { plan: 'enterprise' }, project: { name: 'Stalled' } }).extend(
  'stalled',
  { scope: 'file' },
  async ({ ctx, apiToken }) => {
    // 150 messages of 60,000 characters: 8.6 MiB in what was one batch of rows, more than the
    // kernel's socket buffers take (a smaller answer fits there whole, and the server holds nothing).
    const uploaded = await upload(ctx, apiToken, longMessageReport(150));
    expect(uploaded.statusCode).toBe(201);
    let queryCount = 0;
    ctx.onQuery(() => void queryCount++);
    const serverSockets: Socket[] = [];
    ctx.app.server.on('connection', (socket: Socket) => serverSockets.push(socket));
    return { uuid: uploaded.json().report.uuid as string, serverSockets, queries: () => queryCount };
  },
);

describe('API4 limits per request', () => {
  describe('body size', () => {
    // Over 1 MiB, but valid JSON: only the size is wrong.
    const overOneMiB = JSON.stringify({ name: 'Big', framework_version: '11', pad: ' '.repeat(MiB) });

    it.for(ENDPOINTS.filter((e) => e.method !== 'GET').map((e) => [e.name, e] as const))(
      '%s: a body over 1 MiB gets 413 naming the limit, and nothing is stored (D5)',
      async ([_name, endpoint], { ctx, everything, fresh: { user } }) => {
        const request = await endpoint.prepare(ctx, user);
        const before = await everything();
        const response = await ctx.request({ ...request, token: user.token, body: overOneMiB });
        expectApiHeaders(response);
        expectErrorLike(response, 413, 'Payload Too Large', /1 MiB/);
        expect(await everything()).toEqual(before);
      },
    );

    it.for(CLIENT_POSTS)(
      '%s: a body over 10 MiB gets 413, and nothing is stored',
      async (url, { ctx, everything, fresh: { apiToken } }) => {
        const body = JSON.stringify({ ...minimalReport(), pad: ' '.repeat(10 * MiB) });
        const before = await everything();
        expectClientError(await upload(ctx, apiToken, body, { url }), 413, 'Payload Too Large', /10 MiB/);
        expect(await everything()).toEqual(before);
      },
    );

    let bomb: Buffer | undefined;
    it.for(CLIENT_POSTS)(
      '%s: a gzip bomb (tiny compressed, 64 MiB inflated) gets 413, and nothing is stored',
      async (url, { ctx, everything, fresh: { apiToken } }) => {
        bomb ??= gzipSync(Buffer.from(JSON.stringify({ ...minimalReport(), pad: ' '.repeat(64 * MiB) })));
        expect(bomb.length).toBeLessThan(200 * 1024);
        const before = await everything();
        const response = await upload(ctx, apiToken, bomb, { url, headers: { 'content-encoding': 'gzip' } });
        expectClientError(response, 413, 'Payload Too Large', /10 MiB/);
        expect(await everything()).toEqual(before);
      },
    );

    it('does not inflate gzip bodies on /api/v1 at all: the compressed bytes are not JSON (400)', async ({
      ctx,
      everything,
      fresh: { user },
    }) => {
      const bomb = gzipSync(Buffer.from(JSON.stringify({ name: 'Zip', framework_version: '11', pad: ' '.repeat(8 * MiB) })));
      const before = await everything();
      const response = await ctx.request({
        method: 'POST',
        url: '/api/v1/projects',
        token: user.token,
        body: bomb.toString('latin1'),
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      expectError(response, 400, { error: 'Bad Request', message: 'The request body is not valid JSON.' });
      expect(await everything()).toEqual(before);
    });
  });

  describe('nesting depth (src/http/json-body.ts: 32 levels)', () => {
    const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const deepUpload = (levels: number) => `{"results":[{"analyzer_id":"x","status":"passed","metadata":${nested(levels)}}]}`;
    const deepFailure = (levels: number) => `{"failure_reason":"uncaught_exception","metadata":${nested(levels)}}`;

    it.for([
      ['/api/reports', deepUpload],
      ['/api/v1/reports', deepUpload],
      ['/api/reports/failure', deepFailure],
    ] as const)(
      '%s: a body nested deeper than 32 levels gets 400, plain or gzipped, and nothing is stored',
      async ([url, body], { ctx, everything, fresh: { apiToken } }) => {
        const before = await everything();
        for (const levels of [40, 100_000]) {
          const raw = body(levels);
          expectClientError(await upload(ctx, apiToken, raw, { url }), 400, 'Bad Request', /nested more than 32 levels/);
          const zipped = await upload(ctx, apiToken, gzipSync(Buffer.from(raw)), { url, headers: { 'content-encoding': 'gzip' } });
          expectClientError(zipped, 400, 'Bad Request', /nested more than 32 levels/);
        }
        expect(await everything()).toEqual(before);
        // Control: the same body a few levels deep is stored.
        expect((await upload(ctx, apiToken, body(5), { url })).statusCode).toBe(201);
      },
    );
  });

  describe('list lengths in uploads (422, nothing stored)', () => {
    const passed = (i: number) => ({ analyzer_id: `a${i}`, status: 'passed' });
    const issues = (n: number) => Array.from({ length: n }, () => ({ message: 'm', severity: 'low' }));
    const keyed = (list: unknown[]) => Object.fromEntries(list.map((item, i) => [String(i), item]));

    it('refuses more than 10,000 results (field "results") and stores 10,000', async ({ ctx, everything, fresh: { apiToken } }) => {
      const before = await everything();
      const over = await upload(ctx, apiToken, { results: Array.from({ length: 10_001 }, (_, i) => passed(i)) });
      expectClientValidationError(over, ['results']);
      expect(await everything()).toEqual(before);
      const at = await upload(ctx, apiToken, { results: Array.from({ length: 10_000 }, (_, i) => passed(i)) });
      expect(at.statusCode, at.body).toBe(201);
    });

    it.for([
      ['issues as a list', 'results.0.issues', (n: number) => ({ analyzer_id: 'x', status: 'failed', issues: issues(n) })],
      [
        'issues keyed by position (PHP)',
        'results.0.issues',
        (n: number) => ({ analyzer_id: 'x', status: 'failed', issues: keyed(issues(n)) }),
      ],
      [
        'suppressed issues as a list',
        'results.0.suppressed_issues',
        (n: number) => ({ analyzer_id: 'x', status: 'passed', suppressed_issues: issues(n) }),
      ],
      [
        'suppressed issues keyed by position (PHP)',
        'results.0.suppressed_issues',
        (n: number) => ({ analyzer_id: 'x', status: 'passed', suppressed_issues: keyed(issues(n)) }),
      ],
    ] as const)(
      'refuses more than 100,000 %s in one result (field "%s")',
      async ([_label, field, result], { ctx, everything, fresh: { apiToken } }) => {
        const before = await everything();
        const response = await upload(ctx, apiToken, { results: [result(100_001)] });
        expectClientValidationError(response, [field]);
        expect(await everything()).toEqual(before);
      },
    );
  });

  describe('string lengths (422 naming the field, nothing stored)', () => {
    const long = (n: number) => 'x'.repeat(n);

    it.for([
      ['POST /projects name', 'POST', '/api/v1/projects', { name: long(256), framework_version: '11' }, 'name'],
      [
        'POST /projects description',
        'POST',
        '/api/v1/projects',
        { name: 'n', framework_version: '11', description: long(1001) },
        'description',
      ],
      [
        'POST /projects repository_url',
        'POST',
        '/api/v1/projects',
        { name: 'n', framework_version: '11', repository_url: `https://example.com/${long(481)}` },
        'repository_url',
      ],
      ['POST /tokens name', 'POST', '/api/v1/tokens', { name: long(256), abilities: ['read'] }, 'name'],
      [
        'PUT settings key',
        'PUT',
        'project',
        { name: 'n', framework_version: '11', settings: { ticket_target_project_key: long(101) } },
        'settings.ticket_target_project_key',
      ],
      [
        'PUT settings name',
        'PUT',
        'project',
        { name: 'n', framework_version: '11', settings: { ticket_target_project_name: long(256) } },
        'settings.ticket_target_project_name',
      ],
    ] as const)(
      '/api/v1: %s one character over its limit',
      async ([_label, method, url, body, field], { ctx, everything, fresh: { user, projectId } }) => {
        const before = await everything();
        const target = url === 'project' ? `/api/v1/projects/${projectId}` : url;
        const response = await ctx.request({ method, url: target, token: user.token, body });
        expectValidationError(response, [field]);
        expect(await everything()).toEqual(before);
      },
    );

    const result = (extra: Record<string, unknown> = {}, issue: Record<string, unknown> = {}) => ({
      analyzer_id: 'x',
      status: 'failed',
      issues: [{ message: 'm', severity: 'low', ...issue }],
      ...extra,
    });
    it.for([
      ['project_id', { project_id: long(256) }, 'project_id'],
      ['laravel_version', { laravel_version: long(101) }, 'laravel_version'],
      ['package_version', { package_version: long(101) }, 'package_version'],
      ['triggered_by', { triggered_by: long(101) }, 'triggered_by'],
      ['analyzer_id', { results: [result({ analyzer_id: long(256) })] }, 'results.0.analyzer_id'],
      ['result message', { results: [result({ message: long(65_536) })] }, 'results.0.message'],
      ['issue message', { results: [result({}, { message: long(65_536) })] }, 'results.0.issues.0.message'],
      ['recommendation', { results: [result({}, { recommendation: long(65_536) })] }, 'results.0.issues.0.recommendation'],
      ['location file', { results: [result({}, { location: { file: long(4097) } })] }, 'results.0.issues.0.location.file'],
      [
        'code snippet file',
        { results: [result({}, { code_snippet: { file: long(4097), lines: [] } })] },
        'results.0.issues.0.code_snippet.file',
      ],
    ] as const)('uploads: %s one character over its limit', async ([_label, fields, field], { ctx, everything, fresh: { apiToken } }) => {
      const before = await everything();
      expectClientValidationError(await upload(ctx, apiToken, { results: [result()], ...fields }), [field]);
      expect(await everything()).toEqual(before);
    });

    it.for([
      ['failure_label', { failure_label: long(256) }],
      ['error_message', { error_message: long(65_536) }],
      ['status', { status: long(51) }],
    ] as const)('failure notices: %s one character over its limit', async ([field, fields], { ctx, everything, fresh: { apiToken } }) => {
      const before = await everything();
      expectClientValidationError(await clientCall(ctx, apiToken, fields, { url: '/api/reports/failure' }), [field]);
      expect(await everything()).toEqual(before);
    });
  });

  describe('page bounds (D16)', () => {
    const LISTS = (projectId: string) => [
      '/api/v1/projects',
      `/api/v1/projects/${projectId}/reports`,
      `/api/v1/projects/${projectId}/failures`,
    ];

    it.for([
      ['0', '0'],
      ['-1', '-1'],
      ['1.5', '1.5'],
      ['abc', 'abc'],
      ['empty', ''],
      ['1e309 (Infinity once parsed)', '1e309'],
      ['Infinity', 'Infinity'],
      ['-Infinity', '-Infinity'],
      ['NaN', 'NaN'],
      ['400 nines', '9'.repeat(400)],
      ['-(2^53+1)', '-9007199254740993'],
      // D27: decimal digits only, at most 2147483647.
      ['2^31', '2147483648'],
      ['99999999999', '99999999999'],
      ['2^53', String(2 ** 53)],
      ['20 nines', '99999999999999999999'],
      ['1e308', '1e308'],
      ['hex', '0x10'],
      ['a leading space', '%201'],
    ])('answers page=%s with 422 on every list, never a 5xx', async ([_label, page], { ctx, fresh: { user, projectId } }) => {
      for (const url of LISTS(projectId)) {
        const response = await ctx.request({ method: 'GET', url: `${url}?page=${page}`, token: user.token });
        expectApiHeaders(response);
        expectValidationError(response, ['page']);
      }
    });

    it.for(['2', '999999999', '2147483647'])(
      'answers page=%s (past the end) with 200 and empty data on every list',
      async (page, { ctx, fresh: { user, projectId } }) => {
        for (const url of LISTS(projectId)) {
          const response = await ctx.request({ method: 'GET', url: `${url}?page=${page}`, token: user.token });
          expect(response.statusCode, `${url}?page=${page}: ${response.body}`).toBe(200);
          const body = response.json();
          expect(body.data).toEqual([]);
          expect(body.meta).toMatchObject({ per_page: 20, from: null, to: null, last_page: 1 });
        }
      },
    );

    it('keeps the page size at 20 whatever the query asks for', async ({ ctx, fresh: { user } }) => {
      for (let i = 0; i < 21; i++) await ctx.given.project(user, { name: `P${i}` });
      const response = await ctx.request({
        method: 'GET',
        url: '/api/v1/projects?per_page=100000&limit=100000&page_size=100000&size=100000&perPage=100000',
        token: user.token,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toHaveLength(20);
      expect(response.json().meta).toMatchObject({ per_page: 20, total: 22, last_page: 2 });
    });
  });
});

/** A raw TCP client: what it sent is up to the test, what it got back is collected. */
interface RawClient {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves with what was received when the server closes the connection, or null after `ms`. */
  closed(ms: number): Promise<string | null>;
}

function rawClient(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let data = '';
    let ended = false;
    const waiters: (() => void)[] = [];
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('close', () => {
      ended = true;
      for (const wake of waiters) wake();
    });
    socket.on('error', () => {});
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => data,
        closed: (ms) =>
          new Promise((done) => {
            if (ended) return done(data);
            const timer = setTimeout(() => done(null), ms);
            waiters.push(() => {
              clearTimeout(timer);
              done(data);
            });
          }),
      }),
    );
    socket.once('error', reject);
  });
}

describe('API4 limits per connection', () => {
  describe('with the default configuration', () => {
    defaultServerIt('sets deadlines on the server: 10 s for the headers, 30 s for the whole request, 60 s idle', ({ ctx }) => {
      expect(ctx.config.httpHeadersTimeoutMs).toBe(10_000);
      expect(ctx.config.httpRequestTimeoutMs).toBe(30_000);
      expect(ctx.app.server.headersTimeout).toBe(10_000);
      expect(ctx.app.server.requestTimeout).toBe(30_000);
      expect(ctx.app.server.timeout).toBe(60_000);
    });

    defaultServerIt('answers a header block over 16 KiB with 431 and closes the connection', async ({ port }) => {
      const client = await rawClient(port);
      client.socket.write(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
      const answer = await client.closed(5_000);
      expectParserRefusal(answer, 431, 'Request Header Fields Too Large');
      // Control: a normal request on the same server is answered.
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    });
  });

  // Slow-loris: with deadlines of 300 ms (headers) and 600 ms (request), a client that dribbles its
  // headers or stalls its body is cut off; the bound of the wait below is generous for a busy machine.
  describe('with short deadlines (HTTP_HEADERS_TIMEOUT_MS=300, HTTP_REQUEST_TIMEOUT_MS=600)', () => {
    const BOUND_MS = 30_000;

    slowServerIt('applies the configured deadlines to the server', ({ ctx }) => {
      expect(ctx.app.server.headersTimeout).toBe(300);
      expect(ctx.app.server.requestTimeout).toBe(600);
    });

    slowServerIt('cuts off a client that dribbles its headers one line at a time (408, closed)', async ({ port }) => {
      const client = await rawClient(port);
      client.socket.write('GET /api/v1/projects HTTP/1.1\r\nHost: localhost\r\n');
      let line = 0;
      const dribble = setInterval(() => {
        if (!client.socket.destroyed) client.socket.write(`X-Slow-${(line += 1)}: a\r\n`);
      }, 50);
      const started = Date.now();
      try {
        const answer = await client.closed(BOUND_MS);
        expect(answer, 'the connection was still open after the bound').not.toBeNull();
        expectParserRefusal(answer, 408, 'Request Timeout');
        expect(Date.now() - started).toBeLessThan(BOUND_MS);
      } finally {
        clearInterval(dribble);
        client.socket.destroy();
      }
    });

    slowServerIt(
      'cuts off a client that sends its headers and then stalls the body (408, closed), storing nothing',
      async ({ ctx, port, apiToken }) => {
        const client = await rawClient(port);
        const body = JSON.stringify(minimalReport());
        client.socket.write(
          `POST /api/reports HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${apiToken}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
        );
        try {
          const answer = await client.closed(BOUND_MS);
          expect(answer, 'the connection was still open after the bound').not.toBeNull();
          expectParserRefusal(answer, 408, 'Request Timeout');
        } finally {
          client.socket.destroy();
        }
        expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 0 });
        // Control: a client that sends promptly is answered normally.
        const ok = await fetch(`http://127.0.0.1:${port}/api/reports`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
          body,
        });
        expect(ok.status).toBe(201);
      },
    );
  });
});

describe('API4 limits per answer: clients that stop reading (D33)', () => {
  stalledIt(
    'holds under 2 MiB for each export whose client never reads, and each gets the whole file once it does',
    async ({ port, user, stalled: { uuid, serverSockets, queries } }) => {
      const exportOf = (format: string) =>
        stalledRequest(port, `/api/v1/reports/${uuid}/export?format=${format}`, { Authorization: `Bearer ${user.token}` });
      const whole = { csv: await exportOf('csv').readToEnd(), sarif: await exportOf('sarif').readToEnd() };
      expect(whole.csv.body.length + whole.sarif.body.length).toBeGreaterThan(16 * MiB);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = heldBytes();
      const first = serverSockets.length;
      const formats = ['csv', 'sarif', 'csv', 'sarif', 'csv', 'sarif'] as const;
      const readers = formats.map(exportOf);
      await untilStalled(() => serverSockets.slice(first), readers.length, queries);
      const perReader = (heldBytes() - before) / readers.length;
      expect(perReader, `${(perReader / MiB).toFixed(1)} MiB held per reader`).toBeLessThan(2 * MiB);
      const answers = await Promise.all(readers.map((reader) => reader.readToEnd()));
      for (const [i, answer] of answers.entries()) expect(answer.body.equals(whole[formats[i]!].body)).toBe(true);
    },
    120_000,
  ); // the app's setup (an 8.6 MiB upload) runs in the test's time too
});

/**
 * An answer written by the HTTP parser's error handler (src/http/client-errors.ts): still the D3
 * envelope (with the client package's `success: false`, as the path is unknown there), JSON, with the
 * security headers, and the connection closed.
 */
function expectParserRefusal(answer: string | null, status: number, title: string): void {
  expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  const [head = '', body = ''] = answer!.split('\r\n\r\n');
  expect(head.toLowerCase()).toContain('content-type: application/json; charset=utf-8');
  expect(head.toLowerCase()).toContain('x-content-type-options: nosniff');
  expect(head.toLowerCase()).toContain('connection: close');
  expect(JSON.parse(body)).toEqual({ success: false, error: title, message: expect.any(String) });
}
