/**
 * E11.3's one-click unsubscribe (RFC 8058), from the links of emails really received: the POST a
 * mail client sends (form-encoded or multipart, no credential) turns that kind off and answers 200;
 * the GET shows a page with a button and changes nothing; a forged, altered or cut token is a 404
 * that changes nothing; each kind's link turns its own choice off; an invitation's link stops
 * invitations to that address. Both backends.
 */
import { describe, expect } from 'vitest';
import type { TestContext, TestUser } from '../helpers/test-app.js';
import { MAIN, SQL, XSS, uploadSpots } from '../issues/issues-world.js';
import { drain, emailsTest as it, putChoices, summary, unsubscribePath } from './emails-world.js';

const ONE_CLICK = { 'content-type': 'application/x-www-form-urlencoded' };

/** What a mail client sends for a one-click unsubscribe (RFC 8058 section 3.2). */
const oneClick = (ctx: TestContext, path: string, headers: Record<string, string> = ONE_CLICK, payload = 'List-Unsubscribe=One-Click') =>
  ctx.app.inject({ method: 'POST', url: path, headers, payload });

const choicesOf = async (ctx: TestContext, user: TestUser) =>
  (await ctx.request({ method: 'GET', url: '/api/v1/user/notifications', token: user.token })).json().data as Record<string, unknown>;

/** The audit events (E5) of changes made through an unsubscribe link. */
const unsubscribeAudits = (ctx: TestContext) =>
  ctx.db
    .selectFrom('audit_events')
    .selectAll()
    .where('action', '=', 'user.updated')
    .where('details', 'like', '%unsubscribe link%')
    .execute();

/** Fails main's gate (after a passing first report): both members get a gate email. */
async function failMain(ctx: TestContext, apiToken: string, at: string) {
  await uploadSpots(ctx, apiToken, [SQL], MAIN, at);
  await drain(ctx);
}

async function recoverMain(ctx: TestContext, apiToken: string, at: string) {
  await uploadSpots(ctx, apiToken, [XSS], MAIN, at);
  await drain(ctx);
}

