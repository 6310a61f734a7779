import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect, test } from 'vitest';
import { createSandbox, okWithInput, ROOT, type Sandbox } from '../cli/cli-process.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/**
 * The dashboard in a real Chromium (Debian's, driven by playwright-core) against a real
 * `scoreboard serve` (dist/: run `npm run build` first, which also builds the app), with a user
 * whose password was set through the CLI, as an operator would.
 */
export { CHROMIUM, hasChromium } from '../helpers/chromium.js';

/** E7: usable at both widths; every page is screenshot at each. */
export const WIDTHS = [375, 1440] as const;
export const SCREENSHOTS = join(ROOT, 'test-results', 'dashboard');

const AXE_SOURCE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface DashboardWorld {
  sandbox: Sandbox;
  server: ServerProcess;
  browser: Browser;
  user: { email: string; password: string };
  close(): Promise<void>;
}

/** `serverEnv`: settings of the server beyond the sandbox's (a test's webhook receiver on 127.0.0.1 needs private networks allowed). */
export async function startDashboardWorld(serverEnv: Record<string, string> = {}): Promise<DashboardWorld> {
  const sandbox = await createSandbox({ migrated: true });
  const user = { email: 'ada@example.com', password: 'correct horse battery staple' };
  await createUserWithPassword(sandbox, { ...user, name: 'Ada' });
  const server = await startServerProcess(sandbox, serverEnv);
  const browser = await launchChromium();
  return {
    sandbox,
    server,
    browser,
    user,
    async close() {
      await browser.close();
      await server.kill('SIGTERM');
      await sandbox.cleanup();
    },
  };
}

async function createUserWithPassword(sandbox: Sandbox, user: { email: string; password: string; name?: string }): Promise<void> {
  const name = user.name === undefined ? [] : ['--name', user.name];
  await okWithInput(sandbox, `${user.password}\n`, 'users:create', '--email', user.email, ...name, '--password-stdin');
}

/** Fills the sign-in form the page shows and submits it (what follows, a redirect or an alert, is the caller's to wait for). */
export async function submitSignIn(page: Page, user: { email: string; password: string }): Promise<void> {
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** What a page did that it must not: requests to another origin, scripts or styles the policy blocked, uncaught errors. */
export interface PageWatch {
  foreignRequests: string[];
  policyViolations: string[];
  pageErrors: string[];
}

export function watchPage(page: Page, origin: string): PageWatch {
  const watch: PageWatch = { foreignRequests: [], policyViolations: [], pageErrors: [] };
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) watch.foreignRequests.push(url);
  });
  // A blocked script, style, image or fetch shows up as a console error naming the policy.
  page.on('console', (message) => {
    if (/Content[- ]Security[- ]Policy/i.test(message.text())) watch.policyViolations.push(message.text());
  });
  page.on('pageerror', (error) => watch.pageErrors.push(error.message));
  return watch;
}

/**
 * axe-core on the page as it is now: no serious or critical violation (E7). The library goes in
 * through `evaluate`, which the page's Content-Security-Policy does not govern (a script tag would be blocked).
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe;
    const { violations } = await axe.run();
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node: any) => node.target.join(' ')).join(', ')})`,
      );
  });
  expect(violations, `axe-core on the ${name} page`).toEqual([]);
}

/**
 * Screenshots of the page at each width, as `test-results/dashboard/<name>-<width>.png`, then back to
 * the widest. At each width nothing may make the page scroll sideways (E7: usable at 375 px); a
 * chart follows the width a moment later (a ResizeObserver callback), hence the poll.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth), { message: `${name} is wider than ${width} px` })
      .toBeLessThanOrEqual(width);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
}

/**
 * The browser tests' fixtures, all made once for the file (its tests run in order on one page):
 * `world` (the dashboard started, closed after the file's last test), `base` (its URL), `page`
 * (a page at 1440 × 900; `page.context().newPage()` opens another tab in its session) and `watch`
 * (what that page loads and breaks).
 */
export const dashboardTest = dashboardTestWith({});

/** `dashboardTest` with the server started with `serverEnv` added to its environment. */
export function dashboardTestWith(serverEnv: Record<string, string>) {
  return (
    test
      // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern
      .extend('world', { scope: 'file' }, async ({}, { onCleanup }) => {
        const world = await startDashboardWorld(serverEnv);
        onCleanup(() => world.close());
        return world;
      })
      .extend('base', { scope: 'file' }, ({ world }) => world.server.url)
      // The page is watched from its start, whichever of the two a test names first.
      // In a context of its own (not `browser.newPage()`'s), so that a test can open another tab in the same session.
      .extend('watchedPage', { scope: 'file' }, async ({ world, base }) => {
        const page = await (await world.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
        return { page, watch: watchPage(page, base) };
      })
      .extend('page', { scope: 'file' }, ({ watchedPage }) => watchedPage.page)
      .extend('watch', { scope: 'file' }, ({ watchedPage }) => watchedPage.watch)
      /** A user who can sign in to the dashboard, made as an operator would: `users:create --password-stdin`. */
      .extend(
        'createUser',
        { scope: 'file' },
        ({ world }) =>
          (user: { email: string; password: string; name?: string }) =>
            createUserWithPassword(world.sandbox, user),
      )
      /** Opens `path` signed out on `page`, is sent to sign in (the sign-in page names `path` to come back to), signs in as `user` and is back at `path`. */
      .extend(
        'signInThrough',
        { scope: 'file' },
        ({ base }) =>
          async (page: Page, path: string, user: { email: string; password: string }) => {
            await page.goto(`${base}${path}`);
            await page.waitForURL(`${base}/sign-in?next=${encodeURIComponent(path)}`);
            await submitSignIn(page, user);
            await page.waitForURL(`${base}${path}`);
          },
      )
  );
}

/** Says why a file's browser tests are skipped when there is no Chromium. */
export function warnWithoutChromium(what: string): void {
  if (!hasChromium)
    console.warn(`[scoreboard] ${what} skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
}
