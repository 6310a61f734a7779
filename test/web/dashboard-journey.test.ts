import { describe, expect } from 'vitest';
import { CLIENT_POST_HEADERS, fixtureText } from '../helpers/client-wire.js';
import { dashboardTest, expectAccessible, hasChromium, screenshot, submitSignIn, warnWithoutChromium } from './dashboard-browser.js';

const it = dashboardTest.extend(
  'signIn',
  ({ page, world }) =>
    (password: string) =>
      submitSignIn(page, { email: world.user.email, password }),
);

/**
 * Issue 18, the whole journey: a person signs in through the page, sees the projects of their team,
 * creates a project and gets its token once; the client package's reports (two real fixtures through
 * /api/reports) then show as score, gate, new issues and a sparkline, the project's trend and the
 * report's new and fixed issues; they change the gate, create and revoke a token, invite a colleague
 * who accepts in another browser, sign out, and the session is refused afterwards. Every page passes axe-core, loads nothing from another origin and breaks no rule of its
 * Content-Security-Policy; each is screenshot at 375 and 1440 px under test-results/dashboard/.
 */
warnWithoutChromium('dashboard browser tests');

describe.skipIf(!hasChromium)('the dashboard in Chromium', () => {
  it('sends a visitor to sign in, and back to the page they asked for afterwards', async ({ world, base, page, signIn }) => {
    await page.goto(`${base}/projects/new`);
    await page.waitForURL(`${base}/sign-in?next=%2Fprojects%2Fnew`);
    await expectAccessible(page, 'sign-in');
    await screenshot(page, 'sign-in');

    await signIn('not the password at all');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toBe('These credentials do not match our records.');
    await expectAccessible(page, 'sign-in with an error');

    await signIn(world.user.password);
    await page.waitForURL(`${base}/projects/new`);
    await page.getByRole('heading', { name: 'New project' }).waitFor();
  });

  it('shows an empty team what to do next', async ({ base, page }) => {
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.waitForURL(`${base}/`);
    await page.getByText('This team has no projects yet.').waitFor();
    await expectAccessible(page, 'projects (empty)');
    await screenshot(page, 'projects-empty');
  });

  it('creates a project: its field errors at the field, then its token once with the client’s set-up', async ({ base, page }) => {
    await page.getByRole('link', { name: 'New project' }).click();
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.locator('#field-name-errors').waitFor();
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'new project with errors');
    await screenshot(page, 'new-project-errors');

    await page.getByLabel('Name').fill('Shop');
    await page.getByRole('button', { name: 'Create project' }).click();
    const token = (await page.locator('#api-token').textContent()) ?? '';
    expect(token).toMatch(/^[A-Za-z0-9]{40}$/);
    const setUp = (await page.locator('main').textContent()) ?? '';
    expect(setUp).toContain('composer require --dev shieldci/laravel');
    expect(setUp).toContain(`SHIELDCI_API_URL=${base}`);
    expect(setUp).toContain(`SHIELDCI_TOKEN=${token}`);
    await expectAccessible(page, 'project created');
    await screenshot(page, 'new-project-token');

    // The client package reports twice with this token; the projects page shows the result.
    const projectId = /SHIELDCI_PROJECT_ID=([0-9a-f-]{36})/.exec(setUp)![1]!;
    for (const fixture of ['report-small', 'report-full'] as const) {
      const upload = await fetch(`${base}/api/reports`, {
        method: 'POST',
        headers: { ...CLIENT_POST_HEADERS, authorization: `Bearer ${token}` },
        body: fixtureText(fixture, projectId),
      });
      expect(upload.status).toBe(201);
    }
  });

  it('lists the project with its score, gate, new issues and sparkline; a reload stays on the page', async ({ base, page }) => {
    await page.getByRole('link', { name: 'Back to projects' }).click();
    const row = page.locator('.project', { hasText: 'Shop' });
    await row.locator('svg.sparkline').waitFor();
    expect(await row.locator('.score').textContent()).toMatch(/^\d+$/);
    expect(await row.locator('.gate').textContent()).toMatch(/^(Passed|Failed)$/);
    expect(await row.getByRole('img').getAttribute('aria-label')).toMatch(/^Score trend of the last 2 reports: \d+, \d+$/);
    await expectAccessible(page, 'projects');
    await screenshot(page, 'projects');

    await page.reload();
    await row.locator('svg.sparkline').waitFor();
    expect(page.url()).toBe(`${base}/`);
  });

  it('opens the project: the score trend is drawn, and a gate setting is saved', async ({ page }) => {
    await page.locator('.project', { hasText: 'Shop' }).getByRole('link', { name: 'Shop' }).click();
    await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/);
    await page.locator('.trend-canvas canvas').first().waitFor();
    await page.getByLabel('Minimum score').fill('60');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('The settings were saved.').waitFor();
    await page.reload();
    await page.locator('.trend-canvas canvas').first().waitFor();
    expect(await page.getByLabel('Minimum score').inputValue()).toBe('60');
  });

  it('opens the latest report: what it changed, new and fixed issues', async ({ page }) => {
    // report-full is a pull request's run against main, where report-small ran: its baseline.
    await page.locator('.project-reports tbody tr').first().getByRole('link').click();
    await page.waitForURL(/\/reports\/[0-9a-f-]{36}$/);
    const sections = page.getByRole('navigation', { name: 'Sections of the report' });
    await sections.getByRole('link', { name: /^New/ }).click();
    await page.waitForURL(/[?&]tab=new/);
    const issues = page.locator('section.panel', { has: page.locator('#report-new-title') });
    await expect.poll(() => issues.locator('.issue').count()).toBeGreaterThan(0);
    expect(await issues.locator('.issue .tag').count()).toBe(await issues.locator('.issue').count());
    await sections.getByRole('link', { name: /^Fixed/ }).click();
    await page.waitForURL(/[?&]tab=fixed/);
    const fixed = page.locator('section.panel', { has: page.locator('#report-fixed-title') });
    await expect.poll(async () => new Set(await fixed.locator('.issue .change').allTextContents())).toEqual(new Set(['Fixed']));
  });

  it('switches team: the projects page shows the other team’s projects', async ({ world, base, page }) => {
    // A second team, which the CLI makes the current one; the page learns it on reload.
    const created = await world.sandbox.cli('teams:create', '--owner', world.user.email, '--name', 'Platform');
    expect(created.code, created.stderr).toBe(0);
    await page.goto(`${base}/`);
    await page.getByText('This team has no projects yet.').waitFor();
    const switcher = page.getByLabel('Team', { exact: true });
    expect(await switcher.locator('option:checked').textContent()).toBe('Platform');

    await switcher.selectOption({ label: "Ada's team" });
    await page.locator('.project', { hasText: 'Shop' }).waitFor();
    await page.reload();
    expect(await page.getByLabel('Team', { exact: true }).locator('option:checked').textContent()).toBe("Ada's team");
  });

  it('follows the system’s dark mode, still accessible', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'projects (dark)');
    await screenshot(page, 'projects-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('creates a token with its abilities, shows it once, and revokes it', async ({ base, page }) => {
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.locator('#field-name-errors').waitFor();

    await page.getByLabel('Name').fill('CI pipeline');
    await page.getByRole('checkbox', { name: /^Write/ }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.locator('#new-token').textContent()) ?? '';
    expect(secret).toMatch(/^service_[A-Za-z0-9]{40}[0-9a-f]{8}$/);
    const card = page.locator('.card', { hasText: 'CI pipeline' });
    expect(await card.locator('dd').first().textContent()).toBe('read, write');
    const read = await fetch(`${base}/api/v1/projects`, { headers: { authorization: `Bearer ${secret}` } });
    expect(read.status).toBe(200);
    await expectAccessible(page, 'tokens');
    await screenshot(page, 'tokens');

    await card.getByRole('button', { name: 'Revoke' }).click();
    await card.getByRole('button', { name: 'Yes, revoke' }).click();
    await card.waitFor({ state: 'detached' });
    const refused = await fetch(`${base}/api/v1/projects`, { headers: { authorization: `Bearer ${secret}` } });
    expect(refused.status).toBe(401);
  });

  it('invites a colleague, who signs in in another browser and accepts; the team then lists them', async ({
    world,
    page,
    createUser,
    signInThrough,
  }) => {
    const colleague = { email: 'grace@example.com', password: 'another long passphrase' };
    await createUser(colleague);
    await page.getByRole('link', { name: 'Team', exact: true }).click();
    await page.waitForURL(/\/teams\/\d+$/);
    const teamUrl = page.url();
    const invite = page.locator('form', { has: page.getByRole('heading', { name: 'Invite someone' }) });
    await invite.getByLabel('Email').fill(colleague.email);
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('button', { name: `Cancel invitation for ${colleague.email}` }).waitFor();

    const other = await world.browser.newPage({ viewport: { width: 375, height: 800 } });
    try {
      await signInThrough(other, '/invitations', colleague);
      await other.getByRole('button', { name: /^Accept the invitation to / }).click();
      await other.getByRole('link', { name: /^Go to / }).click();
      await other.waitForURL(teamUrl);
      await other.getByText('Your role: Member.').waitFor();
    } finally {
      await other.close();
    }
    await page.reload();
    await page.locator('main').getByText(colleague.email).first().waitFor();
  });

  it('changes the name, and says at the field when the current password is wrong', async ({ page }) => {
    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Your name was saved.').waitFor();

    await page.getByLabel('Current password').fill('not my password at all');
    await page.getByLabel('New password').fill('an even better passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('#field-current_password-errors').waitFor();
    expect(await page.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'profile');
    await screenshot(page, 'profile');
  });

  it('signs out: back to sign-in, and the session is refused afterwards', async ({ base, page }) => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/sign-in`);
    const status = await page.evaluate(async () => (await fetch('/api/v1/session')).status);
    expect(status).toBe(401);
    await page.goto(`${base}/tokens`);
    await page.waitForURL(`${base}/sign-in?next=%2Ftokens`);
  });

  it('says when sign-in may be tried again after too many attempts', async ({ page }) => {
    // The sixth failure in a row is a 429 with Retry-After: D8's budget of 10 requests a minute for
    // a signed-out IP (the page's own calls count too), or else E7's lockout after five failures.
    for (let attempt = 1; attempt <= 6; attempt++) {
      await page.getByLabel('Email').fill('nobody@example.com');
      await page.getByLabel('Password').fill(`wrong password number ${attempt}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign in' }).and(page.locator(':enabled')).waitFor();
    }
    expect(await page.getByRole('alert').first().textContent()).toMatch(/^Too many requests — try again in \d+ seconds?\.$/);
    await expectAccessible(page, 'sign-in refused for now');
    await screenshot(page, 'sign-in-too-many');
  });

  it('loaded nothing from another origin, broke no rule of the policy, threw nothing', ({ watch }) => {
    expect(watch.foreignRequests).toEqual([]);
    expect(watch.policyViolations).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
  });
});
