import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_PAGES } from '../../src/dashboard/dashboard-pages.js';
import { buildTestApp, type TestContext } from '../helpers/test-app.js';

/**
 * E7: the service serves the dashboard, a build of web/ (here a stand-in build in a temp folder):
 * index.html for every page, the hashed assets for a year, and nothing else changes for other paths.
 */
const INDEX_HTML = '<!doctype html><title>Scoreboard</title><script type="module" src="/assets/index-AbC123.js"></script>';
const PAGE_POLICY =
  "default-src 'self';script-src 'self';style-src 'self';img-src 'self' data:;connect-src 'self';font-src 'self';" +
  "object-src 'none';base-uri 'none';form-action 'self';frame-ancestors 'none'";

/** One URL per page, its parameters filled in. */
const PAGE_URLS = Object.values(DASHBOARD_PAGES).map((path) => path.replace(/:\w+/g, '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'));

describe('the dashboard, built', () => {
  let ctx: TestContext;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'scoreboard-web-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), INDEX_HTML);
    writeFileSync(join(root, 'assets', 'index-AbC123.js'), 'console.log("dashboard");\n');
    ctx = await buildTestApp({ deps: { dashboardRoot: root } });
  });
  afterAll(async () => {
    await ctx.close();
    rmSync(root, { recursive: true, force: true });
  });

  it.each(PAGE_URLS)('answers index.html for %s, revalidated on each load, under the pages’ policy', async (url) => {
    const response = await ctx.request({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-security-policy']).toBe(PAGE_POLICY);
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.body).toBe(INDEX_HTML);
  });

  it('answers a page with its query string too (/sign-in?next=...)', async () => {
    const response = await ctx.request({ method: 'GET', url: '/sign-in?next=%2Ftokens' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(INDEX_HTML);
  });

  it('serves the hashed assets for a year', async () => {
    const response = await ctx.request({ method: 'GET', url: '/assets/index-AbC123.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.body).toBe('console.log("dashboard");\n');
  });

  it.each([
    '/assets/index-missing.js',
    '/assets/../index.html',
    '/nothing',
    '/projects',
    '/projects/1/extra',
    '/api/v1/nothing',
    '/badges/nothing',
  ])('keeps the JSON 404 for %s', async (url) => {
    const response = await ctx.request({ method: 'GET', url });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ error: 'Not Found', message: 'The requested resource was not found.' });
  });

  it('leaves the API, /docs and /healthz as they were', async () => {
    expect((await ctx.request({ method: 'GET', url: '/api/v1/projects' })).statusCode).toBe(401);
    expect((await ctx.request({ method: 'GET', url: '/healthz' })).json()).toMatchObject({ status: 'ok' });
    const docs = await ctx.request({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-security-policy']).not.toBe(PAGE_POLICY);
  });
});

describe('the dashboard, not built', () => {
  let ctx: TestContext;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'scoreboard-web-missing-'));
    ctx = await buildTestApp({ deps: { dashboardRoot: join(root, 'not-there') } });
  });
  afterAll(async () => {
    await ctx.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('says so in JSON on every page, and the API still works', async () => {
    for (const url of ['/', '/sign-in']) {
      const response = await ctx.request({ method: 'GET', url });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({
        error: 'Service Unavailable',
        message: 'The dashboard was not built: run `npm run build` (or `npm install`), then restart the service.',
      });
    }
    expect((await ctx.request({ method: 'GET', url: '/assets/index-AbC123.js' })).statusCode).toBe(404);
    expect((await ctx.request({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
