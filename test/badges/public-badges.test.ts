/**
 * E2.3 over HTTP: the public badges under `/badges/{key}/` — no token, the badge key in the URL is
 * all they need. Score colours at every threshold, the gate from the stored gate (none for a report
 * stored before gates), shields.io's endpoint JSON, caching (Cache-Control, strong ETag, 304 per RFC
 * 9110), 404 for an unknown key, an archived project still served, text that stays inert, and the
 * headers that let other sites show the image.
 */
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectNotFound } from '../helpers/contract.js';
import { result, setGate, uploadBody } from '../helpers/reports-world.js';
import { uploadOk } from '../helpers/client-wire.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';

const SVG = 'image/svg+xml; charset=utf-8';
const JSON_UTF8 = 'application/json; charset=utf-8';
const FILES = ['score.svg', 'gate.svg', 'score.json'] as const;

/** What a rendered badge says: its title and the fill of its message box. */
function shown(response: LightMyRequestResponse): { title: string; fill: string } {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toBe(SVG);
  const title = /<title>([^<]*)<\/title>/.exec(response.body)?.[1];
  const fill = /<rect x="\d+" width="\d+" height="20" fill="(#[0-9a-f]+)"\/>/.exec(response.body)?.[1];
  return { title: title!, fill: fill! };
}

