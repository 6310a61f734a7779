import { describe, expect } from 'vitest';
import { ok } from '../cli/cli-process.js';
import { dashboardTest, expectAccessible, hasChromium, screenshot, warnWithoutChromium } from './dashboard-browser.js';

/**
 * E11.6 in the dashboard: the profile's notifications (two switches, the severity of new issues, the
 * weekly digest) are saved and shown again after a reload; the server has no SMTP, so the section
 * says email is not configured; a project's page mutes and unmutes it, and the profile counts the
 * muted projects. axe-core on each, screenshots at 375 and 1440 px.
 */
warnWithoutChromium('notifications browser tests');

const it = dashboardTest.extend('projectId', { scope: 'file' }, async ({ world, base }) => {
  const { token } = JSON.parse(await ok(world.sandbox, 'tokens:create', '--email', world.user.email, '--json')) as { token: string };
  const created = await fetch(`${base}/api/v1/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Shop', framework_version: '11' }),
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { project: { id: string } }).project.id;
});

describe.skipIf(!hasChromium)('notifications in Chromium', () => {
  it('shows the defaults on the profile, and says that this server sends no email', async ({ world, page, signInThrough }) => {
    await signInThrough(page, '/profile', world.user);
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    await page.getByText('Email is not configured on this server').waitFor();
    expect(await page.getByLabel("a branch's quality gate fails, and when it passes again").isChecked()).toBe(true);
    expect(await page.getByLabel('someone assigns an issue to me').isChecked()).toBe(true);
    expect(await page.getByLabel('A weekly digest of my projects, on Monday mornings').isChecked()).toBe(false);
    expect(await page.getByLabel('New issues').inputValue()).toBe('critical');
    await expectAccessible(page, 'profile with notifications');
  });

  it('saves the choices, and shows them again after a reload', async ({ page }) => {
    await page.getByLabel('someone assigns an issue to me').uncheck();
    await page.getByLabel('A weekly digest of my projects, on Monday mornings').check();
    await page.getByLabel('New issues').selectOption({ label: 'High and above' });
    await page.getByRole('button', { name: 'Save notifications' }).click();
    await page.getByText('Your notification settings were saved.').waitFor();

    await page.reload();
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    await page.getByLabel('New issues').waitFor();
    expect(await page.getByLabel('someone assigns an issue to me').isChecked()).toBe(false);
    expect(await page.getByLabel('A weekly digest of my projects, on Monday mornings').isChecked()).toBe(true);
    expect(await page.getByLabel("a branch's quality gate fails, and when it passes again").isChecked()).toBe(true);
    expect(await page.getByLabel('New issues').inputValue()).toBe('high');
    const stored = await page.evaluate(async () => (await fetch('/api/v1/user/notifications')).json());
    expect(stored).toEqual({
      data: { gate_failed: true, new_issues: 'high', weekly_digest: true, assigned: false, muted_projects: [], email_available: false },
    });
    await screenshot(page, 'profile-notifications');
  });

  it('mutes and unmutes a project from its page; the profile counts what is muted', async ({ base, page, projectId }) => {
    await page.goto(`${base}/projects/${projectId}`);
    await page.getByRole('heading', { name: 'Shop', level: 1 }).waitFor();
    const mute = page.getByRole('button', { name: 'Mute', exact: true });
    await mute.click();
    const unmute = page.getByRole('button', { name: 'Unmute', exact: true });
    await unmute.waitFor();
    expect(await unmute.getAttribute('aria-pressed')).toBe('true');
    await page.getByText('This project sends you no notifications.').waitFor();
    await expectAccessible(page, 'muted project');

    await page.goto(`${base}/profile`);
    await page.getByText('One project is muted').waitFor();
    // Saving the other choices leaves the muted project alone.
    await page.getByRole('button', { name: 'Save notifications' }).click();
    await page.getByText('Your notification settings were saved.').waitFor();
    const stored = (await page.evaluate(async () => (await fetch('/api/v1/user/notifications')).json())) as {
      data: { muted_projects: string[] };
    };
    expect(stored.data.muted_projects).toEqual([projectId]);

    await page.goto(`${base}/projects/${projectId}`);
    await page.getByRole('button', { name: 'Unmute', exact: true }).click();
    await page.getByRole('button', { name: 'Mute', exact: true }).waitFor();
    const after = (await page.evaluate(async () => (await fetch('/api/v1/user/notifications')).json())) as {
      data: { muted_projects: string[] };
    };
    expect(after.data.muted_projects).toEqual([]);
  });

  it('loaded nothing from another origin, broke no rule of the policy, threw nothing', ({ watch }) => {
    expect(watch.foreignRequests).toEqual([]);
    expect(watch.policyViolations).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
  });
});
