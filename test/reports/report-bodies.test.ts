import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acceptsGzip } from '../../src/http/content-coding.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { UPLOAD_MAX_ISSUES } from '../../src/reports/upload/process-upload.js';
import { givenUploader, result, uploadBody } from '../helpers/reports-world.js';
import { loadFixture, upload, uploadOk } from '../helpers/client-wire.js';

/**
 * D28 over HTTP: each report's answer is stored once, compressed, at upload; a read sends it as it
 * is to a client that takes gzip and inflated to one that does not; a stored answer never outlives
 * what it shows; uploads are prepared on worker threads, with the same outcome as on the event
 * loop, and a full pool answers 503.
 */
describe('report answers stored compressed, uploads off the event loop (D28)', () => {
  let ctx: TestContext;
  let user: TestUser;
  let projectId: string;
  let apiToken: string;

  const start = async (env?: Record<string, string>) => {
    ctx = await buildTestApp({ env });
    ({ user, projectId, apiToken } = await givenUploader(ctx));
  };
  afterEach(async () => ctx.close());

  const read = (uuid: string, headers: Record<string, string> = {}) =>
    ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}`, token: user.token, headers });
  const storedBodies = async () => (await ctx.db.selectFrom('report_bodies').select(['report_id']).execute()).length;

  describe('reading', () => {
    beforeEach(() => start());

    it('sends the stored gzip to a client that accepts it, and the same JSON inflated to one that does not', async () => {
      // report-large: an answer of some 5 MB, read from the database in pieces and inflated as sent.
      for (const name of ['report-full', 'report-large'] as const) {
        const { report } = await uploadOk(ctx, apiToken, loadFixture(name, projectId));
        const plain = await read(report.uuid);
        expect(plain.statusCode).toBe(200);
        expect(plain.headers['content-encoding']).toBeUndefined();
        expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(plain.headers.vary).toMatch(/accept-encoding/i);
        const zipped = await read(report.uuid, { 'accept-encoding': 'gzip, deflate, br' });
        expect(zipped.statusCode).toBe(200);
        expect(zipped.headers['content-encoding']).toBe('gzip');
        expect(Number(zipped.headers['content-length'])).toBe(zipped.rawPayload.length);
        expect(gunzipSync(zipped.rawPayload).toString('utf8')).toBe(plain.body);
        expect(plain.json().data.uuid).toBe(report.uuid);
        expect(plain.json().data.total_issues).toBe(report.total_issues);
      }
    });

    it("stores and answers a client's 1e309 (Infinity in JSON) in a line, a column or an execution time", async () => {
      // Found by the fuzz campaign: the stored text keeps Infinity as null, which the answer's schema
      // refuses; a line or column must be a finite number to be kept at all.
      const payload =
        '{"total_execution_time":1e309,"results":[{"analyzer_id":"a","status":"failed","execution_time":1e309,' +
        '"issues":[{"message":"x","severity":"critical","location":{"file":"a.php","line":1e309,"column":1e309}}]}]}';
      const uploaded = await ctx.app.inject({
        method: 'POST',
        url: '/api/reports',
        headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
        payload,
      });
      expect(uploaded.statusCode).toBe(201);
      const detail = (await read(uploaded.json().report.uuid)).json().data;
      expect(detail.results[0].issues[0].location).toEqual({ file: 'a.php' });
    });

    it('honours a refusal of gzip (q=0) and a wildcard', async () => {
      const { report } = await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'failed', ['high'])]));
      expect((await read(report.uuid, { 'accept-encoding': 'gzip;q=0, identity' })).headers['content-encoding']).toBeUndefined();
      expect((await read(report.uuid, { 'accept-encoding': '*' })).headers['content-encoding']).toBe('gzip');
    });

    it('stores the answer at upload, the same text a read builds for a report that has none (stored before D28)', async () => {
      // Every recorded fixture, each twice: the second run has a baseline, its issues new or unchanged.
      const uuids: string[] = [];
      for (const [run, name] of (['report-small', 'report-php-quirks', 'report-full', 'report-large', 'report-large'] as const).entries()) {
        // Each its own run: the same body twice would be a retry of the first, stored once (D40).
        uuids.push((await uploadOk(ctx, apiToken, { ...loadFixture(name, projectId), total_execution_time: run + 1 })).report.uuid);
      }
      // And a report without results: its answer's results are the template's brackets alone.
      uuids.push((await uploadOk(ctx, apiToken, uploadBody([]))).report.uuid);
      expect(await storedBodies()).toBe(uuids.length);
      const atUpload = await Promise.all(uuids.map(async (uuid) => (await read(uuid)).body));
      expect(JSON.parse(atUpload[4]!).data.changes.unchanged).toBeGreaterThan(3000);
      await ctx.db.deleteFrom('report_bodies').execute();
      for (const [i, uuid] of uuids.entries()) expect((await read(uuid)).body).toBe(atUpload[i]);
      expect(await storedBodies()).toBe(uuids.length);
    });

    it('shows no baseline once the baseline is deleted: the stored answer that showed it is forgotten', async () => {
      const first = (await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'failed', ['high'])]))).report;
      const second = (
        await uploadOk(ctx, apiToken, {
          ...uploadBody([result('csrf-protection', 'failed', ['high', 'low'])]),
          analyzed_at: '2026-11-21T10:00:00Z',
        })
      ).report;
      expect((await read(second.uuid)).json().data.changes.baseline.uuid).toBe(first.uuid);
      const deleted = await ctx.request({ method: 'DELETE', url: `/api/v1/reports/${first.uuid}`, token: user.token });
      expect(deleted.statusCode).toBe(200);
      const after = (await read(second.uuid)).json().data;
      expect(after.changes.baseline).toBeNull();
      // The counts and each issue's change were recorded against it at upload (E1.4) and stay.
      expect(after.changes.new).toBe(1);
      expect(after.results[0].issues.map((issue: { change: string }) => issue.change)).toEqual(['unchanged', 'new']);
    });
  });

  it('acceptsGzip reads Accept-Encoding as RFC 9110 does', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('x-gzip')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('*;q=0')).toBe(false);
    expect(acceptsGzip('gzip;q=0, *')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
  });

  describe('uploads on worker threads', () => {
    /** What an upload stored, without what differs between two uploads (uuid, times). */
    const comparable = (detail: Record<string, any>) => {
      const { uuid: _uuid, created_at: _created, project_id: _project, ...rest } = detail;
      const baseline = rest.changes.baseline && { ...rest.changes.baseline, uuid: 'the previous upload' };
      return { ...rest, changes: { ...rest.changes, baseline } };
    };

    it('stores exactly what the event loop stores, for every fixture the client recorded', async () => {
      const names = ['report-small', 'report-full', 'report-php-quirks', 'report-large'] as const;
      const answers = async () => {
        const stored: Record<string, unknown>[] = [];
        for (const name of names) {
          const { report } = await uploadOk(ctx, apiToken, loadFixture(name, projectId));
          stored.push(comparable((await read(report.uuid)).json().data));
        }
        return stored;
      };
      await start({ WORKER_THREADS: '0' });
      const onLoop = await answers();
      await ctx.close();
      await start({ WORKER_INLINE_MAX_BYTES: '0' });
      expect(await answers()).toEqual(onLoop);
    });

    it('answers malformed, non-object and invalid bodies as on the event loop, in D4 order', async () => {
      await start({ WORKER_INLINE_MAX_BYTES: '0' });
      const send = (payload: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/api/reports',
          headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
          payload,
        });
      const malformed = await send('{"results": [');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toMatchObject({ success: false, message: 'The request body is not valid JSON.' });
      expect((await send('[]')).json()).toMatchObject({ success: false, message: 'The request body must be a JSON object.' });
      const invalid = await send('{"results": [{"analyzer_id": "", "status": "fine"}]}');
      expect(invalid.statusCode).toBe(422);
      expect(Object.keys(invalid.json().errors).sort()).toEqual(['results.0.analyzer_id', 'results.0.status']);
      // An archived project's 409 comes before the body's 422 (CLIENT-WIRE.md order).
      await ctx.db.updateTable('projects').set({ archived_at: '2026-11-20T00:00:00Z' }).where('id', '=', projectId).execute();
      expect((await send('{"results": "nope"}')).statusCode).toBe(409);
    });

    it('answers 503 with Retry-After when the pool is full, and stores nothing of what it refused', async () => {
      await start({ WORKER_THREADS: '1', WORKER_QUEUE_MAX: '1', WORKER_INLINE_MAX_BYTES: '0' });
      const body = loadFixture('report-large', projectId);
      // Six runs, not one sent six times (that would be stored once, D40).
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, run) => upload(ctx, apiToken, { ...body, total_execution_time: run + 1 })),
      );
      const statuses = answers.map((answer) => answer.statusCode);
      expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
      const refused = answers.filter((answer) => answer.statusCode === 503);
      expect(refused.length).toBeGreaterThan(0);
      expect(statuses).toContain(201);
      for (const answer of refused) {
        expect(answer.headers['retry-after']).toBe('5');
        expect(answer.json()).toEqual({
          success: false,
          error: 'Service Unavailable',
          message: 'The service is busy with other large reports. Please try again in a few seconds.',
          retry_after: 5,
        });
      }
      const stored = await ctx.db.selectFrom('reports').select('id').where('project_id', '=', projectId).execute();
      expect(stored).toHaveLength(statuses.filter((status) => status === 201).length);
    });

    it('refuses a body of millions of tiny values as too costly (413) before parsing it, on a thread or not, and goes on working', async () => {
      // 9.7 MiB of empty objects: some 3.4 million of them, far beyond any report's needs; parsed, they
      // would take a thread near its heap's cap (heavy-work.ts), which may end the whole process.
      const payload = `{"results":[],"metadata":{"x":[${'{},'.repeat(3_400_000)}{}]}}`;
      for (const [i, env] of ([{ WORKER_INLINE_MAX_BYTES: '0' }, { WORKER_THREADS: '0' }] as Record<string, string>[]).entries()) {
        if (i > 0) await ctx.close();
        await start(env);
        const answer = await ctx.app.inject({
          method: 'POST',
          url: '/api/reports',
          headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
          payload,
        });
        expect(answer.statusCode).toBe(413);
        expect(answer.json()).toEqual({
          success: false,
          error: 'Payload Too Large',
          message: 'The request body takes more memory to process than a report may use.',
        });
        expect(await ctx.db.selectFrom('reports').select('id').execute()).toEqual([]);
        await uploadOk(ctx, apiToken, loadFixture('report-large', projectId));
      }
    });

    it('refuses more issues than a report may have (413), counted once the body is valid', async () => {
      await start({ WORKER_INLINE_MAX_BYTES: '0' });
      // Two results: one may have 100,000 issues at most (the schema's own limit, a 422).
      const issues = (count: number) => Array.from({ length: count }, () => '{"message":"","severity":"low"}').join(',');
      const half = UPLOAD_MAX_ISSUES / 2;
      const answer = await ctx.app.inject({
        method: 'POST',
        url: '/api/reports',
        headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
        payload:
          `{"results":[{"analyzer_id":"a","status":"failed","issues":[${issues(half)}]},` +
          `{"analyzer_id":"b","status":"failed","issues":[${issues(half + 1)}]}]}`,
      });
      expect(answer.statusCode).toBe(413);
      expect(answer.json()).toEqual({
        success: false,
        error: 'Payload Too Large',
        message: 'The request body takes more memory to process than a report may use.',
      });
      await uploadOk(ctx, apiToken, loadFixture('report-full', projectId));
    });
  });
});