/** D8's headers, on the badge key's budget (E2.3: 600 a minute). */
function expectBadgeRateHeaders(response: LightMyRequestResponse): void {
  expect(response.headers['x-ratelimit-limit']).toBe('600');
  expect(response.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
}

describe('public badges (E2.3)', () => {
  let ctx: TestContext;
  let user: TestUser;
  let projectId: string;
  let apiToken: string;
  let key: string;
  let minute = 0;
  beforeEach(async () => {
    ctx = await buildTestApp();
    user = await ctx.given.user({ plan: 'business' });
    ({
      project: { id: projectId },
      apiToken,
    } = await ctx.given.project(user, { name: 'Shop' }));
    key = await keyOf(projectId);
    minute = 0;
  });
  afterEach(async () => ctx.close());

  const keyOf = async (id: string) =>
    (await ctx.db.selectFrom('projects').select('badge_key').where('id', '=', id).executeTakeFirstOrThrow()).badge_key;
  const badge = (file: string, options: { key?: string; headers?: Record<string, string>; method?: 'GET' | 'HEAD' } = {}) =>
    ctx.request({ method: options.method ?? 'GET', url: `/badges/${options.key ?? key}/${file}`, headers: options.headers });
  /** A report of `projectId`, analysed a minute after the previous one (so it is the latest, D19), with no gate recorded. */
  const report = (score: number, id = projectId) => {
    minute += 1;
    const at = new Date(Date.UTC(2026, 10, 21, 8, minute)).toISOString();
    return ctx.given.report(id, { score, analyzed_at: at, created_at: at });
  };

  describe('score.svg and score.json', () => {
    it('say none in lightgrey before the project has a report', async () => {
      expect(shown(await badge('score.svg'))).toEqual({ title: 'score: none', fill: '#9f9f9f' });
      const json = await badge('score.json');
      expect(json.statusCode).toBe(200);
      expect(json.headers['content-type']).toBe(JSON_UTF8);
      expect(json.json()).toEqual({ schemaVersion: 1, label: 'score', message: 'none', color: 'lightgrey' });
    });

    it.each([
      [100, 'brightgreen', '#4c1'],
      [90, 'brightgreen', '#4c1'],
      [89, 'green', '#97ca00'],
      [75, 'green', '#97ca00'],
      [74, 'yellow', '#dfb317'],
      [60, 'yellow', '#dfb317'],
      [59, 'orange', '#fe7d37'],
      [40, 'orange', '#fe7d37'],
      [39, 'red', '#e05d44'],
      [0, 'red', '#e05d44'],
    ])('show a latest score of %i in %s', async (score, color, hex) => {
      await report(score);
      expect(shown(await badge('score.svg'))).toEqual({ title: `score: ${score}`, fill: hex });
      expect((await badge('score.json')).json()).toEqual({ schemaVersion: 1, label: 'score', message: String(score), color });
    });

    it("follow the project's latest report (D19): the latest analysis, not the latest upload; the next one once it is deleted", async () => {
      const older = await report(95);
      const latest = await report(45);
      // Stored last, analysed first: not the latest.
      await ctx.given.report(projectId, { score: 10, analyzed_at: '2026-11-20T00:00:00.000Z', created_at: '2026-11-21T09:59:00.000Z' });
      expect(shown(await badge('score.svg')).title).toBe('score: 45');

      await ctx.given.deleteReport(latest, projectId);
      expect(shown(await badge('score.svg')).title).toBe('score: 95');
      await ctx.given.deleteReport(older, projectId);
      expect(shown(await badge('score.svg')).title).toBe('score: 10');
    });

    it("shows the score as stored, from the upload's own summary", async () => {
      // Two analyzers, one passed and one failed: the service computes the score itself.
      const answer = await uploadOk(
        ctx,
        apiToken,
        uploadBody([result('csrf-protection', 'passed'), result('sql-injection', 'failed', ['high'])]),
      );
      expect(shown(await badge('score.svg')).title).toBe(`score: ${answer.report.score}`);
    });
  });

  describe('gate.svg', () => {
    it('says none in lightgrey before the project has a report', async () => {
      expect(shown(await badge('gate.svg'))).toEqual({ title: 'gate: none', fill: '#9f9f9f' });
    });

    it('says none for a latest report stored before gates were recorded (gate null, E1.8)', async () => {
      await report(100);
      expect(shown(await badge('gate.svg'))).toEqual({ title: 'gate: none', fill: '#9f9f9f' });
    });

    it("says failed in red, then passed in brightgreen, from the latest upload's stored gate", async () => {
      await setGate(ctx, user, projectId, { fail_on: 'critical' });
      const failed = await uploadOk(ctx, apiToken, uploadBody([result('sql-injection', 'failed', ['critical'])]));
      expect(failed.gate.passed).toBe(false);
      expect(shown(await badge('gate.svg'))).toEqual({ title: 'gate: failed', fill: '#e05d44' });

      const passed = await uploadOk(
        ctx,
        apiToken,
        uploadBody([result('sql-injection', 'passed')], { analyzed_at: '2026-11-21T09:30:00+00:00' }),
      );
      expect(passed.gate.passed).toBe(true);
      expect(shown(await badge('gate.svg'))).toEqual({ title: 'gate: passed', fill: '#4c1' });
    });
  });

  describe('caching: Cache-Control, a strong ETag, 304 (RFC 9110)', () => {
    it.each(FILES)('%s: max-age=300 and the quoted SHA-256 of the body as a strong ETag', async (file) => {
      await report(77);
      const response = await badge(file);
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('max-age=300');
      const expected = `"${createHash('sha256').update(response.rawPayload).digest('base64url')}"`;
      expect(response.headers.etag).toBe(expected);
      // The same badge gives the same tag again (and on every instance: it depends on the bytes only).
      expect((await badge(file)).headers.etag).toBe(expected);
    });

    it.each(FILES)('%s: 304 without a body for a matching If-None-Match, with the ETag and Cache-Control', async (file) => {
      await report(77);
      const { etag } = (await badge(file)).headers;
      const revalidated = await badge(file, { headers: { 'if-none-match': String(etag) } });
      expect(revalidated.statusCode).toBe(304);
      expect(revalidated.body).toBe('');
      expect(revalidated.headers.etag).toBe(etag);
      expect(revalidated.headers['cache-control']).toBe('max-age=300');
      expect(revalidated.headers['content-type']).toBeUndefined();
      expectBadgeRateHeaders(revalidated);
    });

    it('compares weakly, reads lists and `*`, and answers 200 to a tag that does not match', async () => {
      await report(77);
      const etag = String((await badge('score.svg')).headers.etag);
      const status = async (field: string) => (await badge('score.svg', { headers: { 'if-none-match': field } })).statusCode;
      expect(await status(`W/${etag}`)).toBe(304);
      expect(await status(`"stale", ${etag}`)).toBe(304);
      expect(await status('*')).toBe(304);
      expect(await status('"stale"')).toBe(200);
      expect(await status(etag.slice(1, -1))).toBe(200);
    });

    it('changes the ETag when the badge changes: the old one gets the new badge', async () => {
      await report(77);
      const before = String((await badge('score.svg')).headers.etag);
      await report(91);
      const after = await badge('score.svg', { headers: { 'if-none-match': before } });
      expect(shown(after)).toEqual({ title: 'score: 91', fill: '#4c1' });
      expect(after.headers.etag).not.toBe(before);
    });

    it('answers HEAD like GET, without the body, and 304 to a matching HEAD', async () => {
      const get = await badge('score.svg');
      const head = await badge('score.svg', { method: 'HEAD' });
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers.etag).toBe(get.headers.etag);
      expect(head.headers['content-type']).toBe(SVG);
      expect(head.headers['content-length']).toBe(get.headers['content-length']);
      const conditional = await badge('score.svg', { method: 'HEAD', headers: { 'if-none-match': String(get.headers.etag) } });
      expect(conditional.statusCode).toBe(304);
    });
  });

  describe('unknown keys', () => {
    it.each(FILES)('%s: 404 in the D3 envelope for a well-formed key no project has', async (file) => {
      const response = await badge(file, { key: 'A'.repeat(32) });
      expectNotFound(response);
      expectBadgeRateHeaders(response);
    });

    it('404 for keys of another shape, another case, or a deleted project; `*` does not make them match', async () => {
      const lowered = key.toLowerCase() === key ? key.toUpperCase() : key.toLowerCase();
      for (const other of [lowered, key.slice(1), `${key}x`, 'x'.repeat(8000), '%00', `${key.slice(0, 31)}.`, projectId]) {
        expectNotFound(await badge('score.svg', { key: other, headers: { 'if-none-match': '*' } }));
      }
      await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${projectId}`, token: user.token });
      expectNotFound(await badge('score.svg'));
    });

    it('serves only the three files: another name is 404, another method 405', async () => {
      expectNotFound(await badge('score.png'));
      expectNotFound(await ctx.request({ method: 'GET', url: `/badges/${key}` }));
      const posted = await ctx.request({ method: 'POST', url: `/badges/${key}/score.svg`, body: {} });
      expect(posted.statusCode).toBe(405);
      expect(posted.headers.allow).toBe('GET, HEAD');
    });
  });

  it("serves an archived project's badges (D17: archived projects stay readable)", async () => {
    await report(82);
    const archived = await ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/archive`, token: user.token });
    expect(archived.statusCode).toBe(200);
    expect(shown(await badge('score.svg'))).toEqual({ title: 'score: 82', fill: '#97ca00' });
    expect(shown(await badge('gate.svg')).title).toBe('gate: none');
    expect((await badge('score.json')).json().message).toBe('82');
  });

  it('keeps a project named `<script>alert(1)</script>` inert: no script in any badge', async () => {
    const { project } = await ctx.given.project(user, { name: '<script>alert(1)</script>', description: '"><svg onload=alert(1)>' });
    await report(50, project.id);
    const hostileKey = await keyOf(project.id);
    for (const file of FILES) {
      const response = await badge(file, { key: hostileKey });
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toMatch(/<script|onload|alert/i);
    }
  });

  it('needs no token, and a token changes nothing', async () => {
    await report(66);
    const anonymous = await badge('score.svg');
    const withToken = await ctx.request({ method: 'GET', url: `/badges/${key}/score.svg`, token: user.token });
    const withGarbage = await ctx.request({ method: 'GET', url: `/badges/${key}/score.svg`, token: 'not-a-token' });
    for (const response of [withToken, withGarbage]) {
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(anonymous.body);
    }
  });

  it('lets other sites show the image (CORP cross-origin) and keeps the rest of the API policy', async () => {
    for (const response of [await badge('score.svg'), await badge('score.json'), await badge('score.svg', { key: 'B'.repeat(32) })]) {
      expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(String(response.headers['content-security-policy'])).toContain("default-src 'none'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-powered-by']).toBeUndefined();
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('checks the Host header after counting the request (D24): 400 in the envelope', async () => {
    const response = await badge('score.svg', { headers: { host: 'bad host!' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'Bad Request' });
    expectBadgeRateHeaders(response);
  });
});
