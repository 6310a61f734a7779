import { generateKeyPairSync } from 'node:crypto';
import { describe, expect } from 'vitest';
import { ok, okJson } from '../cli/cli-process.js';
import { CLIENT_POST_HEADERS, loadFixture } from '../helpers/client-wire.js';
import { HANG_MS } from '../helpers/eventually.js';
import { addGitHub, githubRefusal } from '../stand-ins/github.js';
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
 * E10.6 in Chromium, against the real service and the GitHub stand-in on 127.0.0.1: Ada (owner of
 * her team) adds a GitHub App connection on the team page (its PEM key typed into a textarea, never
 * shown again), then on the project's page links the repository through the team's GitHub token
 * connection (a repository name the host would not take is said at its field; the placeholder
 * follows the chosen host), sees the link, uploads a report with a commit and a pull request and
 * sees the status and the comment among the calls made, the stand-in having received both. Rita, a
 * read-only member, sees the link and whom to ask, and no form. Ada unlinks. axe-core finds no
 * serious violation on any of these pages.
 */
warnWithoutChromium('code host browser test');

const UNTIL_SHOWN = { timeout: HANG_MS, interval: 100 };
const RITA = { email: 'rita@example.com', password: 'rita reads and never writes', name: 'Rita' };
const GITHUB = { token: 'github_pat_dashboard0000code4321', login: 'ada-acme' };
/** A GitHub App's private key as GitHub hands it out: RSA, PKCS#1 PEM. */
const APP_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;

interface Shop {
  projectId: string;
  teamId: number;
  github: StandIn;
  /** The statuses the stand-in received, by commit. */
  statuses: { sha: string; body: Record<string, unknown> }[];
  /** The pull-request comments the stand-in received, by pull request number. */
  comments: { number: string; body: string }[];
  /** Uploads report-full (commit 3f9c2a1…, pull request 482) as the client package would. */
  upload(): Promise<void>;
}

