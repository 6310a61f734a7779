import { describe, expect } from 'vitest';
import { ok } from '../cli/cli-process.js';
import { dashboardTest, expectAccessible, hasChromium, screenshot, warnWithoutChromium, watchPage } from './dashboard-browser.js';

/**
 * E4 and E5 in the dashboard: Ada (made Business) creates a team and invites Bob through the team
 * page; Bob, signed in in a browser of his own, accepts on the invitations page; Ada sees him as a
 * member and changes his role; the audit log shows the invitation, the joining and the role change,
 * and filters by action. Each page passes axe-core and is screenshot at 375 and 1440 px.
 */
warnWithoutChromium('team browser tests');

const BOB = { email: 'bob@example.com', password: 'bob has a long passphrase' };

const it = dashboardTest
  /** Once for the file: Ada (the world's user, made Business) on the file's page; Bob, a user too, on a page in a browser context of his own. */
  .extend('people', { scope: 'file' }, async ({ world, base, page, watch, createUser }) => {
    await ok(world.sandbox, 'users:plan', '--email', world.user.email, '--plan', 'business');
    await createUser({ ...BOB, name: 'Bob' });
    // Ada's personal team has a project, so that her new team's empty page has somewhere to point.
    const { token } = JSON.parse(await ok(world.sandbox, 'tokens:create', '--email', world.user.email, '--json')) as { token: string };
    const project = await fetch(`${base}/api/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Shop', framework_version: '11' }),
    });
    expect(project.status).toBe(201);
    const bob = await (await world.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    return { ada: page, bob, watches: [watch, watchPage(bob, base)] };
  });

describe.skipIf(!hasChromium)('the team, invitations and audit log pages in Chromium', () => {
  let teamUrl = '';

  it('creates a team from the invitations page and opens it', async ({ world, signInThrough, people: { ada } }) => {
    await signInThrough(ada, '/invitations', world.user);
    await ada.getByText('No invitations are waiting for you.').waitFor();
    await ada.getByLabel('Team name').fill('Acme');
    await ada.getByRole('button', { name: 'Create team' }).click();
    await ada.waitForURL(/\/teams\/\d+$/);
    teamUrl = ada.url();
    await ada.getByRole('heading', { name: 'Acme', level: 1 }).waitFor();
    await ada.getByText('No invitations are waiting.').waitFor();
    // The navigation's Team link follows the new current team.
    expect(await ada.getByRole('link', { name: 'Team', exact: true }).getAttribute('href')).toBe(new URL(teamUrl).pathname);
    // The team switcher reads the teams again: the new one is listed, and chosen, without a reload.
    const switcher = ada.getByLabel('Team', { exact: true });
    await expect.poll(() => switcher.locator('option:checked').textContent()).toBe('Acme');
  });

  it('says where the projects went when the new team has none: the other team, one click away', async ({ base, people: { ada } }) => {
    await ada.goto(`${base}/`);
    await ada.getByText('This team has no projects yet.').waitFor();
    await ada.getByText('Your projects in your other teams:').waitFor();
    expect(await ada.locator('.other-teams li').allTextContents()).toEqual(["Ada's team: 1 project Switch to Ada's team"]);
    await expectAccessible(ada, 'projects of a team without any');
    await screenshot(ada, 'projects-other-teams');
    await ada.getByRole('button', { name: "Switch to Ada's team" }).click();
    await ada.getByRole('link', { name: 'Shop' }).waitFor();
    const switcher = ada.getByLabel('Team', { exact: true });
    expect(await switcher.locator('option:checked').textContent()).toBe("Ada's team");
    // Back to Acme, where the rest of this file works.
    await switcher.selectOption({ label: 'Acme' });
    await ada.getByText('This team has no projects yet.').waitFor();
    await ada.goto(teamUrl);
    await ada.getByRole('heading', { name: 'Acme', level: 1 }).waitFor();
  });

  it('invites Bob: a bad email is said at the field, then the invitation is pending', async ({ people: { ada } }) => {
    const invite = ada.locator('form', { has: ada.getByRole('heading', { name: 'Invite someone' }) });
    await invite.getByLabel('Email').fill('not an email');
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await ada.locator('#field-email-errors').waitFor();
    expect(await invite.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(ada, 'team with an invitation error');

    await invite.getByLabel('Email').fill(BOB.email);
    expect(await invite.getByLabel('Role').inputValue()).toBe('member');
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await ada.getByRole('button', { name: `Cancel invitation for ${BOB.email}` }).waitFor();
    expect(await ada.locator('#field-email-errors').count()).toBe(0);
  });

  it('shows Bob the invitation; he accepts it and reaches the team', async ({ signInThrough, people: { bob } }) => {
    await signInThrough(bob, '/invitations', BOB);
    const card = bob.locator('.card', { hasText: 'Acme' });
    await card.waitFor();
    expect(await card.textContent()).toContain('Member');
    expect(await card.textContent()).toContain('Ada');
    // Bob's plan is not Business: the service refuses him a team of his own, in words.
    await bob.getByLabel('Team name').fill('Bob’s band');
    await bob.getByRole('button', { name: 'Create team' }).click();
    await bob.getByText('Creating a team requires a Business or Enterprise plan.').waitFor();
    await expectAccessible(bob, 'invitations');
    await screenshot(bob, 'invitations');

    await card.getByRole('button', { name: 'Accept the invitation to Acme' }).click();
    await bob.getByRole('link', { name: 'Go to Acme' }).click();
    await bob.waitForURL(teamUrl);
    await bob.getByRole('heading', { name: 'Acme', level: 1 }).waitFor();
    await bob.getByText('Your role: Member.').waitFor();
    // A member manages nothing: no invitations, no rename, but he may leave.
    expect(await bob.getByRole('heading', { name: 'Invite someone' }).count()).toBe(0);
    expect(await bob.getByRole('heading', { name: 'Team name' }).count()).toBe(0);
    await bob.getByRole('button', { name: 'Leave team' }).waitFor();
    await expectAccessible(bob, 'team as a member');

    await bob.getByRole('link', { name: 'Invitations' }).click();
    await bob.getByText('No invitations are waiting for you.').waitFor();
  });

  it('shows Ada that Bob joined; she makes him an admin', async ({ people: { ada } }) => {
    await ada.reload();
    const card = ada.locator('.card', { hasText: BOB.email });
    await card.waitFor();
    await ada.getByText('No invitations are waiting.').waitFor();
    expect(await card.getByLabel('Role of Bob').inputValue()).toBe('member');
    await card.getByLabel('Role of Bob').selectOption('admin');
    await card.getByRole('button', { name: 'Change role' }).click();
    await card.getByText('Role changed to Admin.').waitFor();
    await expect.poll(() => card.locator('dd').nth(1).textContent()).toBe('Admin');
    // Ada owns the team: she may hand it over, and delete it (it is not her personal team).
    await ada.getByLabel('Transfer ownership to').waitFor();
    await ada.getByRole('button', { name: 'Delete team' }).waitFor();
    await expectAccessible(ada, 'team');
    await screenshot(ada, 'team');
    await ada.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(ada, 'team (dark)');
    await ada.emulateMedia({ colorScheme: 'light' });
  });

  it('lists the team’s invitation, joining and role change in the audit log, and filters by action in the URL', async ({
    world,
    base,
    people: { ada },
  }) => {
    await ada.getByRole('link', { name: 'Audit log' }).click();
    await ada.waitForURL(`${base}/audit`);
    await ada.getByRole('region', { name: /Audit events of your actions/ }).waitFor();

    await ada.getByLabel('Events of', { exact: true }).selectOption({ label: 'Team Acme' });
    await ada.getByRole('button', { name: 'Show events' }).click();
    const teamId = new URL(teamUrl).pathname.split('/').pop();
    await ada.waitForURL(`${base}/audit?team=${teamId}`);
    const table = ada.getByRole('region', { name: 'Audit events of Acme' });
    await table.waitFor();
    const actions = await table.locator('tbody td:nth-child(2)').allTextContents();
    expect(actions).toEqual(expect.arrayContaining(['member.invited', 'member.joined', 'member.role_changed']));
    const roleChange = table.locator('tr', { hasText: 'member.role_changed' });
    expect(await roleChange.textContent()).toContain('role: member → admin');
    expect(await roleChange.textContent()).toContain(`${world.user.email} · dashboard`);
    await expectAccessible(ada, 'audit');
    await screenshot(ada, 'audit');

    await ada.getByLabel('Action', { exact: true }).selectOption('member.joined');
    await ada.getByRole('button', { name: 'Show events' }).click();
    await ada.waitForURL(`${base}/audit?team=${teamId}&action=member.joined`);
    const filtered = ada.getByRole('region', { name: 'Audit events of Acme: member.joined' });
    await filtered.waitFor();
    expect(await filtered.locator('tbody tr').count()).toBe(1);
    expect(await filtered.locator('tbody tr').textContent()).toContain(`${BOB.email} · dashboard`);

    // The URL holds the state: a reload keeps it, back returns to the unfiltered list.
    await ada.reload();
    await filtered.waitFor();
    expect(await ada.getByLabel('Action', { exact: true }).inputValue()).toBe('member.joined');
    await ada.goBack();
    await ada.waitForURL(`${base}/audit?team=${teamId}`);
    await table.waitFor();
    expect(await ada.getByLabel('Action', { exact: true }).inputValue()).toBe('');

    await ada.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(ada, 'audit (dark)');
    await screenshot(ada, 'audit-dark');
    await ada.emulateMedia({ colorScheme: 'light' });
  });

  it('lets Bob leave after a confirmation; Ada sees him gone', async ({ base, people: { ada, bob } }) => {
    await bob.goto(teamUrl);
    await bob.getByRole('button', { name: 'Leave team' }).click();
    await bob.getByRole('button', { name: 'Yes, leave team' }).click();
    await bob.waitForURL(`${base}/`);

    await ada.goto(teamUrl);
    await ada.getByText('Your role: Owner. 1 member, 0 projects.').waitFor();
    expect(await ada.locator('.card', { hasText: BOB.email }).count()).toBe(0);
  });

  it('loaded nothing from another origin, broke no rule of the policy, threw nothing', ({ people: { watches } }) => {
    for (const watch of watches) {
      expect(watch.foreignRequests).toEqual([]);
      expect(watch.policyViolations).toEqual([]);
      expect(watch.pageErrors).toEqual([]);
    }
  });
});
