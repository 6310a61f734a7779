import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { signatureVerifies, startReceiver } from '../helpers/webhook-receiver.js';
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
 * Issue 31 item 5 in Chromium: a webhook's delivery sent again with "Redeliver", and its secret
 * rotated after a confirmation, the new one shown once and signing the next request; the audit log
 * in words: a settings change as `fail_on: high → critical`, projects by name linking to them (a
 * deleted one by the name its events gave it), "When" in a few words with the full date beside.
 */
warnWithoutChromium('webhooks and audit browser test');

/** How long the receiver may wait for a delivery: the worker polls each second, but the machine may be busy. */
const DELIVERY_WAIT_MS = 60_000;

/** The session's CSRF token, which the API asks of a signed-in browser's writes. */
async function csrf(page: Page, base: string): Promise<string> {
  return (await (await page.request.get(`${base}/api/v1/session`)).json()).data.csrf_token;
}

const it = dashboardTest
  // The receiver listens on 127.0.0.1, a loopback address the server refuses unless told otherwise.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern
  .override('world', { scope: 'file' }, async ({}, { onCleanup }) => {
    const world = await startDashboardWorld({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    onCleanup(() => world.close());
    return world;
  })
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern
  .extend('receiver', { scope: 'file' }, async ({}, { onCleanup }) => {
    const receiver = await startReceiver();
    onCleanup(() => receiver.close());
    return receiver;
  })
  /** Once for the file: signed in, the project Shop and its webhook to the receiver, which has had one ping. */
  .extend('shop', { scope: 'file' }, async ({ world, base, page, receiver }) => {
    await page.goto(`${base}/sign-in`);
    await submitSignIn(page, world.user);
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    const headers = { 'x-csrf-token': await csrf(page, base) };
    const created = await page.request.post(`${base}/api/v1/projects`, { headers, data: { name: 'Shop', framework_version: '11' } });
    expect(created.status()).toBe(201);
    const projectId: string = (await created.json()).project.id;
    const hooks = `${base}/api/v1/projects/${projectId}/webhooks`;
    const webhook = await page.request.post(hooks, { headers, data: { url: receiver.url, events: ['report.created'] } });
    expect(webhook.status()).toBe(201);
    const { webhook: made, secret } = await webhook.json();
    expect((await page.request.post(`${hooks}/${made.id}/ping`, { headers })).status()).toBe(202);
    await receiver.waitFor(1, DELIVERY_WAIT_MS);
    return { projectId, secret: secret as string, headers };
  });

describe.skipIf(!hasChromium)('webhooks and the audit log in Chromium', () => {
  it('sends a delivery again with "Redeliver": a new delivery of the same body', async ({ base, page, shop, receiver }) => {
    await page.goto(`${base}/projects/${shop.projectId}`);
    const card = page.locator('.webhook', { hasText: receiver.url });
    await card.getByRole('button', { name: 'Show deliveries' }).click();
    const rows = card.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);

    await card.getByRole('button', { name: /^Redeliver the ping of / }).click();
    await card.getByText('Redelivery queued: it is the newest delivery.').waitFor();
    await expect.poll(() => rows.count()).toBe(2);
    await receiver.waitFor(2, DELIVERY_WAIT_MS);
    const [first, again] = receiver.received;
    expect(again!.body).toBe(first!.body);
    expect(again!.headers['webhook-id']).not.toBe(first!.headers['webhook-id']);
  });

  it('rotates the secret after a confirmation that names the 24 hours: shown once, both secrets sign meanwhile', async ({
    page,
    shop,
    receiver,
  }) => {
    const card = page.locator('.webhook', { hasText: receiver.url });
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    await card.getByText('The old one keeps being sent, beside the new one, for 24 hours.', { exact: false }).waitFor();
    await card.getByRole('button', { name: 'Yes, rotate secret' }).click();
    const shown = card.locator('code[id^="webhook-secret-"]');
    await shown.waitFor();
    const rotated = (await shown.textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(shop.secret);
    await card.getByRole('button', { name: 'Copy new secret' }).waitFor();

    await card.getByRole('button', { name: 'Send ping' }).click();
    await receiver.waitFor(3, DELIVERY_WAIT_MS);
    const ping = receiver.received[2]!;
    expect(signatureVerifies(rotated, ping)).toBe(true);
    expect(signatureVerifies(shop.secret, ping)).toBe(true);

    // The form says what the service does with a private address, not that it refuses it outright.
    const hint = (await page.locator('.new-webhook').textContent()) ?? '';
    expect(hint).toContain('Unless the server allows private networks');
    expect(hint).toContain('deliveries to a name that resolves to one fail');
    await expectAccessible(page, 'webhook with a rotated secret');
    await screenshot(page, 'webhook-rotated');
  });

  it('writes the audit log in words: settings as lines, projects by name with a link, when in a few words', async ({
    base,
    page,
    shop,
  }) => {
    const project = `${base}/api/v1/projects/${shop.projectId}`;
    const settings = (fail_on: string) => ({
      headers: shop.headers,
      data: { name: 'Shop', framework_version: '11', settings: { fail_on } },
    });
    expect((await page.request.put(project, settings('high'))).status()).toBe(200);
    expect((await page.request.put(project, settings('critical'))).status()).toBe(200);
    const blog = await page.request.post(`${base}/api/v1/projects`, {
      headers: shop.headers,
      data: { name: 'Blog', framework_version: '11' },
    });
    const blogId: string = (await blog.json()).project.id;
    expect((await page.request.delete(`${base}/api/v1/projects/${blogId}`, { headers: shop.headers })).ok()).toBe(true);

    await page.goto(`${base}/audit`);
    const rows = page.locator('.audit-table tbody tr');
    await rows.first().waitFor();
    const text = (await page.locator('.audit-table').textContent()) ?? '';
    expect(text).toContain('fail_on: high → critical');
    expect(text).toContain('fail_on: none → high');
    expect(text).not.toContain('{"fail_on"');
    expect(text).not.toContain(shop.projectId);

    const shopLinks = page.locator('.audit-table a', { hasText: 'Shop' });
    await expect.poll(() => shopLinks.count()).toBeGreaterThan(0);
    expect(await shopLinks.first().getAttribute('href')).toBe(`/projects/${shop.projectId}`);
    // The deleted project keeps the name its events gave it, without a link to a page that is gone.
    const deleted = rows.filter({ hasText: 'project.deleted' });
    await deleted.getByText('Blog').first().waitFor();
    expect(await deleted.locator('a').count()).toBe(0);

    const when = rows.first().locator('time');
    expect(await when.textContent()).toMatch(/now|min/);
    expect(await when.getAttribute('title')).toMatch(/\d{4}/);
    expect(Date.parse((await when.getAttribute('datetime')) ?? '')).not.toBeNaN();

    await expectAccessible(page, 'audit in words');
    await screenshot(page, 'audit-words');
    // At 375 px "When" stays on one line: an inline element has a box per line it spans.
    await page.setViewportSize({ width: 375, height: 900 });
    expect(await when.evaluate((element) => element.getClientRects().length)).toBe(1);
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('loaded nothing from another origin, broke no rule of the policy, threw nothing', ({ watch }) => {
    expect(watch.foreignRequests).toEqual([]);
    expect(watch.policyViolations).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
  });
});
