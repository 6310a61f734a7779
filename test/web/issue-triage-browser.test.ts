import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { okJson } from '../cli/cli-process.js';
import { CLIENT_POST_HEADERS, countSuppressed, loadFixture } from '../helpers/client-wire.js';
import { HANG_MS } from '../helpers/eventually.js';
import { dashboardTest, expectAccessible, hasChromium, screenshot, submitSignIn, warnWithoutChromium } from './dashboard-browser.js';

/**
 * E8.9 in Chromium, against the real service: Ada (owner of her team) triages the 155-analyzer
 * fixture (report-full) on the report page from the keyboard alone (arrow keys through the issues,
 * space to select, the action panel, a dismissal refused without a reason, then saved); dismissed
 * issues show apart with their reason, who decided and when; one issue is accepted until a date and
 * assigned; an error of the API (an assignee who left the team) is said at its field; Rita, a
 * read-only member, sees the states and no control; the project's Issues page filters by status and
 * assignee in its URL; "Assigned to me" lists Ada's issues; "Suppressed in code" filters by type.
 */
warnWithoutChromium('issue triage browser test');

/** How long a list may take to show on a loaded machine (the default second is too short for report-full's answer being built again): a hang bound, not a speed. */
const UNTIL_SHOWN = { timeout: HANG_MS, interval: 100 };

const GRACE = { email: 'grace@example.com', password: 'grace has a long passphrase', name: 'Grace' };
const RITA = { email: 'rita@example.com', password: 'rita reads and never writes', name: 'Rita' };
const LINUS = { email: 'linus@example.com', password: 'linus is leaving the team', name: 'Linus' };

interface Shop {
  projectId: string;
  /** The project's API token, for the client's uploads. */
  apiToken: string;
  reportUrl: string;
  teamId: number;
  adaToken: string;
  linusId: number;
}

/** A call to the API with a personal access token; the answer's JSON, after checking its status. */
async function call(base: string, token: string, method: string, path: string, body?: unknown, status = 200): Promise<any> {
  const answer = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await answer.text();
  expect(answer.status, `${method} ${path}: ${text}`).toBe(status);
  return text === '' ? null : JSON.parse(text);
}

const it = dashboardTest
  /** Once for the file: Ada's team with Grace (member), Linus (member) and Rita (read-only); the project Shop and its run of report-full. */
  .extend('shop', { scope: 'file' }, async ({ world, base, createUser }): Promise<Shop> => {
    const token = async (email: string) =>
      (await okJson<{ token: string }>(world.sandbox, 'tokens:create', '--email', email, '--json')).token;
    const adaToken = await token(world.user.email);
    const teamId: number = (await call(base, adaToken, 'GET', '/api/v1/user')).data.current_team_id;
    const members: Record<string, number> = {};
    for (const [person, role] of [
      [GRACE, 'member'],
      [LINUS, 'member'],
      [RITA, 'readonly'],
    ] as const) {
      await createUser(person);
      await call(base, adaToken, 'POST', `/api/v1/teams/${teamId}/invitations`, { email: person.email, role }, 201);
      const theirs = await token(person.email);
      const [invitation] = (await call(base, theirs, 'GET', '/api/v1/invitations')).data;
      await call(base, theirs, 'POST', `/api/v1/invitations/${invitation.id}/accept`);
      members[person.email] = (await call(base, theirs, 'GET', '/api/v1/user')).data.id;
    }
    const created = await call(base, adaToken, 'POST', '/api/v1/projects', { name: 'Shop', framework_version: '11' }, 201);
    const projectId: string = created.project.id;
    const uuid = await uploadFull(base, created.api_token, projectId, 'a');
    return {
      projectId,
      apiToken: created.api_token,
      reportUrl: `${base}/reports/${uuid}`,
      teamId,
      adaToken,
      linusId: members[LINUS.email] as number,
    };
  })
  /** The file's page, with Ada signed in (once for the file, whichever test runs first). */
  .extend('ada', { scope: 'file' }, async ({ world, base, page }) => {
    await page.goto(`${base}/sign-in`);
    await submitSignIn(page, world.user);
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    return page;
  });

/** The client's upload of report-full on main (its pull request's run), less the issues whose message `without` names; the report's UUID. */
async function uploadFull(base: string, apiToken: string, projectId: string, commit: string, without: string[] = []): Promise<string> {
  const report = loadFixture('report-full', projectId);
  report.metadata = { ...report.metadata, git_branch: 'main', git_commit: commit.repeat(40) };
  for (const result of report.results)
    result.issues = result.issues.filter((issue: { message: string }) => !without.includes(issue.message));
  const uploaded = await fetch(`${base}/api/reports`, {
    method: 'POST',
    headers: { ...CLIENT_POST_HEADERS, authorization: `Bearer ${apiToken}` },
    body: JSON.stringify(report),
  });
  expect(uploaded.status).toBe(201);
  return ((await uploaded.json()) as { report: { uuid: string } }).report.uuid;
}

