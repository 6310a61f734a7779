import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { CLIENT_POST_HEADERS, loadFixture } from '../helpers/client-wire.js';
import { join } from 'node:path';
import { dashboardTest, expectAccessible, hasChromium, SCREENSHOTS, screenshot, warnWithoutChromium } from './dashboard-browser.js';

/** The project the file creates (its first test), which the helpers below address. */
let projectId: string;
let token: string;

const DAY = 24 * 60 * 60 * 1000;
const COMMIT = '9fceb02d0ae598e95dc970b74767f19372d61af8';

const it = dashboardTest
  /** A client upload of report-small on `branch`, analyzed `daysAgo` days before now (the service refuses future times). */
  .extend(
    'upload',
    ({ base }) =>
      async function upload(branch: string, daysAgo: number, commit = COMMIT): Promise<void> {
        const report = loadFixture('report-small', projectId);
        report.metadata.git_branch = branch;
        report.metadata.git_commit = commit;
        report.analyzed_at = new Date(Date.now() - daysAgo * DAY).toISOString();
        const answer = await fetch(`${base}/api/reports`, {
          method: 'POST',
          headers: { ...CLIENT_POST_HEADERS, authorization: `Bearer ${token}` },
          body: JSON.stringify(report),
        });
        expect(answer.status, await answer.text()).toBe(201);
      },
  )
  .extend(
    'projectUrl',
    ({ base }) =>
      () =>
        `${base}/projects/${projectId}`,
  );

/** The plot area's left and right ends, in the chart box's pixels (where the tooltip is placed). */
function plotArea(page: Page): Promise<{ left: number; right: number; top: number; bottom: number }> {
  return page.locator('.trend-plot').evaluate((box) => {
    const origin = box.getBoundingClientRect();
    const area = box.querySelector('.u-over')!.getBoundingClientRect();
    return { left: area.left - origin.left, right: area.right - origin.left, top: area.top - origin.top, bottom: area.bottom - origin.top };
  });
}

/** Where the tooltip points (its `left`, the point's x in the chart box), once it shows. */
async function tooltipX(page: Page): Promise<number> {
  const tooltip = page.locator('.trend-tooltip:not([hidden])');
  await tooltip.waitFor();
  return tooltip.evaluate((element: HTMLElement) => Number.parseFloat(element.style.left));
}

/** The x of every point, read by walking the chart with the keyboard (Home, then the right arrow). */
async function pointXs(page: Page, count: number): Promise<number[]> {
  const slider = page.getByRole('slider');
  await slider.focus();
  await slider.press('Home');
  const xs = [await tooltipX(page)];
  for (let index = 1; index < count; index++) {
    await slider.press('ArrowRight');
    await expect.poll(() => slider.getAttribute('aria-valuenow')).toBe(String(index + 1));
    xs.push(await tooltipX(page));
  }
  return xs;
}

/** Pixels of the gate's colour (styles.css's --failed) along the plot's row at score `score`. */
function gatePixels(page: Page, score: number): Promise<number> {
  return page.locator('.trend-canvas canvas').evaluate((canvas: HTMLCanvasElement, score) => {
    const over = canvas.parentElement!.querySelector('.u-over')!.getBoundingClientRect();
    const box = canvas.getBoundingClientRect();
    const ratio = canvas.width / box.width;
    const hex = getComputedStyle(canvas).getPropertyValue('--failed').trim();
    const gate = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
    const y = Math.round((over.top - box.top + (1 - score / 100) * over.height) * ratio);
    const row = canvas
      .getContext('2d')!
      .getImageData(Math.round((over.left - box.left) * ratio), y - 1, Math.round(over.width * ratio), 3).data;
    let found = 0;
    for (let at = 0; at < row.length; at += 4) if (gate.every((value, channel) => Math.abs(row[at + channel]! - value) < 24)) found++;
    return found;
  }, score);
}

/**
 * Issue 31 Deliver 1, the trend in Chromium: one report draws one dot in the middle of a two-day
 * axis (not years into the future); a six-month gap then seven runs in a week keeps the axis within
 * the reports and spaces the runs evenly "by run"; the tooltip gives score, date, commit and a link,
 * by pointer and by keyboard; the gate's minimum score is a line; the page opens on main although
 * release/2.0 uploaded last. axe-core and screenshots at 375 and 1440 px on the way.
 */
warnWithoutChromium('trend browser test');

