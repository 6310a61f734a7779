import { describe, expect } from 'vitest';
import { ok, okJson } from '../cli/cli-process.js';
import { CLIENT_POST_HEADERS, loadFixture } from '../helpers/client-wire.js';
import { HANG_MS } from '../helpers/eventually.js';
import { addJira } from '../stand-ins/jira.js';
import { type StandIn, startStandIn } from '../stand-ins/stand-in-server.js';
import {
  dashboardTest,
  expectAccessible,
  hasChromium,
  screenshot,
  startDashboardWorld,
  submitSignIn,
  warnWithoutChromium,
} from './dashboard-browser.js';

/**
 * E9.6 in Chromium, against the real service and the Jira stand-in on 127.0.0.1: Ada (owner of her
 * team) adds a Jira Cloud connection on the team page (its API token typed into a password input,
 * never shown again: only its last four characters), checks it, sets the project's target and links
 * the connection as its tracker, then creates a ticket for one issue and for a selection on the
 * report page and sees their links (the stand-in received each ticket); a refusal of the provider is
 * said with its message; more than 50 selected is said and nothing is sent; the links are still
 * there after a reload and on the project's issue list. Rita, a read-only member, sees the links and
 * no button, no connection, and is told whom to ask about the tracker.
 */
warnWithoutChromium('tickets browser test');

const UNTIL_SHOWN = { timeout: HANG_MS, interval: 100 };
const RITA = { email: 'rita@example.com', password: 'rita reads and never writes', name: 'Rita' };
const JIRA = { email: 'ada@acme.example', api_token: 'ATATT3xFfGF0dashboardtoken4321', displayName: 'Ada Lovelace' };

interface Shop {
  projectId: string;
  teamId: number;
  reportUrl: string;
  jira: StandIn;
  /** The tickets the stand-in created, in order. */
  created: { key: string; fields: Record<string, any> }[];
  /** The comments the stand-in received, by ticket key. */
  comments: { key: string; body: unknown }[];
  /** Uploads a later report on main without any of the first one's issues: every one is fixed. */
  uploadFix(): Promise<void>;
}

