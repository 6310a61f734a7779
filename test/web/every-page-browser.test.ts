import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { ok } from '../cli/cli-process.js';
import { CLIENT_POST_HEADERS, type FixtureName, loadFixture } from '../helpers/client-wire.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { addJira } from '../stand-ins/jira.js';
import { startStandIn } from '../stand-ins/stand-in-server.js';
import { dashboardTest, expectAccessible, hasChromium, screenshot, startDashboardWorld, warnWithoutChromium } from './dashboard-browser.js';

/**
 * Issue 31 items 6 and 7 in Chromium: every page of the dashboard, filled with what makes a page
 * wide (a long email, a long branch, pull requests, failed runs, a webhook's deliveries, audit
 * events, a team's connection, a project's tracker and an issue's ticket), at 375 and at 1440 px: the page never scrolls sideways, axe-core finds no serious or
 * critical violation in light or in dark mode, and screenshots of each are taken at both widths in both.
 */
warnWithoutChromium('every page at both widths browser test');

const REPOSITORY = 'https://github.com/acme/shop';
const LONG_EMAIL = 'maximiliana.quality-assurance-lead@engineering.subsidiary-of-a-very-long-company-name.example';
const LONG_BRANCH = 'feature/checkout-hardening-with-a-branch-name-far-longer-than-any-screen-is-wide';
const DELIVERY_WAIT_MS = 60_000;

interface Site {
  projectId: string;
  teamId: number;
  reportId: string;
}