describe('E11.3 one-click unsubscribe', () => {
  it("turns the email's kind off for its recipient only, once, and records it", async ({ ctx, smtp, world }) => {
    const { ada, bob, apiToken } = world;
    for (const user of [ada, bob]) await putChoices(ctx, user, { new_issues: 'none' });
    await failMain(ctx, apiToken, '2026-11-21T08:00:00Z');
    const bobs = smtp.received.find((email) => email.to[0] === bob.email)!;
    const path = unsubscribePath(bobs);

    const response = await oneClick(ctx, path);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ data: { kind: 'gate_failed', unsubscribed: true } });
    expect(response.headers['cache-control']).toBe('no-store');
    expect(await choicesOf(ctx, bob)).toMatchObject({ gate_failed: false, new_issues: 'none', assigned: true });
    expect(await choicesOf(ctx, ada)).toMatchObject({ gate_failed: true });
    // E5: the user changed their choices, through the link.
    const audit = await unsubscribeAudits(ctx);
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.details as string)).toEqual({
      notifications: { gate_failed: { old: true, new: false } },
      via: 'unsubscribe link',
    });
    // Again: still 200, nothing more changes.
    expect((await oneClick(ctx, path)).statusCode).toBe(200);
    expect(await unsubscribeAudits(ctx)).toHaveLength(1);

    // The gate recovers: only Ada hears of it.
    smtp.received.length = 0;
    await recoverMain(ctx, apiToken, '2026-11-21T09:00:00Z');
    expect(summary(smtp.received)).toEqual([`${ada.email}: [Scoreboard] Shop: gate recovered on main`]);
  });

  it('takes a multipart body, an empty one, and answers a browser with a page', async ({ ctx, smtp, world }) => {
    const { bob, apiToken } = world;
    await failMain(ctx, apiToken, '2026-11-21T08:00:00Z');
    const paths = smtp.received.filter((email) => email.to[0] === bob.email && email.mail.subject!.includes('gate')).map(unsubscribePath);
    expect(paths, summary(smtp.received).join('\n')).toHaveLength(1);
    const multipart = await oneClick(
      ctx,
      paths[0]!,
      { 'content-type': 'multipart/form-data; boundary=xyz' },
      '--xyz\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--xyz--\r\n',
    );
    expect(multipart.statusCode, multipart.body).toBe(200);
    expect((await ctx.app.inject({ method: 'POST', url: paths[0]! })).statusCode).toBe(200);
    const browser = await oneClick(ctx, paths[0]!, {
      ...ONE_CLICK,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    });
    expect(browser.statusCode).toBe(200);
    expect(browser.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(browser.body).toContain('You will get no more emails when a quality gate fails or recovers.');
    // A body far over what a one-click sends is refused before it is read.
    const huge = await oneClick(ctx, paths[0]!, ONE_CLICK, 'x'.repeat(10_000));
    expect(huge.statusCode).toBe(413);
  });

  it('shows a page with a button on GET, and changes nothing', async ({ ctx, smtp, world }) => {
    const { bob, apiToken } = world;
    await putChoices(ctx, bob, { new_issues: 'none' });
    await failMain(ctx, apiToken, '2026-11-21T08:00:00Z');
    const path = unsubscribePath(smtp.received.find((email) => email.to[0] === bob.email)!);
    const page = await ctx.request({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('Stop emails when a quality gate fails or recovers?');
    expect(page.body).toMatch(
      /<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe<\/button><\/form>/,
    );
    // The page's form posts back to itself, and nothing else may load.
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none';style-src 'unsafe-inline';form-action 'self';frame-ancestors 'none'",
    );
    expect(await choicesOf(ctx, bob)).toMatchObject({ gate_failed: true });
  });

  it('refuses a forged, altered or cut token with a 404, and changes nothing', async ({ ctx, smtp, world }) => {
    const { ada, bob, apiToken } = world;
    await failMain(ctx, apiToken, '2026-11-21T08:00:00Z');
    const path = unsubscribePath(smtp.received.find((email) => email.to[0] === bob.email && email.mail.subject!.includes('gate'))!);
    const token = path.split('/').pop()!;
    const [payload, signature] = token.split('.') as [string, string];
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const flip = (text: string) => `${text.slice(0, -2)}${text.at(-2) === 'A' ? 'B' : 'A'}${text.at(-1)}`;
    const forged = [
      // Bob's signature on Ada's claim; on another kind; a signature changed in one character.
      `${encode({ u: ada.id, k: 'gate_failed' })}.${signature}`,
      `${encode({ u: bob.id, k: 'new_issues' })}.${signature}`,
      `${payload}.${flip(signature)}`,
      // Cut short, no signature, nonsense, a claim with fields the service never writes.
      token.slice(0, -5),
      payload,
      'not-a-token',
      `${encode({ u: bob.id, k: 'gate_failed', admin: true })}.${signature}`,
    ];
    for (const bad of forged) {
      for (const method of ['GET', 'POST'] as const) {
        const response = await ctx.request({ method, url: `/notifications/unsubscribe/${bad}` });
        expect(response.statusCode, `${method} ${bad}`).toBe(404);
        expect(response.json()).toEqual({ error: 'Not Found', message: 'This unsubscribe link is not valid.' });
      }
    }
    expect(await choicesOf(ctx, ada)).toMatchObject({ gate_failed: true, new_issues: 'critical' });
    expect(await choicesOf(ctx, bob)).toMatchObject({ gate_failed: true, new_issues: 'critical' });
    expect(await unsubscribeAudits(ctx)).toEqual([]);
  });

  it("turns off each kind's own choice: new issues to none, assignments, the digest", async ({ ctx, smtp, world }) => {
    const { ada, bob, projectId, apiToken } = world;
    await putChoices(ctx, bob, { gate_failed: false, weekly_digest: true });
    await putChoices(ctx, ada, { gate_failed: false, new_issues: 'none' });
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T08:00:00Z');
    const uuid = await uploadSpots(ctx, apiToken, [XSS, SQL], MAIN, '2026-11-21T09:00:00Z');
    const changes = await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}/changes`, token: ada.token });
    const fingerprint = (changes.json().data as { fingerprint: string; change: string }[]).find(
      (item) => item.change === 'new',
    )!.fingerprint;
    await ctx.request({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}/issues/${fingerprint}`,
      token: ada.token,
      body: { status: 'confirmed', assignee_id: bob.id },
    });
    await drain(ctx);
    ctx.clock.set('2026-11-23T08:00:00.000Z');
    expect(await ctx.app.weeklyDigest.runDue()).toBe(true);
    await drain(ctx);
    expect(summary(smtp.received)).toEqual([
      `${bob.email}: [Scoreboard] Shop: 1 new critical issue on main`,
      `${bob.email}: [Scoreboard] Shop: Ada assigned you an issue`,
      `${bob.email}: [Scoreboard] Your week: 1 new issue, 0 fixed`,
    ]);
    for (const email of smtp.received) expect((await oneClick(ctx, unsubscribePath(email))).statusCode).toBe(200);
    expect(await choicesOf(ctx, bob)).toMatchObject({ gate_failed: false, new_issues: 'none', assigned: false, weekly_digest: false });
  });

  it("stops invitations to an address from its invitation's link, account or not", async ({ ctx, smtp, world }) => {
    const { ada } = world;
    const invite = () =>
      ctx.request({
        method: 'POST',
        url: `/api/v1/teams/${ada.teamId}/invitations`,
        token: ada.token,
        body: { email: 'dora@example.org', role: 'admin' },
      });
    expect((await invite()).statusCode).toBe(201);
    await drain(ctx);
    expect(smtp.received.map((email) => email.to[0])).toEqual(['dora@example.org']);
    expect(smtp.received[0]!.mail.text).toContain('as an admin');
    const response = await oneClick(ctx, unsubscribePath(smtp.received[0]!));
    expect(response.json()).toEqual({ data: { kind: 'invitations', unsubscribed: true } });
    smtp.received.length = 0;
    expect((await invite()).statusCode).toBe(201);
    await drain(ctx);
    expect(smtp.received).toEqual([]);
  });
});
