import { describe, expect } from 'vitest';
import { CLIENT_POST_HEADERS, type FixtureName, loadFixture } from '../helpers/client-wire.js';
import { dashboardTest, expectAccessible, hasChromium, screenshot, warnWithoutChromium } from './dashboard-browser.js';

/** The project the first test creates, which the helpers below address. */
let projectId: string;
let token: string;

const REPOSITORY = 'https://github.com/acme/shop';
/** The failure fixture's message: what a person must be able to read on the project page. */
const REFUSED = 'SQLSTATE[HY000] [2002] Connection refused';

interface Git {
  git_branch: string;
  git_commit: string;
  pr_number?: string;
  base_branch?: string;
}

const it = dashboardTest
  /** The client package's upload of a real fixture with this git context, analyzed at `analyzedAt`. */
  .extend('upload', ({ base }) => async (fixture: FixtureName, git: Git, analyzedAt: string) => {
    const report = loadFixture(fixture, projectId);
    report.metadata = { ...report.metadata, pr_number: undefined, base_branch: undefined, ...git };
    report.analyzed_at = analyzedAt;
    const answer = await fetch(`${base}/api/reports`, {
      method: 'POST',
      headers: { ...CLIENT_POST_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify(report),
    });
    expect(answer.status).toBe(201);
    return ((await answer.json()) as { report: { uuid: string } }).report.uuid;
  })
  /** The client package's notice of a failed run (the fixture's), at `occurredAt`. */
  .extend('fail', ({ base }) => async (occurredAt: string) => {
    const failure = loadFixture('failure', projectId);
    failure.occurred_at = occurredAt;
    const answer = await fetch(`${base}/api/reports/failure`, {
      method: 'POST',
      headers: { ...CLIENT_POST_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify(failure),
    });
    expect(answer.status).toBe(201);
  });

const commit = (digit: string) => digit.repeat(40);

/**
 * Issue 31 item 4 in Chromium: a project on GitHub with reports of `main` and of two pull
 * requests, and failed runs. From the project page a person sees each report's pull request (linked
 * to GitHub) and commit (linked), the failed runs with their message, then opens the pull requests
 * and follows the newest one's new issues to the report that lists them. axe-core and screenshots
 * at 375 and 1440 px on the way.
 */
warnWithoutChromium('pull requests and failed runs browser test');

describe.skipIf(!hasChromium)('pull requests and failed runs in Chromium', () => {
  let newest: string;

  it('shows each report’s pull request and commit, linked into the repository, and the failed runs', async ({
    world,
    base,
    page,
    watch,
    signInThrough,
    upload,
    fail,
  }) => {
    await signInThrough(page, '/projects/new', world.user);
    await page.getByLabel('Name').fill('Shop');
    await page.getByLabel('Repository URL (optional)').fill(REPOSITORY);
    await page.getByRole('button', { name: 'Create project' }).click();
    token = (await page.locator('#api-token').textContent()) ?? '';
    projectId = /SHIELDCI_PROJECT_ID=([0-9a-f-]{36})/.exec((await page.locator('main').textContent()) ?? '')![1]!;

    await upload('report-small', { git_branch: 'main', git_commit: commit('1') }, '2026-11-20T08:00:00Z');
    await upload(
      'report-small',
      { git_branch: 'fix/typo', git_commit: commit('2'), pr_number: '470', base_branch: 'main' },
      '2026-11-20T09:00:00Z',
    );
    // report-full has issues main's report has not: new ones.
    const pr = { git_branch: 'feature/checkout-hardening', pr_number: '482', base_branch: 'main' };
    await upload('report-small', { ...pr, git_commit: commit('3') }, '2026-11-20T10:00:00Z');
    newest = await upload('report-full', { ...pr, git_commit: commit('4') }, '2026-11-21T10:00:00Z');
    for (let hour = 10; hour < 16; hour += 1) await fail(`2026-11-21T${hour}:00:00Z`);

    await page.goto(`${base}/projects/${projectId}`);
    const rows = page.locator('.project-reports tbody tr');
    await expect.poll(() => rows.count()).toBe(4);
    const first = rows.first();
    expect(await first.getByRole('link', { name: '#482' }).getAttribute('href')).toBe(`${REPOSITORY}/pull/482`);
    expect(await first.textContent()).toContain('#482 into main');
    expect(await first.getByRole('link', { name: /Commit 4444444/ }).getAttribute('href')).toBe(`${REPOSITORY}/commit/${commit('4')}`);
    // main's own report belongs to no pull request.
    expect(await rows.last().getByRole('link', { name: /#\d+/ }).count()).toBe(0);

    // The failed runs: the latest three, each with its label, time and message; the others a link away.
    const panel = page.locator('section[aria-labelledby="failed-runs-title"]');
    await expect.poll(() => panel.locator('.failed-run').count()).toBe(3);
    expect(await panel.locator('.failed-run').first().textContent()).toContain('Uncaught exception during analysis');
    expect(await panel.locator('.failed-run-message').first().textContent()).toContain(REFUSED);
    expect(Date.parse((await panel.locator('.failed-run time').first().getAttribute('datetime')) ?? '')).toBe(
      Date.parse('2026-11-21T15:00:00Z'),
    );
    expect(await panel.getByRole('link', { name: 'All 6 failed runs' }).getAttribute('href')).toBe(`/projects/${projectId}/failed-runs`);

    await expectAccessible(page, 'project with pull requests and failed runs');
    await screenshot(page, 'project-pull-requests-and-failures');
    expect(watch.pageErrors).toEqual([]);
    expect(watch.policyViolations).toEqual([]);
    expect(watch.foreignRequests).toEqual([]);
  });

  it('lists every failed run on its own page', async ({ base, page }) => {
    await page.locator('section[aria-labelledby="failed-runs-title"]').getByRole('link', { name: 'All 6 failed runs' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/failed-runs`);
    await page.getByRole('heading', { name: 'Failed runs', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.failed-run').count()).toBe(6);
    expect(await page.getByRole('link', { name: 'Shop' }).getAttribute('href')).toBe(`/projects/${projectId}`);
    await expectAccessible(page, 'failed runs');
    await screenshot(page, 'project-failed-runs');
  });

  it('finds the newest pull request’s new issues from the project page', async ({ base, page, watch }) => {
    await page.goto(`${base}/projects/${projectId}`);
    await page.getByRole('navigation', { name: 'More of this project' }).getByRole('link', { name: 'Pull requests' }).click();
    await page.waitForURL(`${base}/projects/${projectId}/pull-requests`);
    const rows = page.locator('.pull-requests tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    // One row per pull request, the newest first, with its latest report (not the older run of #482).
    expect(await rows.locator('th').allTextContents()).toEqual(['#482 into main', '#470 into main']);
    const [changes] = await page.evaluate(async (uuid) => [await (await fetch(`/api/v1/reports/${uuid}/changes?kind=new`)).json()], newest);
    const count = changes.meta.total as number;
    expect(count).toBeGreaterThan(0);
    await expectAccessible(page, 'pull requests');
    await screenshot(page, 'project-pull-requests');

    await rows
      .first()
      .getByRole('link', { name: `${count} new issues` })
      .click();
    await page.waitForURL(`${base}/reports/${newest}?tab=new`);
    // What the person came for: a new issue of that pull request, on its report's page.
    await page.getByText(changes.data[0].message).first().waitFor();
    expect(watch.pageErrors).toEqual([]);
  });
});