describe.skipIf(!hasChromium)('the trend in Chromium', () => {
  it('draws one report as one dot in the middle of its axis, with a tooltip', async ({
    world,
    page,
    projectUrl,
    signInThrough,
    upload,
  }) => {
    await signInThrough(page, '/projects/new', world.user);
    await page.getByLabel('Name').fill('Trend');
    await page.getByLabel('Repository URL').fill('https://github.com/acme/shop');
    await page.getByRole('button', { name: 'Create project' }).click();
    token = (await page.locator('#api-token').textContent()) ?? '';
    projectId = /SHIELDCI_PROJECT_ID=([0-9a-f-]{36})/.exec((await page.locator('main').textContent()) ?? '')![1]!;

    await upload('main', 200);
    await page.goto(projectUrl());
    await page.locator('.trend-canvas canvas').first().waitFor();
    await expect.poll(() => page.locator('#trend-summary').textContent()).toMatch(/^One report, score \d+\.$/);

    // The pointer anywhere on the plot finds the one point, which is in the middle.
    const area = await plotArea(page);
    const box = await page.locator('.trend-plot').boundingBox();
    await page.mouse.move(box!.x + area.left + 10, box!.y + (area.top + area.bottom) / 2);
    const x = await tooltipX(page);
    expect(Math.abs(x - (area.left + area.right) / 2)).toBeLessThanOrEqual(1);
    const tooltip = page.locator('.trend-tooltip');
    expect(await tooltip.textContent()).toMatch(/^Score \d+.+Commit 9fceb02Open the report$/);
    expect(await tooltip.getByRole('link', { name: '9fceb02' }).getAttribute('href')).toBe(`https://github.com/acme/shop/commit/${COMMIT}`);
    expect(await tooltip.getByRole('link', { name: 'Open the report' }).getAttribute('href')).toMatch(/^\/reports\/[0-9a-f-]{36}$/);
    await expectAccessible(page, 'trend of one report');
    await page.locator('.trend-chart').screenshot({ path: join(SCREENSHOTS, 'trend-tooltip-1440.png') });
    await page.mouse.move(0, 0);
    await tooltip.and(page.locator('[hidden]')).waitFor({ state: 'attached' });
    await screenshot(page, 'trend-one-report');
  });

  it('keeps a six-month gap then seven runs within the axis, and spaces them evenly by run', async ({ page, upload, projectUrl }) => {
    for (let daysAgo = 20; daysAgo >= 14; daysAgo--) await upload('main', daysAgo);
    await page.reload();
    await expect.poll(() => page.locator('#trend-summary').textContent()).toMatch(/^8 reports/);

    // By time: the first report at the axis's left end, the last at its right end; the week squeezed.
    const area = await plotArea(page);
    const byTime = await pointXs(page, 8);
    expect(Math.abs(byTime[0]! - area.left)).toBeLessThanOrEqual(1);
    expect(Math.abs(byTime[7]! - area.right)).toBeLessThanOrEqual(1);
    expect(byTime[7]! - byTime[1]!).toBeLessThan((area.right - area.left) / 10);
    await screenshot(page, 'trend-gap-by-time');

    // By run: one step per run, the gap no wider than a day between two runs.
    await page.getByRole('radio', { name: 'By run' }).check();
    await page.waitForURL(`${projectUrl()}?axis=run`);
    await page.setViewportSize({ width: 375, height: 900 });
    // The chart redraws for the new width on its own time (a ResizeObserver): measure once it has.
    await expect.poll(async () => (await plotArea(page)).right).toBeLessThan(375);
    const narrow = await plotArea(page);
    const byRun = await pointXs(page, 8);
    const steps = byRun.slice(1).map((x, index) => x - byRun[index]!);
    for (const step of steps) expect(Math.abs(step - steps[0]!)).toBeLessThanOrEqual(1);
    expect(steps[0]).toBeGreaterThan((narrow.right - narrow.left) / 10);
    await page.setViewportSize({ width: 1440, height: 900 });
    await expectAccessible(page, 'trend by run');
    await screenshot(page, 'trend-gap-by-run');

    // The keyboard's choice opens its report.
    const slider = page.getByRole('slider');
    await slider.focus();
    await slider.press('End');
    expect(await slider.getAttribute('aria-valuetext')).toMatch(/^Score \d+, .+, commit 9fceb02$/);
    const href = await page.locator('.trend-tooltip').getByRole('link', { name: 'Open the report' }).getAttribute('href');
    await slider.press('Enter');
    await page.waitForURL(`${new URL(projectUrl()).origin}${href}`);
    await page.goBack();
    await page.waitForURL(`${projectUrl()}?axis=run`);
    await page.getByRole('radio', { name: 'By run' }).waitFor();
    expect(await page.getByRole('radio', { name: 'By run' }).isChecked()).toBe(true);
  });

  it('draws the gate’s minimum score as a line, and none without one', async ({ page }) => {
    await page.locator('.trend-canvas canvas').first().waitFor();
    expect(await gatePixels(page, 70)).toBe(0);
    await page.getByLabel('Minimum score').fill('70');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('The settings were saved.').waitFor();
    await expect.poll(() => page.locator('#trend-summary').textContent()).toMatch(/The dashed line is the gate’s minimum score, 70\.$/);
    await expect.poll(() => gatePixels(page, 70)).toBeGreaterThan(20);
    expect(await gatePixels(page, 40)).toBe(0);
    await screenshot(page, 'trend-gate');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => gatePixels(page, 70)).toBeGreaterThan(20);
    await expectAccessible(page, 'trend (dark)');
    await screenshot(page, 'trend-gate-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('opens on main although release/2.0 uploaded last', async ({ page, upload, projectUrl }) => {
    await upload('release/2.0', 1);
    await page.goto(projectUrl());
    await expect.poll(() => page.locator('.branch-list .card h3').allTextContents()).toEqual(['release/2.0', 'main']);
    await expect.poll(() => page.locator('#trend-branch').inputValue()).toBe('main');
    await expect.poll(() => page.locator('#trend-summary').textContent()).toMatch(/^8 reports/);
    await page.locator('#trend-branch').selectOption('release/2.0');
    await page.waitForURL(`${projectUrl()}?trend=release%2F2.0`);
    await expect.poll(() => page.locator('#trend-summary').textContent()).toMatch(/^One report/);
  });

  it('loaded nothing from another origin, broke no rule of the policy, threw nothing', ({ watch }) => {
    expect(watch.foreignRequests).toEqual([]);
    expect(watch.policyViolations).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
  });
});