/** The element that has the focus, in words: its tag, class and accessible name or label. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element) return '';
    const label =
      element.getAttribute('aria-label') ?? (element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : null);
    return `${element.tagName.toLowerCase()}.${[...element.classList].join('.')} ${label ?? element.textContent?.trim().slice(0, 60) ?? ''}`;
  });
}

/** Presses Tab until the focus is on what `matches` says, at most `limit` times (the keyboard's way to a control). */
async function tabTo(page: Page, matches: RegExp, limit = 40): Promise<void> {
  for (let pressed = 0; pressed < limit; pressed += 1) {
    if (matches.test(await focused(page))) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${matches}; the focus is on ${await focused(page)}`);
}

async function issuesTab(page: Page, reportUrl: string, query = ''): Promise<void> {
  await page.goto(`${reportUrl}?tab=issues${query}`);
  await page.locator('#report-issues-title').waitFor();
}

describe.skipIf(!hasChromium)('triage in the dashboard, in Chromium', () => {
  it('triages report-full’s issues from the keyboard alone: move, select, open the panel, set the status, submit', async ({
    base,
    ada: page,
    shop,
  }) => {
    await issuesTab(page, shop.reportUrl);
    const list = page.locator('section.triage-scope');
    const found = () => list.locator('.report-found').textContent();
    expect(await found()).toBe('95 issues');
    const firstTwo = await list
      .locator('.issue .issue-message > span')
      .evaluateAll((spans) => spans.slice(0, 2).map((span) => span.textContent));

    // The controls come once the project's team says Ada may change states.
    await list.locator('.triage-page-box').waitFor();
    // From the page's start: Tab to the page's check box, then the arrow keys move through the issues.
    await page.locator('#main').focus();
    await tabTo(page, /triage-page-box/);
    await page.keyboard.press('ArrowDown');
    expect(await focused(page)).toContain(`Select: ${firstTwo[0]}`);
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowDown');
    expect(await focused(page)).toContain(`Select: ${firstTwo[1]}`);
    await page.keyboard.press('Space');
    await page.getByText('2 selected', { exact: true }).waitFor();

    // Back up to the bar, and on to its button: Enter opens the panel with the focus on the status.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await focused(page)).toContain('triage-page-box');
    await tabTo(page, /Set status of 2 selected/, 3);
    await page.keyboard.press('Enter');
    const panel = page.getByRole('region', { name: 'Set the status of 2 issues' });
    await panel.waitFor();
    expect(await focused(page)).toMatch(/^select\. ?Status/);
    // Escape closes it, back on the button; Enter opens it again.
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await expect.poll(() => focused(page), UNTIL_SHOWN).toMatch(/Set status of 2 selected/);
    await page.keyboard.press('Enter');
    await panel.waitFor();
    expect(await focused(page)).toMatch(/^select\. ?Status/);
    // Confirmed → Accepted → False positive → Won't fix, by the arrow key on the closed select.
    for (let step = 0; step < 3; step += 1) await page.keyboard.press('ArrowDown');
    expect(await panel.getByLabel('Status').inputValue()).toBe('wont_fix');

    // Submitted without a reason: refused in words at the comment, which gets the focus.
    await tabTo(page, /Set the status of 2 issues/, 6);
    await page.keyboard.press('Enter');
    await panel.locator('#field-comment-errors').waitFor();
    expect(await panel.locator('#field-comment-errors').textContent()).toMatch(/Say why: a comment is required/);
    await expect.poll(() => focused(page), UNTIL_SHOWN).toMatch(/^textarea/);
    await expectAccessible(page, 'triage panel with an error');
    await page.keyboard.type('Generated code, never deployed.');
    await tabTo(page, /Set the status of 2 issues/, 6);
    await page.keyboard.press('Enter');

    // Saved: said in words; the two leave the list for Dismissed, and the focus is back on the bar.
    await page.getByText('Saved: 2 issues are now won’t fix.').first().waitFor();
    await expect.poll(found, UNTIL_SHOWN).toBe('93 issues');
    expect(await page.getByRole('link', { name: /^Dismissed/ }).textContent()).toMatch(/Dismissed\s*2/);
    const stored = await call(base, shop.adaToken, 'GET', `/api/v1/projects/${shop.projectId}/issues?status=wont_fix`);
    expect(stored.data.map((issue: any) => issue.message).sort()).toEqual([...firstTwo].sort());
    expect(stored.data.every((issue: any) => issue.state.comment === 'Generated code, never deployed.')).toBe(true);
  });

  it('shows the dismissed issues apart, with their reason, who decided and when', async ({ ada: page, shop }) => {
    await page.getByRole('link', { name: /^Dismissed/ }).click();
    await page.waitForURL(/[?&]state=dismissed/);
    const dismissed = page.locator('section.triage-scope .issue');
    await expect.poll(() => dismissed.count(), UNTIL_SHOWN).toBe(2);
    const text = (await dismissed.first().textContent()) ?? '';
    expect(text).toContain('Won’t fix');
    expect(text).toContain('Reason: Generated code, never deployed.');
    expect(text).toMatch(/decided by Ada on /);
    await page.reload();
    await expect.poll(() => dismissed.count(), UNTIL_SHOWN).toBe(2);
    // The page's box ticks every issue of the page, and unticks them.
    await page.getByLabel('Select all on this page').check();
    await page.getByText('2 selected', { exact: true }).waitFor();
    expect(await page.locator('.triage-box:checked').count()).toBe(2);
    await page.getByLabel('Select all on this page').uncheck();
    await page.getByText('No issue selected').waitFor();
    await expectAccessible(page, 'dismissed issues');
    await screenshot(page, 'report-dismissed');
    expect(shop.projectId).not.toBe('');
  });

  it('accepts one issue until a date and assigns it; an assignee who left is refused at the field', async ({ base, ada: page, shop }) => {
    await issuesTab(page, shop.reportUrl);
    const issue = page.locator('section.triage-scope .issue').first();
    const message = await issue.locator('.issue-message > span').textContent();
    await issue.getByRole('button', { name: `Set status of: ${message}` }).click();
    const panel = page.getByRole('region', { name: 'Set the status of this issue' });
    await panel.getByLabel('Status').selectOption('accepted');
    await panel.getByLabel('Reason (required)').fill('Behind the admin SSO; revisit after the audit.');
    await panel.getByLabel('Assignee').selectOption({ label: 'Linus' });
    await panel.getByLabel('Accepted until (optional)').fill('2099-01-01');
    await panel.getByRole('button', { name: 'Save the status' }).click();
    expect(await panel.locator('#field-expires_at-errors').textContent()).toBe('Choose a day at most 365 days ahead.');

    const inAMonth = new Date(Date.now() + 30 * 24 * 3600 * 1000);
    const day = `${inAMonth.getFullYear()}-${String(inAMonth.getMonth() + 1).padStart(2, '0')}-${String(inAMonth.getDate()).padStart(2, '0')}`;
    await panel.getByLabel('Accepted until (optional)').fill(day);
    // Linus leaves the team while the panel is open: the service refuses him, and the page says so at the assignee.
    await call(base, shop.adaToken, 'DELETE', `/api/v1/teams/${shop.teamId}/members/${shop.linusId}`);
    await panel.getByRole('button', { name: 'Save the status' }).click();
    await panel.locator('#field-assignee_id-errors').waitFor();
    expect(await panel.getByLabel('Assignee').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'triage panel with the service’s error');

    await panel.getByLabel('Assignee').selectOption({ label: 'Ada (me)' });
    await panel.getByRole('button', { name: 'Save the status' }).click();
    await page.getByText('Saved: the issue is now accepted, assigned to Ada.').first().waitFor();
    await page.getByRole('link', { name: /^Dismissed/ }).click();
    const accepted = page.locator('section.triage-scope .issue', { hasText: message ?? '' });
    const text = (await accepted.textContent()) ?? '';
    expect(text).toContain('Accepted');
    expect(text).toContain('Assigned to Ada');
    expect(text).toMatch(/until /);
    expect(text).toContain('Reason: Behind the admin SSO; revisit after the audit.');
  });

  it('keeps the decisions in the next run: its gate leaves the dismissed out, and a fixed issue shows its state', async ({
    base,
    ada: page,
    shop,
  }) => {
    const wontFix = (await call(base, shop.adaToken, 'GET', `/api/v1/projects/${shop.projectId}/issues?status=wont_fix`)).data;
    const gone: string = wontFix[0].message;
    const next = await uploadFull(base, shop.apiToken, shop.projectId, 'b', [gone]);
    await page.goto(`${base}/reports/${next}`);
    await page.locator('.gate-dismissed').waitFor();
    expect(await page.locator('.gate-dismissed').textContent()).toMatch(
      /^2 dismissed issues were left out of the gate’s severity conditions\./,
    );
    // The changes view: the fixed issue was dismissed, so it shows under Dismissed, with its status and reason.
    await page.goto(`${base}/reports/${next}?tab=fixed`);
    const fixed = page.locator('section[aria-labelledby="report-fixed-title"] .issue');
    await page.getByText('Nothing of the baseline was fixed, or every fixed issue was dismissed.').waitFor();
    await page
      .getByRole('navigation', { name: 'Fixed issues by decision' })
      .getByRole('link', { name: /^Dismissed/ })
      .click();
    await page.waitForURL(/[?&]state=dismissed/);
    await expect.poll(() => fixed.count(), UNTIL_SHOWN).toBe(1);
    expect(await fixed.textContent()).toContain(gone);
    expect(await fixed.textContent()).toContain('Won’t fix');
    expect(await fixed.textContent()).toContain('Reason: Generated code, never deployed.');
    await expectAccessible(page, 'fixed issues, dismissed');
  });

  it('lists the project’s issues by status and assignee, the filters in the URL', async ({ base, ada: page, shop }) => {
    await page.goto(`${base}/projects/${shop.projectId}`);
    await page.getByRole('navigation', { name: 'More of this project' }).getByRole('link', { name: 'Issues' }).click();
    await page.waitForURL(`${base}/projects/${shop.projectId}/issues`);
    await page.getByRole('heading', { name: 'Issues', level: 1 }).waitFor();
    await page.locator('.issue').first().waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('wont_fix');
    await page.waitForURL(/[?&]status=wont_fix/);
    // Of the two marked won't fix, the latest run still holds one.
    await expect.poll(() => page.locator('.issue').count(), UNTIL_SHOWN).toBe(1);
    await page.getByLabel('Assignee', { exact: true }).selectOption('me');
    await page.waitForURL(/[?&]assignee=me/);
    await page.getByText('No issue matches these filters. Choose others above.').waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('');
    await page.waitForURL((url) => !url.search.includes('status=') && url.search.includes('assignee=me'));
    await expect.poll(() => page.locator('.issue').count(), UNTIL_SHOWN).toBe(1);
    await page.reload();
    await expect.poll(() => page.locator('.issue').count(), UNTIL_SHOWN).toBe(1);
    expect(await page.getByLabel('Assignee', { exact: true }).inputValue()).toBe('me');
    await expectAccessible(page, 'project issues');
    await screenshot(page, 'project-issues');
  });

  it('lists the issues assigned to me, from the main navigation', async ({ base, ada: page }) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Assigned to me' }).click();
    await page.waitForURL(`${base}/assigned-to-me`);
    await page.getByRole('heading', { name: 'Assigned to me', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.issue').count(), UNTIL_SHOWN).toBe(1);
    expect(await page.locator('.issue').textContent()).toContain('Shop');
    await expectAccessible(page, 'assigned to me');
    await screenshot(page, 'assigned-to-me');
  });

  it('lists the issues suppressed in code with their description, by type', async ({ ada: page, shop }) => {
    const suppressed = countSuppressed(loadFixture('report-full').results);
    await page.goto(`${shop.reportUrl}?tab=suppressed`);
    await page.getByRole('heading', { name: 'Suppressed in code', level: 2 }).waitFor();
    await expect.poll(() => page.locator('.issue').count(), UNTIL_SHOWN).toBe(suppressed.total);
    await page.getByLabel('Suppressed by').selectOption('config');
    await page.waitForURL(/[?&]type=config/);
    await expect.poll(() => page.locator('.issue').count(), UNTIL_SHOWN).toBe(suppressed.config);
    expect(await page.locator('.issue-suppression').first().textContent()).toMatch(/^Suppressed by configuration: \S/);
    await expectAccessible(page, 'suppressed in code');
  });

  it('shows Rita, a read-only member, the states and no control', async ({ world, base, shop }) => {
    const rita = await (await world.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await rita.goto(`${base}/sign-in`);
    await submitSignIn(rita, RITA);
    await rita.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await rita.goto(`${shop.reportUrl}?tab=issues&state=dismissed`);
    const issues = rita.locator('section.triage-scope .issue');
    await expect.poll(() => issues.count(), UNTIL_SHOWN).toBe(3);
    expect(await issues.locator('.status').allTextContents()).toEqual(expect.arrayContaining(['Won’t fix', 'Accepted']));
    // Rita's team (hers is read-only) is loaded: still no box and no button.
    await rita.waitForLoadState('networkidle');
    expect(await rita.locator('.triage-box, .triage-page-box, .triage-open, .triage-bar').count()).toBe(0);
    await rita.goto(`${base}/projects/${shop.projectId}/issues`);
    await rita.locator('.issue').first().waitFor();
    await rita.waitForLoadState('networkidle');
    expect(await rita.locator('.triage-box, .triage-open').count()).toBe(0);
    await rita.context().close();
  });
});