const it = dashboardTest
  // The Jira stand-in listens on 127.0.0.1, which the server refuses as a base_url unless told otherwise.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern
  .override('world', { scope: 'file' }, async ({}, { onCleanup }) => {
    const world = await startDashboardWorld({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    onCleanup(() => world.close());
    return world;
  })
  /** Once for the file: the Jira stand-in (Cloud, issues SHOP-1, SHOP-2, ...), Ada's project Shop and its run of report-full. */
  .extend('shop', { scope: 'file' }, async ({ world, base, createUser }, { onCleanup }): Promise<Shop> => {
    const jira = await startStandIn();
    onCleanup(() => jira.close());
    addJira(jira, JIRA);
    const created: Shop['created'] = [];
    jira.route('POST', '/rest/api/3/issue', (request) => {
      const key = `SHOP-${created.length + 1}`;
      created.push({ key, fields: (request.json as { fields: Record<string, any> }).fields });
      return { status: 201, body: { id: String(10000 + created.length), key, self: `${jira.url}/rest/api/3/issue/${key}` } };
    });
    // Jira Cloud's "Add comment" (POST /rest/api/3/issue/{issueIdOrKey}/comment, an ADF body): 201 with the comment.
    const comments: Shop['comments'] = [];
    jira.route('POST', /^\/rest\/api\/3\/issue\/([^/]+)\/comment$/, (request) => {
      const [key] = request.params;
      if (!created.some((ticket) => ticket.key === key)) {
        return { status: 404, body: { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} } };
      }
      const body = (request.json as { body?: unknown }).body;
      comments.push({ key: key!, body });
      return { status: 201, body: { id: String(20000 + comments.length), body } };
    });

    await ok(world.sandbox, 'users:plan', '--email', world.user.email, '--plan', 'business');
    const token = (await okJson<{ token: string }>(world.sandbox, 'tokens:create', '--email', world.user.email, '--json')).token;
    const api = async (method: string, path: string, body?: unknown) => {
      const answer = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await answer.text();
      expect(answer.status, `${method} ${path}: ${text}`).toBeLessThan(300);
      return JSON.parse(text);
    };
    const teamId: number = (await api('GET', '/api/v1/user')).data.current_team_id;
    const project = await api('POST', '/api/v1/projects', { name: 'Shop', framework_version: '11' });
    const projectId: string = project.project.id;
    const report = loadFixture('report-full', projectId);
    report.metadata = { ...report.metadata, git_branch: 'main', git_commit: 'a'.repeat(40) };
    const uploaded = await fetch(`${base}/api/reports`, {
      method: 'POST',
      headers: { ...CLIENT_POST_HEADERS, authorization: `Bearer ${project.api_token}` },
      body: JSON.stringify(report),
    });
    expect(uploaded.status).toBe(201);
    const uuid = ((await uploaded.json()) as { report: { uuid: string } }).report.uuid;

    // Rita joins Ada's team as a read-only member.
    await createUser(RITA);
    await api('POST', `/api/v1/teams/${teamId}/invitations`, { email: RITA.email, role: 'readonly' });
    const ritaToken = (await okJson<{ token: string }>(world.sandbox, 'tokens:create', '--email', RITA.email, '--json')).token;
    const asRita = { authorization: `Bearer ${ritaToken}` };
    const [invitation] = ((await (await fetch(`${base}/api/v1/invitations`, { headers: asRita })).json()) as { data: { id: number }[] })
      .data;
    expect((await fetch(`${base}/api/v1/invitations/${invitation!.id}/accept`, { method: 'POST', headers: asRita })).status).toBe(200);
    const uploadFix = async () => {
      const fix = loadFixture('report-full', projectId);
      fix.metadata = { ...fix.metadata, git_branch: 'main', git_commit: 'b'.repeat(40) };
      delete fix.metadata.pr_number;
      delete fix.metadata.base_branch;
      fix.analyzed_at = '2026-11-21T06:09:23+00:00';
      for (const result of fix.results) {
        result.issues = [];
        if (result.status === 'failed' || result.status === 'warning') result.status = 'passed';
      }
      const answer = await fetch(`${base}/api/reports`, {
        method: 'POST',
        headers: { ...CLIENT_POST_HEADERS, authorization: `Bearer ${project.api_token}` },
        body: JSON.stringify(fix),
      });
      expect(answer.status, await answer.text()).toBe(201);
    };
    return { projectId, teamId, reportUrl: `${base}/reports/${uuid}`, jira, created, comments, uploadFix };
  })
  /** The file's page, with Ada signed in. */
  .extend('ada', { scope: 'file' }, async ({ world, base, page }) => {
    await page.goto(`${base}/sign-in`);
    await submitSignIn(page, world.user);
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    return page;
  });

describe.skipIf(!hasChromium)('connections and tickets in the dashboard, in Chromium', () => {
  it('adds a Jira Cloud connection on the team page, its token never shown again, and checks it', async ({ base, ada: page, shop }) => {
    await page.goto(`${base}/teams/${shop.teamId}`);
    const section = page.getByRole('region', { name: 'Connections' });
    await section.getByText('No connections yet. Add one below.').waitFor();
    const form = section.getByRole('form', { name: 'Add a connection' });
    await form.getByLabel('Provider').selectOption('jira');
    // Jira has no default: the field says what to give, and asks how to sign in.
    expect(await form.getByLabel('Base URL').getAttribute('placeholder')).toBe('https://your-site.atlassian.net');
    await form.getByLabel('Sign in with').selectOption('cloud');
    await form.getByLabel('Name').fill('Acme Jira');
    await form.getByLabel('Base URL').fill(shop.jira.url);
    await form.getByLabel('Atlassian account email').fill(JIRA.email);
    const secret = form.getByLabel('API token');
    expect(await secret.getAttribute('type')).toBe('password');
    await secret.fill(JIRA.api_token);
    await expectAccessible(page, 'team with the connection form filled');
    await form.getByRole('button', { name: 'Add connection' }).click();

    const card = section.getByRole('listitem', { name: 'Acme Jira' });
    await card.waitFor();
    expect(await card.locator('dl').textContent()).toContain('…4321');
    expect(await card.locator('dl').textContent()).toContain('Never');
    // The form is empty again (back to GitHub's token); the token is nowhere on the page, in no input's value.
    expect(await form.getByLabel('Provider').inputValue()).toBe('github');
    expect(await form.getByLabel('Access token').inputValue()).toBe('');
    expect(await page.content()).not.toContain(JIRA.api_token);
    const values = await page.locator('input').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
    expect(values).not.toContain(JIRA.api_token);

    await card.getByRole('button', { name: 'Check Acme Jira' }).click();
    await card.getByText('Check passed: Connected as Ada Lovelace.').waitFor(UNTIL_SHOWN);
    const myself = shop.jira.received.filter((request) => request.path === '/rest/api/3/myself');
    expect(myself).toHaveLength(1);
    expect(myself[0]!.headers.authorization).toBe(`Basic ${Buffer.from(`${JIRA.email}:${JIRA.api_token}`).toString('base64')}`);
    await expectAccessible(page, 'team with a checked connection');
    await screenshot(page, 'team-connections');

    // A bad base URL is said at its field.
    await form.getByLabel('Provider').selectOption('gitea');
    await form.getByLabel('Name').fill('Nowhere');
    await form.getByLabel('Access token').fill('gitea-token-0000');
    await form.getByRole('button', { name: 'Add connection' }).click();
    await page.locator('#connection-base-url-errors').waitFor();
    expect(await form.getByLabel('Base URL').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'team with a connection error');
  });

  it('sets the project’s target and links the connection as its tracker', async ({ base, ada: page, shop }) => {
    await page.goto(`${base}/projects/${shop.projectId}`);
    const tracker = page.getByRole('region', { name: 'Tracker' });
    await tracker.getByText('No tracker is linked', { exact: false }).waitFor();
    const connection = tracker.getByLabel('Connection', { exact: true });
    await expect.poll(() => connection.locator('option').allInnerTexts()).toEqual(['None: no tickets', 'Acme Jira (Jira)']);

    // No target yet: the service refuses the link, and says so at the field.
    await connection.selectOption({ label: 'Acme Jira (Jira)' });
    await tracker.getByRole('button', { name: 'Save linked connection' }).click();
    await page.locator('#tracker-connection-errors').waitFor();

    await tracker.getByLabel('Tracker project key').fill('SHOP');
    await tracker.getByLabel('Tracker project name').fill('The shop');
    await tracker.getByRole('button', { name: 'Save tracker settings' }).click();
    await tracker.getByText('The tracker settings were saved.').waitFor();
    await connection.selectOption({ label: 'Acme Jira (Jira)' });
    await tracker.getByRole('button', { name: 'Save linked connection' }).click();
    await tracker.getByText('Acme Jira is the project’s tracker.').waitFor();
    await tracker.getByText('Tickets go to Jira through Acme Jira, project SHOP (The shop).').waitFor();
    // Linking made Jira the project's primary tracker.
    await expect.poll(() => tracker.getByLabel('Issue tracker').inputValue()).toBe('jira');
    await expectAccessible(page, 'project with its tracker linked');
    await screenshot(page, 'project-tracker');
  });

  it('creates a ticket for one issue and for a selection on the report page, and shows their links', async ({ ada: page, shop }) => {
    await page.goto(`${shop.reportUrl}?tab=issues`);
    const list = page.locator('section.triage-scope');
    const issues = list.locator('.issue');
    const first = issues.nth(0);
    const message = (await first.locator('.issue-message > span').first().textContent()) ?? '';
    await first.getByRole('button', { name: `Create ticket for: ${message}` }).click(UNTIL_SHOWN);
    const link = first.getByRole('link', { name: /^SHOP-1/ });
    await link.waitFor(UNTIL_SHOWN);
    expect(await link.getAttribute('href')).toBe(`${shop.jira.url}/browse/SHOP-1`);
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toContain('noopener');
    expect(await first.getByRole('button', { name: /^Create ticket/ }).count()).toBe(0);
    expect(shop.created).toHaveLength(1);
    expect(shop.created[0]!.fields.project).toEqual({ key: 'SHOP' });
    expect(shop.created[0]!.fields.summary).toContain(message.slice(0, 40));

    // Two more, chosen with their check boxes.
    for (const index of [1, 2]) await issues.nth(index).locator('.triage-box').check();
    await list.getByRole('button', { name: 'Create tickets for 2 selected' }).click();
    await list.getByText('2 tickets created.').first().waitFor(UNTIL_SHOWN);
    await issues
      .nth(1)
      .getByRole('link', { name: /^SHOP-2/ })
      .waitFor();
    await issues
      .nth(2)
      .getByRole('link', { name: /^SHOP-3/ })
      .waitFor();
    expect(shop.created.map((ticket) => ticket.key)).toEqual(['SHOP-1', 'SHOP-2', 'SHOP-3']);
    expect(shop.jira.received.filter((request) => request.method === 'POST' && request.path === '/rest/api/3/issue')).toHaveLength(3);
    await expectAccessible(page, 'report with tickets');
    await screenshot(page, 'report-tickets');
  });

  it('says the provider’s refusal, and that more than 50 at once cannot be sent', async ({ ada: page, shop }) => {
    const list = page.locator('section.triage-scope');
    const fourth = list.locator('.issue').nth(3);
    shop.jira.script.push({ status: 400, body: { errorMessages: ['Issue type Bug does not exist in project SHOP.'], errors: {} } });
    await fourth.getByRole('button', { name: /^Create ticket for: / }).click();
    const alert = fourth.getByRole('alert');
    await alert.waitFor(UNTIL_SHOWN);
    expect(await alert.textContent()).toContain('Issue type Bug does not exist in project SHOP.');
    expect(await alert.textContent()).not.toContain(JIRA.api_token);
    await expectAccessible(page, 'report with a refused ticket');

    // A whole page (50) may go; one more from the next page may not, and nothing is sent.
    await list.locator('.triage-page-box').check();
    await list.getByRole('button', { name: 'Create tickets for 50 selected' }).waitFor();
    await list.getByRole('navigation', { name: 'Pages of all issues' }).getByRole('button', { name: 'Next' }).click();
    await list.locator('.issue .triage-box').first().check();
    const bulk = list.getByRole('button', { name: 'Create tickets for 51 selected' });
    await bulk.waitFor();
    expect(await bulk.isDisabled()).toBe(true);
    await list.getByText('At most 50 tickets at once: 51 issues are selected. Clear some and try again.').waitFor();
    await expectAccessible(page, 'report with too many selected for tickets');
    await list.getByRole('button', { name: 'Clear selection' }).click();
    expect(shop.created).toHaveLength(3);
  });

  it('shows the tickets after a reload, and on the project’s issue list', async ({ base, ada: page, shop }) => {
    await page.goto(`${shop.reportUrl}?tab=issues`);
    const links = page.locator('section.triage-scope .issue .ticket-link');
    await expect.poll(() => links.allInnerTexts(), UNTIL_SHOWN).toEqual(expect.arrayContaining([expect.stringMatching(/^SHOP-1/)]));
    expect((await links.allInnerTexts()).map((text) => text.split(/\s/)[0])).toEqual(['SHOP-1', 'SHOP-2', 'SHOP-3']);

    await page.goto(`${base}/projects/${shop.projectId}/issues`);
    const listed = page.locator('.issue .ticket-link');
    await expect.poll(() => listed.count(), UNTIL_SHOWN).toBe(3);
    await expectAccessible(page, 'project issues with tickets');
    await screenshot(page, 'project-issues-tickets');
  });

  it('comments on the tickets once a later report fixes their issues, and lists the calls with the tracker', async ({
    base,
    ada: page,
    shop,
  }) => {
    await shop.uploadFix();
    // The server's outbox worker makes the calls in the background.
    await expect.poll(() => shop.comments.map((comment) => comment.key).sort(), UNTIL_SHOWN).toEqual(['SHOP-1', 'SHOP-2', 'SHOP-3']);
    expect(JSON.stringify(shop.comments[0]!.body)).toContain('Fixed in report');

    await page.goto(`${base}/projects/${shop.projectId}`);
    const tracker = page.getByRole('region', { name: 'Tracker' });
    const rows = tracker.getByRole('region', { name: 'Calls to the tracker' }).locator('tbody tr');
    await expect.poll(() => rows.count(), UNTIL_SHOWN).toBe(3);
    expect((await rows.first().locator('td').allTextContents()).slice(1)).toEqual(['Comment: fixed', 'succeeded', '1', 'HTTP 201']);
    await expectAccessible(page, 'project with its tracker calls');
    await screenshot(page, 'project-tracker-calls');
  });

  it('shows Rita, a read-only member, the tickets’ links and no button, and no connection', async ({
    world,
    base,
    shop,
    signInThrough,
  }) => {
    const page = await (await world.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await signInThrough(page, `/reports/${shop.reportUrl.split('/reports/')[1]}?tab=issues`, RITA);
    const links = page.locator('section.triage-scope .issue .ticket-link');
    await expect.poll(() => links.count(), UNTIL_SHOWN).toBe(3);
    expect(await page.getByRole('button', { name: /^Create ticket/ }).count()).toBe(0);

    await page.goto(`${base}/projects/${shop.projectId}`);
    const tracker = page.getByRole('region', { name: 'Tracker' });
    await tracker.getByText('Tickets go to Jira through Acme Jira', { exact: false }).waitFor();
    await tracker.getByText('The team’s owners and admins see its connections and may link another.').waitFor();

    await page.goto(`${base}/teams/${shop.teamId}`);
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    expect(await page.getByRole('region', { name: 'Connections' }).count()).toBe(0);
    await page.context().close();
  });
});
