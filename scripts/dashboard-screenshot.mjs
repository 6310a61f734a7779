// `npm run docs:screenshot`: regenerates docs/dashboard.png, the README's picture of the dashboard.
// A throwaway service (dist/: run `npm run build` first) on a temporary SQLite file, a user with a
// password, a project with six runs of the client package's real fixture, and Debian's Chromium
// (CHROMIUM_PATH to use another) signed in on the project page, 1440 px wide and tall enough to show
// the trend, the branches and the reports with their grades.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const ROOT = new URL('..', import.meta.url);
const OUTPUT = new URL('docs/dashboard.png', ROOT);
const FIXTURES = new URL('test/fixtures/client-wire/reports/', ROOT);
const FIXTURE_PROJECT_ID = '0190c8a0-0000-7000-8000-000000000001';
const EMAIL = 'ada@example.com';
const PASSWORD = 'a screenshot passphrase';

const { createApp } = await import('../dist/app.js');
const { loadConfig } = await import('../dist/config.js');
const { openDatabase } = await import('../dist/db/database.js');
const { migrateToLatest } = await import('../dist/migrate.js');
const { operatorFeatures } = await import('../dist/operator-features.js');
const { systemClock } = await import('../dist/clock.js');

const dir = mkdtempSync(join(tmpdir(), 'scoreboard-screenshot-'));
const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'scoreboard.db')}`, LOG_LEVEL: 'warn' });
const db = openDatabase(config);
const app = await createApp(config, { db });
let browser;
try {
  await migrateToLatest(db);
  const operator = operatorFeatures(db, systemClock);
  const { token } = await operator.accounts.createUser({
    email: EMAIL,
    name: 'Ada',
    plan: 'business',
    withTeam: true,
    abilities: ['read', 'write', 'admin'],
  });
  await operator.sessions.setPassword(EMAIL, PASSWORD);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });

  const created = await post(`${base}/api/v1/projects`, token, { name: 'Shop', framework_version: '12', description: 'The web shop' });
  const { project, api_token: apiToken } = created;
  // Six daily runs on main, each with one more problem fixed, so the trend has a line to draw.
  const small = readFileSync(new URL('report-small.json', FIXTURES), 'utf8').split(FIXTURE_PROJECT_ID).join(project.id);
  for (let run = 0; run < 6; run++) {
    const report = JSON.parse(small);
    report.analyzed_at = new Date(Date.now() - (6 - run) * 86_400_000).toISOString();
    const problems = report.results.filter((result) => result.status !== 'passed' && result.status !== 'skipped');
    for (const fixed of problems.slice(0, run)) Object.assign(fixed, { status: 'passed', issues: [] });
    await post(`${base}/api/reports`, apiToken, JSON.stringify(report));
  }

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1440, height: 1500 } });
  const projectPage = `/projects/${project.id}?branch=main`;
  await page.goto(`${base}/sign-in?next=${encodeURIComponent(projectPage)}`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}${projectPage}`);
  await page.locator('canvas').first().waitFor();
  await page.screenshot({ path: OUTPUT.pathname });
  console.log(`Wrote ${OUTPUT.pathname}`);
} finally {
  await browser?.close();
  await app.close();
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
}

/** POSTs JSON (or a JSON text) with a bearer token; returns the answer's body, or throws with it. */
async function post(url, token, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'user-agent': 'GuzzleHttp/7' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}
