/**
 * D33 over real connections: a client that asks for a large export or report answer and stops
 * reading costs the server a bounded buffer (about 1 MiB), not the answer or the rows behind it;
 * when it reads again it gets the whole answer, byte for byte what a reading client gets.
 *
 * The report is the attack's shape: about 9 MiB of issues with 60,000-character messages, so a
 * batch of rows or a piece of output counted in issues, not bytes, is most of the report.
 */
import type { Socket } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadOk } from '../helpers/client-wire.js';
import { LogCapture } from '../helpers/log-capture.js';
import { heldBytes, longMessageReport, stalledRequest, untilStalled } from '../helpers/stalled-reader.js';
import { buildTestApp, listenOnLoopback, type TestContext, type TestUser } from '../helpers/test-app.js';
import { eventually } from '../helpers/eventually.js';

const MiB = 1024 * 1024;

/** D33: about 1 MiB per response; the rest of the margin is the measure's noise. */
const HELD_PER_READER = 2 * MiB;

describe('D33: a client that stops reading holds a bounded buffer', () => {
  let ctx: TestContext;
  let user: TestUser;
  let port: number;
  let uuid: string;
  const serverSockets: Socket[] = [];
  let queryCount = 0;
  let issueQueries = 0;
  const log = new LogCapture();

  beforeAll(async () => {
    // Warn: a download cut short by the server is logged there (Fastify's stream error).
    ctx = await buildTestApp({ env: { LOG_LEVEL: 'warn', DATABASE_POOL_MAX: '2' }, deps: { logStream: log } });
    user = await ctx.given.user({ plan: 'enterprise' });
    const { apiToken } = await ctx.given.project(user, { name: 'Long' });
    // 150 x 60,000 characters: 8.6 MiB, the attack's report.
    uuid = (await uploadOk(ctx, apiToken, longMessageReport(150))).report.uuid as string;
    ctx.onQuery((text) => {
      queryCount++;
      if (/from "report_issues"/.test(text)) issueQueries++;
    });
    port = await listenOnLoopback(ctx);
    ctx.app.server.on('connection', (socket: Socket) => serverSockets.push(socket));
  });
  afterAll(async () => ctx.close());

  const answers = [
    ['a CSV export', '/export?format=csv', {}],
    ['a SARIF export', '/export?format=sarif', {}],
    ['the report detail, inflated for a client without gzip', '', {}],
    ['the report detail, gzip', '', { 'Accept-Encoding': 'gzip' }],
  ] as const;

  it.each(answers)(
    '%s: each stalled reader adds under 2 MiB, and gets the whole answer once it reads',
    async (_name, suffix, headers) => {
      const target = `/api/v1/reports/${uuid}${suffix}`;
      const request = () => stalledRequest(port, target, { Authorization: `Bearer ${user.token}`, ...headers });
      // What a reading client gets (and the code paths warmed up before the measure).
      const reference = await request().readToEnd();
      expect(reference.status).toBe(200);
      expect(reference.body.length).toBeGreaterThan(8 * MiB);

      // The reference's connection closed, and what it left collected.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = heldBytes();
      const first = serverSockets.length;
      const readers = Array.from({ length: 6 }, request);
      await untilStalled(
        () => serverSockets.slice(first),
        readers.length,
        () => queryCount,
      );
      const perReader = (heldBytes() - before) / readers.length;
      expect(perReader, `${(perReader / MiB).toFixed(1)} MiB held per reader`).toBeLessThan(HELD_PER_READER);

      for (const answer of await Promise.all(readers.map((reader) => reader.readToEnd()))) {
        expect(answer.status).toBe(200);
        expect(answer.body.equals(reference.body)).toBe(true);
      }
    },
    120_000,
  );

  const csvExport = () => `/api/v1/reports/${uuid}/export?format=csv`;

  it('stops reading the database for readers that go away, and gives their connections back', async () => {
    const first = serverSockets.length;
    const issueQueriesBefore = issueQueries;
    // More readers than the database pool has connections (2): a held connection would stall the rest.
    const readers = Array.from({ length: 4 }, () => stalledRequest(port, csvExport(), { Authorization: `Bearer ${user.token}` }));
    await untilStalled(
      () => serverSockets.slice(first),
      readers.length,
      () => queryCount,
    );
    for (const reader of readers) reader.socket.resetAndDestroy();
    await untilStalled(
      () => serverSockets.slice(first),
      readers.length,
      () => queryCount,
    );
    const afterGone = issueQueries - issueQueriesBefore;
    const complete = await stalledRequest(port, csvExport(), { Authorization: `Bearer ${user.token}` }).readToEnd();
    expect(complete.status).toBe(200);
    const oneExport = issueQueries - issueQueriesBefore - afterGone;
    // The four read a part each and no more: less than the whole report each.
    expect(afterGone).toBeLessThan(oneExport * readers.length);
    expect(log.text).not.toMatch(/"level":(50|60)/);
  });

  it('cuts a download short when the database fails mid-stream: no error answer after the 200, logged once', async () => {
    const first = serverSockets.length;
    const linesBefore = log.text.split('\n').length;
    const reader = stalledRequest(port, csvExport(), { Authorization: `Bearer ${user.token}` });
    await untilStalled(
      () => serverSockets.slice(first),
      1,
      () => queryCount,
    );
    await sql`alter table report_issues rename to report_issues_away`.execute(ctx.db);
    try {
      const chunks: Buffer[] = [];
      reader.socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      await new Promise((resolve) => {
        reader.socket.once('close', resolve);
        reader.socket.resume();
      });
      const text = Buffer.concat(chunks).toString('latin1');
      expect(text.startsWith('HTTP/1.1 200 OK\r\n')).toBe(true);
      // The chunked body never ends: the client can tell the download is incomplete.
      expect(text.endsWith('\r\n0\r\n\r\n')).toBe(false);
      expect(text).not.toContain('HTTP/1.1 500');
      await eventually(() => /after its headers were sent/.test(log.text));
      const logged = log.text
        .split('\n')
        .slice(linesBefore - 1)
        .filter(Boolean);
      expect(logged.filter((line) => /after its headers were sent/.test(line))).toHaveLength(1);
      expect(logged.filter((line) => /"statusCode":500/.test(line))).toEqual([]);
    } finally {
      await sql`alter table report_issues_away rename to report_issues`.execute(ctx.db);
    }
  });
});