const it = dashboardTest
  // The GitHub stand-in listens on 127.0.0.1, which the server refuses as a base_url unless told otherwise.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern
  .override('world', { scope: 'file' }, async ({}, { onCleanup }) => {
    const world = await startDashboardWorld({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    onCleanup(() => world.close());
    return world;
  })
  /** Once for the file: the GitHub stand-in, Ada's project Shop, her team's GitHub and GitLab connections, and Rita in the team. */
  .extend('shop', { scope: 'file' }, async ({ world, base, createUser }, { onCleanup }): Promise<Shop> => {
    const github = await startStandIn();
    onCleanup(() => github.close());
    addGitHub(github, GITHUB);
    // "Create a commit status" (POST /repos/{owner}/{repo}/statuses/{sha}): 201 with the status.
    const statuses: Shop['statuses'] = [];
    github.route('POST', /^\/repos\/acme\/shop\/statuses\/([0-9a-f]+)$/, (request) => {
      const refusal = githubRefusal(GITHUB, request);
      if (refusal) return refusal;
      const body = request.json as Record<string, unknown>;
      statuses.push({ sha: request.params[0]!, body });
      return { status: 201, body: { id: 9000 + statuses.length, ...body } };
    });
    // "Create an issue comment" on the pull request's conversation: 201 with the comment's id.
    const comments: Shop['comments'] = [];
    github.route('POST', /^\/repos\/acme\/shop\/issues\/(\d+)\/comments$/, (request) => {
      const refusal = githubRefusal(GITHUB, request);
      if (refusal) return refusal;
      const { body } = request.json as { body: string };
      comments.push({ number: request.params[0]!, body });
      return { status: 201, body: { id: 7000 + comments.length, body } };
    });

    await ok(world.sandbox, 'users:plan', '--email', world.user.email, '--plan', 'business');
    const token = (await okJson<{ token: string }>(world.sandbox, 'tokens:create', '--email', world.user.email, '--json')).token;
    const api = async (method: string, path: string, body?: unknown, bearer = token) => {
      const answer = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await answer.text();
      expect(answer.status, `${method} ${path}: ${text}`).toBeLessThan(300);
      return JSON.parse(text);
    };
    const teamId: number = (await api('GET', '/api/v1/user')).data.current_team_id;
    const project = await api('POST', '/api/v1/projects', { name: 'Shop', framework_version: '11' });
    const projectId: string = project.project.id;
    await api('POST', `/api/v1/teams/${teamId}/connections`, {
      provider: 'github',
      name: 'Acme GitHub',
      base_url: github.url,
      credentials: { token: GITHUB.token },
    });
    await api('POST', `/api/v1/teams/${teamId}/connections`, {
      provider: 'gitlab',
      name: 'Acme GitLab',
      base_url: `${github.url}/api/v4`,
      credentials: { token: 'glpat-never-called' },
    });

    // Rita joins Ada's team as a read-only member.
    await createUser(RITA);
    await api('POST', `/api/v1/teams/${teamId}/invitations`, { email: RITA.email, role: 'readonly' });
    const ritaToken = (await okJson<{ token: string }>(world.sandbox, 'tokens:create', '--email', RITA.email, '--json')).token;
    const [invitation] = (await api('GET', '/api/v1/invitations', undefined, ritaToken)).data as { id: number }[];
    await api('POST', `/api/v1/invitations/${invitation!.id}/accept`, undefined, ritaToken);

    const upload = async () => {
      const answer = await fetch(`${base}/api/reports`, {
        method: 'POST',
        headers: { ...CLIENT_POST_HEADERS, authorization: `Bearer ${project.api_token}` },
        body: JSON.stringify(loadFixture('report-full', projectId)),
      });
      expect(answer.status, await answer.text()).toBe(201);
    };
    return { projectId, teamId, github, statuses, comments, upload };
  })
  /** The file's page, with Ada signed in. */
  .extend('ada', { scope: 'file' }, async ({ world, base, page }) => {
    await page.goto(`${base}/sign-in`);
    await submitSignIn(page, world.user);
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    return page;
  });

describe.skipIf(!hasChromium)('a project’s code host in the dashboard, in Chromium', () => {
  it('adds a GitHub App connection on the team page, its key typed into a textarea and never shown again', async ({
    base,
    ada: page,
    shop,
  }) => {
    await page.goto(`${base}/teams/${shop.teamId}`);
    const section = page.getByRole('region', { name: 'Connections' });
    await section.getByRole('listitem', { name: 'Acme GitHub' }).waitFor();
    const form = section.getByRole('form', { name: 'Add a connection' });
    await form.getByLabel('Provider').selectOption('github_app');
    expect(await form.getByLabel('Base URL (optional)').getAttribute('placeholder')).toBe('https://api.github.com');
    await form.getByLabel('Name').fill('Acme App');
    await form.getByLabel('App ID').fill('123456');
    const key = form.getByLabel('Private key');
    expect(await key.evaluate((element) => element.tagName)).toBe('TEXTAREA');
    await key.fill(APP_KEY);
    await form.getByLabel('Installation ID').fill('7890123');
    await expectAccessible(page, 'team with the GitHub App form filled');
    await form.getByRole('button', { name: 'Add connection' }).click();

    const card = section.getByRole('listitem', { name: 'Acme App' });
    await card.waitFor(UNTIL_SHOWN);
    expect(await card.locator('dl').textContent()).toContain('GitHub App');
    // The hint is the key's last four characters of base64, without its armour.
    const body = APP_KEY.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    expect(await card.locator('dl').textContent()).toContain(`…${body.slice(-4)}`);
    // The form is back to GitHub's token; the key is nowhere on the page, in no field's value.
    expect(await form.getByLabel('Provider').inputValue()).toBe('github');
    expect(await page.content()).not.toContain(body.slice(0, 64));
    const values = await page
      .locator('input, textarea')
      .evaluateAll((fields) => fields.map((field) => (field as HTMLInputElement | HTMLTextAreaElement).value));
    expect(values.some((value) => value.includes(body.slice(0, 64)))).toBe(false);
    await expectAccessible(page, 'team with a GitHub App connection');
    await screenshot(page, 'team-connections-github-app');
  });

  it('links the repository through a GitHub connection, a bad name said at its field', async ({ base, ada: page, shop }) => {
    await page.goto(`${base}/projects/${shop.projectId}`);
    const codeHost = page.getByRole('region', { name: 'Code host' });
    await codeHost.getByText('No code host is linked: nothing is posted on commits or pull requests.').waitFor(UNTIL_SHOWN);
    const connection = codeHost.getByLabel('Connection', { exact: true });
    await expect
      .poll(async () => (await connection.locator('option').allInnerTexts()).sort())
      .toEqual(['Acme App (GitHub App)', 'Acme GitHub (GitHub)', 'Acme GitLab (GitLab)']);
    // The repository's placeholder is the chosen host's form.
    const repository = codeHost.getByRole('textbox', { name: 'Repository', exact: true });
    await connection.selectOption({ label: 'Acme GitLab (GitLab)' });
    await expect.poll(() => repository.getAttribute('placeholder')).toBe('group/project');
    await connection.selectOption({ label: 'Acme GitHub (GitHub)' });
    await expect.poll(() => repository.getAttribute('placeholder')).toBe('owner/repo');

    await repository.fill('acme shop');
    await codeHost.getByRole('button', { name: 'Link repository' }).click();
    await page.locator('#code-host-repository-errors').waitFor(UNTIL_SHOWN);
    expect(await repository.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#code-host-repository-errors').textContent()).toContain('owner/repo');
    await expectAccessible(page, 'project with a code-host error');

    await repository.fill('acme/shop');
    expect(await codeHost.getByRole('checkbox', { name: /^Commit status/ }).isChecked()).toBe(true);
    expect(await codeHost.getByRole('checkbox', { name: /^Pull-request comment/ }).isChecked()).toBe(true);
    await codeHost.getByRole('button', { name: 'Link repository' }).click();
    await codeHost.getByText('acme/shop is linked through Acme GitHub.').waitFor(UNTIL_SHOWN);
    await codeHost
      .getByText(
        'Linked to acme/shop through Acme GitHub (GitHub): Scoreboard posts a status on each commit and a comment on each pull request.',
      )
      .waitFor(UNTIL_SHOWN);
    await codeHost.getByText('Nothing posted yet', { exact: false }).waitFor(UNTIL_SHOWN);
    expect(await page.locator('#code-host-repository-errors').count()).toBe(0);
    await expectAccessible(page, 'project with its code host linked');
    await screenshot(page, 'project-code-host');
  });

  it('lists the status and the comment posted for a report with a commit and a pull request', async ({ ada: page, shop }) => {
    await shop.upload();
    // The server's outbox worker makes the calls in the background.
    await expect.poll(() => shop.statuses.length, UNTIL_SHOWN).toBe(1);
    await expect.poll(() => shop.comments.length, UNTIL_SHOWN).toBe(1);
    expect(shop.statuses[0]).toMatchObject({ sha: '3f9c2a1b7d4e5f60718293a4b5c6d7e8f9012345', body: { context: 'scoreboard' } });
    expect(shop.comments[0]!.number).toBe('482');
    expect(shop.comments[0]!.body).toContain(`<!-- scoreboard:project:${shop.projectId} -->`);

    const codeHost = page.getByRole('region', { name: 'Code host' });
    const rows = codeHost.getByRole('region', { name: 'Calls to the code host' }).locator('tbody tr');
    // The calls are listed once they are made: Refresh reads the list again.
    await expect
      .poll(async () => {
        await codeHost.getByRole('button', { name: 'Refresh' }).click();
        return (await rows.allInnerTexts()).filter((row) => row.includes('succeeded')).length;
      }, UNTIL_SHOWN)
      .toBe(2);
    const cells = await Promise.all([0, 1].map(async (index) => (await rows.nth(index).locator('td').allTextContents()).slice(1)));
    expect(cells.sort()).toEqual([
      ['Commit status', 'succeeded', '1', 'HTTP 201'],
      ['Pull-request comment', 'succeeded', '1', 'HTTP 201'],
    ]);
    await expectAccessible(page, 'project with its code-host calls');
    await screenshot(page, 'project-code-host-calls');
  });

  it('shows Rita, a read-only member, the link and whom to ask, and no form', async ({ world, shop, signInThrough }) => {
    const page = await (await world.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await signInThrough(page, `/projects/${shop.projectId}`, RITA);
    const codeHost = page.getByRole('region', { name: 'Code host' });
    await codeHost.getByText('Linked to acme/shop through Acme GitHub (GitHub)', { exact: false }).waitFor(UNTIL_SHOWN);
    await codeHost.getByText('The team’s owners and admins see its connections and may change or remove the link.').waitFor();
    expect(await codeHost.getByRole('form').count()).toBe(0);
    expect(await codeHost.getByRole('button', { name: 'Unlink' }).count()).toBe(0);
    // The calls made are any member's to see.
    await codeHost.getByRole('region', { name: 'Calls to the code host' }).waitFor(UNTIL_SHOWN);
    await expectAccessible(page, 'project with its code host, read-only');
    await page.context().close();
  });

  it('unlinks the code host', async ({ base, ada: page, shop }) => {
    await page.goto(`${base}/projects/${shop.projectId}`);
    const codeHost = page.getByRole('region', { name: 'Code host' });
    await codeHost.getByRole('button', { name: 'Unlink' }).click();
    await codeHost.getByText('Unlink acme/shop?', { exact: false }).waitFor();
    await codeHost.getByRole('button', { name: 'Yes, unlink' }).click();
    await codeHost.getByText('The code host was unlinked.').waitFor(UNTIL_SHOWN);
    await codeHost.getByText('No code host is linked: nothing is posted on commits or pull requests.').waitFor(UNTIL_SHOWN);
    expect(await codeHost.getByRole('button', { name: 'Link repository' }).count()).toBe(1);
    expect(await codeHost.getByRole('region', { name: 'Calls to the code host' }).count()).toBe(0);
    await expectAccessible(page, 'project with its code host unlinked');
  });
});