const it = dashboardTest
  // The webhook's receiver listens on 127.0.0.1, which the server refuses unless told otherwise.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern
  .override('world', { scope: 'file' }, async ({}, { onCleanup }) => {
    const world = await startDashboardWorld({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    onCleanup(() => world.close());
    return world;
  })
  /** Once for the file: Ada signed in, her project with reports of main and of a pull request, failed runs, a webhook with deliveries, a token and an invitation. */
  .extend('site', { scope: 'file' }, async ({ world, base, page, signInThrough }, { onCleanup }): Promise<Site> => {
    const receiver = await startReceiver();
    // E9.6: a Jira stand-in (on 127.0.0.1 too) for the team's connection and an issue's ticket.
    const jira = await startStandIn();
    onCleanup(async () => {
      await receiver.close();
      await jira.close();
    });
    await ok(world.sandbox, 'users:plan', '--email', world.user.email, '--plan', 'business');
    await signInThrough(page, '/profile', world.user);
    const session = (await (await page.request.get(`${base}/api/v1/session`)).json()).data;
    const headers = { 'x-csrf-token': session.csrf_token as string };
    const post = async (path: string, data: unknown) => {
      const answer = await page.request.post(`${base}${path}`, { headers, data });
      expect(answer.status(), `${path}: ${await answer.text()}`).toBeLessThan(300);
      return answer.json();
    };

    const created = await post('/api/v1/projects', {
      name: 'Shop',
      framework_version: '11',
      description: 'The web shop, its checkout and its back office',
      repository_url: REPOSITORY,
    });
    const projectId: string = created.project.id;
    const hooks = `/api/v1/projects/${projectId}/webhooks`;
    await post(hooks, { url: `${receiver.url}/hooks/scoreboard/a-rather-long-path`, events: ['report.created'] });

    const upload = async (fixture: FixtureName, git: Record<string, string>, analyzedAt: string) => {
      const report = loadFixture(fixture, projectId);
      report.metadata = { ...report.metadata, pr_number: undefined, base_branch: undefined, ...git };
      report.analyzed_at = analyzedAt;
      const answer = await fetch(`${base}/api/reports`, {
        method: 'POST',
        headers: { ...CLIENT_POST_HEADERS, authorization: `Bearer ${created.api_token}` },
        body: JSON.stringify(report),
      });
      expect(answer.status).toBe(201);
      return ((await answer.json()) as { report: { uuid: string } }).report.uuid;
    };
    await upload('report-small', { git_branch: 'main', git_commit: '1'.repeat(40) }, '2026-11-20T08:00:00Z');
    const pr = { git_branch: LONG_BRANCH, pr_number: '482', base_branch: 'main' };
    const reportId = await upload('report-full', { ...pr, git_commit: '2'.repeat(40) }, '2026-11-21T10:00:00Z');
    const failure = loadFixture('failure', projectId);
    const failed = await fetch(`${base}/api/reports/failure`, {
      method: 'POST',
      headers: { ...CLIENT_POST_HEADERS, authorization: `Bearer ${created.api_token}` },
      body: JSON.stringify(failure),
    });
    expect(failed.status).toBe(201);
    await receiver.waitFor(2, DELIVERY_WAIT_MS);

    await post('/api/v1/tokens', { name: 'Deploy pipeline of the back office (read only)', abilities: ['read'] });
    const teamId: number = (await (await page.request.get(`${base}/api/v1/user`)).json()).data.current_team_id;
    await post(`/api/v1/teams/${teamId}/invitations`, { email: LONG_EMAIL, role: 'member' });

    // E9.6: a Jira connection (the stand-in on 127.0.0.1) linked as the project's tracker, and one issue's ticket.
    addJira(jira, { email: 'ada@example.com', api_token: 'ATATT-every-page-0042', displayName: 'Ada' });
    jira.route('POST', '/rest/api/3/issue', () => ({
      status: 201,
      body: { id: '10000', key: 'SHOP-1', self: `${jira.url}/rest/api/3/issue/10000` },
    }));
    const connection = await post(`/api/v1/teams/${teamId}/connections`, {
      provider: 'jira',
      name: 'Jira of the checkout and back-office teams',
      base_url: jira.url,
      credentials: { email: 'ada@example.com', api_token: 'ATATT-every-page-0042' },
    });
    const put = async (path: string, data: unknown) => {
      const answer = await page.request.put(`${base}${path}`, { headers, data });
      expect(answer.status(), `${path}: ${await answer.text()}`).toBe(200);
    };
    await put(`/api/v1/projects/${projectId}`, {
      name: 'Shop',
      framework_version: '11',
      settings: { ticket_target_project_key: 'SHOP', ticket_target_project_name: 'The web shop and its back office' },
    });
    await put(`/api/v1/projects/${projectId}/tracker`, { connection_id: connection.data.id });
    const issues = await (await page.request.get(`${base}/api/v1/projects/${projectId}/issues`)).json();
    await post(`/api/v1/projects/${projectId}/issues/${issues.data[0].fingerprint}/ticket`, {});
    return { projectId, teamId, reportId };
  });

/**
 * How far the page scrolls sideways (0: not at all) and, when it does, the innermost elements that
 * reach past the window's right edge, to say what to fix.
 */
function overflow(page: Page) {
  return page.evaluate(() => {
    const extra = document.scrollingElement!.scrollWidth - window.innerWidth;
    if (extra <= 0) return { extra: 0, culprits: [] };
    const past = (element: Element) => element.getBoundingClientRect().right > window.innerWidth + 0.5;
    const culprits = [...document.body.querySelectorAll('*')]
      .filter((element) => past(element) && ![...element.children].some(past))
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join('.')} "${element.textContent?.slice(0, 40)}"`);
    return { extra, culprits };
  });
}

/** `ready`: what shows once the page has its data. */
async function checkPage(page: Page, name: string, ready: (page: Page) => Promise<unknown>): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [375, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await ready(page);
      const fits = async () => {
        const { extra, culprits } = await overflow(page);
        return extra === 0 ? 'fits' : `${extra} px too wide: ${culprits.join('; ')}`;
      };
      await expect.poll(fits, { message: `${name} at ${width} px` }).toBe('fits');
      await expectAccessible(page, `${name} at ${width} px, ${scheme}`);
    }
    await screenshot(page, scheme === 'light' ? `every-${name}` : `every-${name}-dark`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

const h1 = (text: string | RegExp) => (page: Page) => page.getByRole('heading', { name: text, level: 1 }).waitFor();

describe.skipIf(!hasChromium)('every page at 375 and 1440 px in Chromium', () => {
  it('signs in on a page that fits both widths', async ({ world, base }) => {
    const page = await (await world.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await page.goto(`${base}/sign-in`);
    await checkPage(page, 'sign-in', h1('Sign in'));
    await page.context().close();
  });

  it('lists the projects, and makes a new one', async ({ base, page, site }) => {
    expect(site.projectId).not.toBe('');
    await page.goto(`${base}/`);
    await checkPage(page, 'projects', (page) => page.locator('.project .grade').waitFor());
    await page.goto(`${base}/projects/new`);
    await checkPage(page, 'new-project', h1('New project'));
  });

  it('shows the project with its deliveries: Redeliver within reach at 375 px', async ({ base, page, site }) => {
    await page.goto(`${base}/projects/${site.projectId}`);
    await page.locator('.project-reports tbody tr').first().waitFor();
    await page.getByRole('button', { name: 'Show deliveries' }).click();
    const redeliver = page.getByRole('button', { name: /^Redeliver the report\.created of / }).first();
    await checkPage(page, 'project', () => redeliver.waitFor());
    await page.setViewportSize({ width: 375, height: 900 });
    const box = (await redeliver.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    // The branch selects stay inside their cards.
    for (const select of await page.locator('main select').all()) {
      const { x, width } = (await select.boundingBox())!;
      expect(x + width, 'a select wider than the screen').toBeLessThanOrEqual(375);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('shows the pull requests and the failed runs', async ({ base, page, site }) => {
    await page.goto(`${base}/projects/${site.projectId}/pull-requests`);
    await checkPage(page, 'pull-requests', (page) => page.locator('.pull-requests tbody tr').first().waitFor());
    await page.goto(`${base}/projects/${site.projectId}/failed-runs`);
    await checkPage(page, 'failed-runs', (page) => page.locator('.failed-run').first().waitFor());
  });

  for (const tab of ['overview', 'new', 'fixed', 'issues', 'suppressed', 'failed']) {
    it(`shows the report’s ${tab} section`, async ({ base, page, site }) => {
      await page.goto(`${base}/reports/${site.reportId}?tab=${tab}`);
      await checkPage(page, `report-${tab}`, async (page) => {
        await h1(/^Report of /)(page);
        await page.locator('.report-sections [aria-current="page"]').waitFor();
        await page.waitForLoadState('networkidle');
      });
    });
  }

  it('shows the report’s issues with the action panel open, the project’s issues and the issues assigned to me', async ({
    base,
    page,
    site,
  }) => {
    await page.goto(`${base}/reports/${site.reportId}?tab=issues`);
    const first = page.locator('section.triage-scope .issue').first();
    await first.locator('.triage-open').click();
    await checkPage(page, 'report-triage-panel', () => page.getByRole('region', { name: 'Set the status of this issue' }).waitFor());
    // The panel for an acceptance: its expiry too.
    await page.getByRole('region', { name: 'Set the status of this issue' }).getByLabel('Status').selectOption('accepted');
    await page.getByRole('region', { name: 'Set the status of this issue' }).getByRole('button', { name: 'Save the status' }).click();
    await page.locator('#field-comment-errors').waitFor();
    await checkPage(page, 'report-triage-panel-accepted', () => page.getByLabel('Accepted until (optional)').waitFor());
    await page.getByLabel('Reason (required)').fill('Known and accepted until the checkout rewrite lands in the spring release.');
    await page.getByLabel('Assignee').selectOption({ label: 'Ada (me)' });
    await page.getByRole('button', { name: 'Save the status' }).click();
    await page.getByText('Saved: the issue is now accepted, assigned to Ada.').first().waitFor();
    await page.goto(`${base}/reports/${site.reportId}?tab=issues&state=dismissed`);
    await checkPage(page, 'report-dismissed', (page) => page.locator('section.triage-scope .issue .status-accepted').waitFor());

    await page.goto(`${base}/projects/${site.projectId}/issues`);
    await checkPage(page, 'project-issues', (page) => page.locator('.issue').first().waitFor());
    await page.goto(`${base}/assigned-to-me`);
    await checkPage(page, 'assigned-to-me', (page) => page.locator('.issue').first().waitFor());
  });

  it('shows the tokens, the team, the invitations and the profile', async ({ base, page, site }) => {
    await page.goto(`${base}/tokens`);
    await checkPage(page, 'tokens', (page) =>
      page.getByRole('heading', { name: 'Deploy pipeline of the back office (read only)' }).waitFor(),
    );
    await page.goto(`${base}/teams/${site.teamId}`);
    await checkPage(page, 'team', (page) => page.getByText(LONG_EMAIL).first().waitFor());
    // E9.6: a connection checked, its answer beside it.
    await page.getByRole('button', { name: 'Check Jira of the checkout and back-office teams' }).click();
    await checkPage(page, 'team-connection-checked', (page) => page.getByText('Check passed: Connected as Ada.').waitFor());
    await page.goto(`${base}/invitations`);
    await checkPage(page, 'invitations', h1('Invitations'));
    await page.goto(`${base}/profile`);
    await checkPage(page, 'profile', h1('Profile'));
  });

  it('shows the audit log, its "When" on one line at both widths', async ({ base, page }) => {
    await page.goto(`${base}/audit`);
    const when = page.locator('.audit-when time').first();
    await checkPage(page, 'audit', () => when.waitFor());
    for (const width of [375, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      const lines = await when.evaluate((element) => element.getClientRects().length);
      expect(lines, `"When" at ${width} px`).toBe(1);
    }
  });
});
