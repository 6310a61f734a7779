import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { describe, expect, it as plainIt } from 'vitest';
import {
  dashboardTest as it,
  expectAccessible,
  hasChromium,
  screenshot,
  startDashboardWorld,
  submitSignIn,
  warnWithoutChromium,
} from './dashboard-browser.js';

/**
 * Issue 18, item 5: sign-in in a real Chromium, each case on a fresh service (its own D8 budget of 10
 * requests a minute for a signed-out address): the form works from the keyboard alone; E7's lockout
 * after five failures is said in words; and a page of another origin, with the person signed in
 * here, cannot make the API change anything (the session's writes need its CSRF token).
 */
warnWithoutChromium('sign-in browser tests');

describe.skipIf(!hasChromium)('signing in, in Chromium', () => {
  it('signs in with the keyboard alone: Tab to each field, Enter to submit', async ({ world, base, page }) => {
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email').waitFor();
    // A newcomer without an account, or without a password, is told which command gives one.
    const hints = await page.locator('p.hint').allTextContents();
    expect(hints.join(' ')).toContain('scoreboard users:create --email you@example.com --password-stdin');
    expect(hints.join(' ')).toContain('scoreboard users:password --email you@example.com');
    // From the top of the page: the skip link, the brand, then the form's fields, in reading order.
    for (let presses = 0; presses < 10; presses++) {
      await page.keyboard.press('Tab');
      if (await page.getByLabel('Email').evaluate((element) => element === document.activeElement)) break;
    }
    await page.keyboard.type(world.user.email);
    await page.keyboard.press('Tab');
    expect(await page.getByLabel('Password').evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.type(world.user.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/`);
    await page.getByRole('heading', { level: 1 }).waitFor();
  });

  it('refuses writes from a page of another origin while the person is signed in here', async ({ base, page }) => {
    const before = await projectCount(page);
    // Same site, other port: the browser sends the session cookie (SameSite=Lax is about sites), so
    // only the CSRF token stands between that page and the API. A site of its own (localhost) too.
    for (const host of ['127.0.0.1', 'localhost']) {
      const attacker = await serveAttackPage(base);
      try {
        // The person, signed in here, opens the other origin's page in another tab of the same browser.
        const attackPage = await page.context().newPage();
        await attackPage.goto(`http://${host}:${(attacker.address() as AddressInfo).port}/`);
        await attackPage.getByText('done').waitFor();
        await attackPage.close();
      } finally {
        attacker.close();
      }
    }
    await page.goto(`${base}/projects/new`);
    expect(await projectCount(page)).toBe(before);
    // The person is still signed in here (the forged sign-out was refused too), and their own page still works.
    await page.getByLabel('Name').fill('Mine');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.locator('#api-token').waitFor();
    expect(await projectCount(page)).toBe(before + 1);
  });

  it('loaded nothing from another origin on our pages, broke no rule of the policy, threw nothing', ({ watch }) => {
    expect(watch.foreignRequests).toEqual([]);
    expect(watch.policyViolations).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
  });
});

async function projectCount(page: Page): Promise<number> {
  const answer = await page.evaluate(async () => (await fetch('/api/v1/projects')).json());
  return (answer as { meta: { total: number } }).meta.total;
}

// A service of its own: the first one's signed-out requests have spent much of this address's D8 budget.
describe.skipIf(!hasChromium)('a locked email, in Chromium', () => {
  plainIt('says so when an email is locked after five failed sign-ins, and the right password waits too', async () => {
    const world = await startDashboardWorld();
    try {
      const page = await world.browser.newPage({ viewport: { width: 1440, height: 900 } });
      const base = world.server.url;
      await page.goto(`${base}/sign-in`);
      for (let attempt = 1; attempt <= 5; attempt++) {
        await submitSignIn(page, { email: world.user.email, password: `wrong password number ${attempt}` });
        await expect.poll(() => page.getByRole('alert').first().textContent()).toBe('These credentials do not match our records.');
        await page.getByRole('button', { name: 'Sign in' }).and(page.locator(':enabled')).waitFor();
      }
      await submitSignIn(page, world.user);
      await expect
        .poll(() => page.getByRole('alert').first().textContent())
        .toBe('Too many failed sign-in attempts for this email. Try again in 15 minutes.');
      expect(page.url()).toMatch(/\/sign-in/);
      await expectAccessible(page, 'sign-in locked');
      await screenshot(page, 'sign-in-locked');
    } finally {
      await world.close();
    }
  });
});

/**
 * A page of another origin that tries what a cross-site request forgery would: an HTML form posting
 * to the API (no JSON possible), and scripted requests with the cookie (`credentials: 'include'`),
 * JSON (which needs a CORS preflight the API never grants) and text/plain (which does not).
 */
function serveAttackPage(target: string): Promise<Server> {
  const html = `<!doctype html><html><body>
<form id="f" method="post" action="${target}/api/v1/projects" enctype="text/plain" target="sink">
<input name='{"name":"Forged","framework_version":"12","x":"' value='"}'></form>
<iframe name="sink" title="sink"></iframe>
<script>
(async () => {
  document.getElementById('f').submit();
  const body = JSON.stringify({ name: 'Forged', framework_version: '12' });
  await fetch('${target}/api/v1/projects', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body }).catch(() => {});
  await fetch('${target}/api/v1/projects', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body }).catch(() => {});
  await fetch('${target}/api/v1/session', { method: 'DELETE', mode: 'no-cors', credentials: 'include' }).catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 500));
  document.body.append('done');
})();
</script></body></html>`;
  return new Promise((resolve) => {
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(html));
    // Every address, IPv6 too: `localhost` may resolve to ::1 first.
    server.listen(0, () => resolve(server));
  });
}
