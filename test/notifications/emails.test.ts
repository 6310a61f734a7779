/**
 * E11.3–E11.4 end to end: uploads, assignments, invitations and the weekly digest through the
 * outbox to a real SMTP server in the process, read back as a mail client reads them (mailparser):
 * who receives what, once; subjects; the text and HTML parts and their links; the headers; never for
 * a pull request or a muted project; a server that is down, deferring or refusing. Both backends.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { NOTIFICATION_EVENT_RETENTION_DAYS, pruneNotificationEvents } from '../../src/notifications/notification-event-retention.js';
import { DEBUG, MAIN, SQL, XSS, fingerprintOf, manySpots, putState, uploadSpots } from '../issues/issues-world.js';
import { drain, drainOver, emailsTest as it, headerOf, MAIL_FROM, PUBLIC_URL, putChoices, summary } from './emails-world.js';

const PULL_REQUEST = { git_branch: 'feature/login', git_commit: 'c'.repeat(40), pr_number: '7', base_branch: 'main' };

/** A first report of main, passing, so that the next one has new issues (a first report has none); no email. */
async function baseline(ctx: Parameters<typeof drain>[0], apiToken: string, spots = [XSS]) {
  await uploadSpots(ctx, apiToken, spots, MAIN, '2026-11-21T08:00:00Z');
  await drain(ctx);
}

const outboxOf = (ctx: Parameters<typeof drain>[0], kind: string) =>
  ctx.db.selectFrom('outbox').selectAll().where('kind', '=', kind).orderBy('created_at').orderBy('id').execute();

describe('E11.3 gate_failed and gate_recovered', () => {
  it('tells the team when main fails and recovers, once each, never for a pull request or outsiders', async ({ ctx, smtp, world }) => {
    const { ada, bob, apiToken } = world;
    // The first report passes: nothing flips, and its high issue is below everyone's level (critical).
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T08:00:00Z');
    await drain(ctx);
    expect(smtp.received).toEqual([]);

    // A critical issue fails the gate: a gate email and a new-issues email to each member.
    const failed = await uploadSpots(ctx, apiToken, [XSS, SQL], { ...MAIN, git_commit: 'b'.repeat(40) }, '2026-11-21T09:00:00Z');
    await drain(ctx);
    expect(summary(smtp.received)).toEqual([
      `${ada.email}: [Scoreboard] Shop: 1 new critical issue on main`,
      `${ada.email}: [Scoreboard] Shop: gate failed on main`,
      `${bob.email}: [Scoreboard] Shop: 1 new critical issue on main`,
      `${bob.email}: [Scoreboard] Shop: gate failed on main`,
    ]);
    const gateMail = smtp.received.find((email) => email.to[0] === bob.email && email.mail.subject!.includes('gate failed'))!;
    expect(gateMail.mail.text).toContain(`${PUBLIC_URL}/reports/${failed}`);
    expect(gateMail.mail.text).toContain('The report of commit bbbbbbbbbbbb on main (score');
    expect(gateMail.mail.text).toContain('the report before it passed');

    // Still failing: no flip, and SQL is no longer new.
    smtp.received.length = 0;
    await uploadSpots(ctx, apiToken, [XSS, SQL], MAIN, '2026-11-21T10:00:00Z');
    // A pull request's failing report with a new critical issue: never an email (E10 covers it).
    await uploadSpots(ctx, apiToken, [XSS, SQL, { ...SQL, message: 'Another raw query', line: 90 }], PULL_REQUEST, '2026-11-21T10:30:00Z');
    await drain(ctx);
    expect(smtp.received).toEqual([]);
    expect(await outboxOf(ctx, 'report_notifications')).toHaveLength(3);

    // It passes again: gate_recovered.
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T11:00:00Z');
    await drain(ctx);
    expect(summary(smtp.received)).toEqual([
      `${ada.email}: [Scoreboard] Shop: gate recovered on main`,
      `${bob.email}: [Scoreboard] Shop: gate recovered on main`,
    ]);
    expect(smtp.received[0]!.mail.text).toContain('passed the quality gate; the report before it failed.');
  });

  it('compares with the previous report of the same branch, and leaves a late upload alone', async ({ ctx, smtp, world }) => {
    const { bob, apiToken } = world;
    await putChoices(ctx, bob, { new_issues: 'none' });
    await putChoices(ctx, world.ada, { new_issues: 'none', gate_failed: false });
    await uploadSpots(ctx, apiToken, [SQL], MAIN, '2026-11-21T08:00:00Z');
    await drain(ctx);
    expect(summary(smtp.received)).toEqual([`${bob.email}: [Scoreboard] Shop: gate failed on main`]);
    expect(smtp.received[0]!.mail.text).toContain('it is the first report on main.');
    // Another branch's first failing report flips on its own branch.
    smtp.received.length = 0;
    await uploadSpots(ctx, apiToken, [SQL], { git_branch: 'develop', git_commit: 'd'.repeat(40) }, '2026-11-21T09:00:00Z');
    await drain(ctx);
    expect(summary(smtp.received)).toEqual([`${bob.email}: [Scoreboard] Shop: gate failed on develop`]);
    // A passing report of main analysed before the failing one, uploaded late: old news, no email.
    smtp.received.length = 0;
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T07:00:00Z');
    await drain(ctx);
    expect(smtp.received).toEqual([]);
  });

  it('never emails about a muted project, nor someone who turned gate emails off', async ({ ctx, smtp, world }) => {
    const { ada, bob, projectId, apiToken } = world;
    await baseline(ctx, apiToken);
    await putChoices(ctx, bob, { muted_projects: [projectId] });
    await putChoices(ctx, ada, { gate_failed: false });
    await uploadSpots(ctx, apiToken, [SQL], MAIN, '2026-11-21T09:00:00Z');
    await drain(ctx);
    expect(summary(smtp.received)).toEqual([`${ada.email}: [Scoreboard] Shop: 1 new critical issue on main`]);
  });

  it('sends nothing to someone who muted the project after the upload, before the email went', async ({ ctx, smtp, world }) => {
    const { bob, projectId, apiToken } = world;
    await baseline(ctx, apiToken);
    await uploadSpots(ctx, apiToken, [SQL], MAIN, '2026-11-21T09:00:00Z');
    // The emails are written by the first round; the second sends them.
    await ctx.app.outboxWorker.runOnce();
    await putChoices(ctx, bob, { muted_projects: [projectId] });
    await drain(ctx);
    expect(smtp.received.map((email) => email.to[0])).not.toContain(bob.email);
    expect(smtp.received).toHaveLength(2);
  });
});

describe('E11.3 new_issues', () => {
  it("counts at each user's level, lists 20 at most, and leaves dismissed issues out", async ({ ctx, smtp, world }) => {
    const { ada, bob, projectId, apiToken } = world;
    await putChoices(ctx, ada, { gate_failed: false });
    await putChoices(ctx, bob, { gate_failed: false, new_issues: 'low' });
    await baseline(ctx, apiToken, []);
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T08:30:00Z');
    await drain(ctx);
    // Bob's level (low) counts a new high issue; Ada's (critical) does not.
    expect(summary(smtp.received)).toEqual([`${bob.email}: [Scoreboard] Shop: 1 new issue of low or above severity on main`]);

    smtp.received.length = 0;
    const many = await uploadSpots(ctx, apiToken, [XSS, SQL, DEBUG, ...manySpots(25)], MAIN, '2026-11-21T09:00:00Z');
    await drain(ctx);
    expect(summary(smtp.received)).toEqual([
      `${ada.email}: [Scoreboard] Shop: 1 new critical issue on main`,
      `${bob.email}: [Scoreboard] Shop: 27 new issues of low or above severity on main`,
    ]);
    const bobs = smtp.received.find((email) => email.to[0] === bob.email)!;
    // Most severe first, 20 listed, the rest linked.
    const lines = bobs.mail.text!.split('\n').filter((line) => line.startsWith('- '));
    expect(lines).toHaveLength(20);
    expect(lines[0]).toBe('- critical · SQL Injection: Raw SQL with user input · app/Orders.php:40');
    expect(lines[1]).toMatch(/^- medium · /);
    expect(bobs.mail.text).toContain(`and 7 more: ${PUBLIC_URL}/reports/${many}?tab=new`);
    expect(bobs.mail.html).toContain(`href="${PUBLIC_URL}/reports/${many}?tab=new"`);

    // An issue dismissed before the emails are written is not new news.
    smtp.received.length = 0;
    const next = await uploadSpots(ctx, apiToken, [{ ...SQL, message: 'Raw SQL again', line: 77 }], MAIN, '2026-11-21T10:00:00Z');
    const fingerprint = await fingerprintOf(ctx, ada.token, next, { ...SQL, message: 'Raw SQL again', line: 77 });
    const dismissed = await putState(ctx, ada.token, projectId, fingerprint, { status: 'false_positive', comment: 'Sanitised upstream' });
    expect(dismissed.statusCode, dismissed.body).toBe(200);
    await drain(ctx);
    expect(smtp.received).toEqual([]);
  });
});

describe('E11.3 assigned', () => {
  it('emails the assignee when someone else assigns them issues, once per change', async ({ ctx, smtp, world }) => {
    const { ada, bob, projectId, apiToken } = world;
    await putChoices(ctx, ada, { gate_failed: false, new_issues: 'none' });
    await putChoices(ctx, bob, { gate_failed: false, new_issues: 'none' });
    const uuid = await uploadSpots(ctx, apiToken, [XSS, SQL], MAIN, '2026-11-21T09:00:00Z');
    await drain(ctx);
    const xss = await fingerprintOf(ctx, ada.token, uuid, XSS);
    const sql = await fingerprintOf(ctx, ada.token, uuid, SQL);
    const bulk = await ctx.request({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/issues/bulk`,
      token: ada.token,
      body: { fingerprints: [xss, sql], status: 'confirmed', assignee_id: bob.id },
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    await drain(ctx);
    expect(summary(smtp.received)).toEqual([`${bob.email}: [Scoreboard] Shop: Ada assigned you 2 issues`]);
    const [email] = smtp.received;
    expect(email!.mail.text).toContain('- critical · SQL Injection: Raw SQL with user input · app/Orders.php:40');
    expect(email!.mail.text).toContain(`${PUBLIC_URL}/assigned-to-me`);

    // The same assignment again is no news; assigning oneself is none either.
    smtp.received.length = 0;
    await putState(ctx, ada.token, projectId, xss, { status: 'confirmed', assignee_id: bob.id, comment: 'still yours' });
    await putState(ctx, bob.token, projectId, sql, { status: 'confirmed', assignee_id: bob.id });
    await drain(ctx);
    expect(smtp.received).toEqual([]);
    // Someone who turned assignment emails off gets none.
    await putChoices(ctx, ada, { assigned: false });
    await putState(ctx, bob.token, projectId, sql, { status: 'confirmed', assignee_id: ada.id });
    await drain(ctx);
    expect(smtp.received).toEqual([]);
  });
});

describe('E11.3 invitations', () => {
  it('emails the invited address, account or not; nothing once the invitation is cancelled', async ({ ctx, smtp, world }) => {
    const { ada } = world;
    const invite = (email: string) =>
      ctx.request({ method: 'POST', url: `/api/v1/teams/${ada.teamId}/invitations`, token: ada.token, body: { email, role: 'member' } });
    const invited = await invite('New.Person@Example.org');
    expect(invited.statusCode, invited.body).toBe(201);
    await drain(ctx);
    expect(summary(smtp.received)).toEqual([
      `new.person@example.org: [Scoreboard] Ada invited you to the team ${await teamName(ctx, ada.teamId!)}`,
    ]);
    expect(smtp.received[0]!.mail.text).toContain(`${PUBLIC_URL}/invitations`);
    expect(smtp.received[0]!.mail.text).toContain('as a member');

    // Cancelled before the email went: nothing.
    smtp.received.length = 0;
    const second = await invite(world.carol.email);
    await ctx.request({
      method: 'DELETE',
      url: `/api/v1/teams/${ada.teamId}/invitations/${second.json().invitation.id}`,
      token: ada.token,
    });
    await drain(ctx);
    expect(smtp.received).toEqual([]);
  });
});

async function teamName(ctx: Parameters<typeof drain>[0], teamId: number): Promise<string> {
  return (await ctx.db.selectFrom('teams').select('name').where('id', '=', teamId).executeTakeFirstOrThrow()).name;
}

describe('E11.3 weekly_digest', () => {
  it('goes out Mondays at 08:00 UTC, once, to those who chose it, and only when something happened', async ({ ctx, smtp, world }) => {
    const { ada, bob, carol, projectId, apiToken } = world;
    for (const user of [ada, bob, carol]) await putChoices(ctx, user, { gate_failed: false, new_issues: 'none' });
    await putChoices(ctx, bob, { weekly_digest: true });
    // Carol chose it too, but her team's projects had no report: no email for her.
    await putChoices(ctx, carol, { weekly_digest: true });
    ctx.clock.set('2026-11-20T00:00:00.000Z');
    await uploadSpots(ctx, apiToken, [XSS, SQL], MAIN, '2026-11-19T12:00:00Z');
    ctx.clock.set('2026-11-25T00:00:00.000Z');
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-24T12:00:00Z');
    await drain(ctx);
    expect(smtp.received).toEqual([]);

    // Sunday night: no digest yet. Monday 08:00: the week of 23–29 November.
    ctx.clock.set('2026-11-30T07:59:59.000Z');
    expect(await ctx.app.weeklyDigest.runDue()).toBe(false);
    ctx.clock.set('2026-11-30T08:00:00.000Z');
    expect(await ctx.app.weeklyDigest.runDue()).toBe(true);
    // Every instance looks each minute: the week's digest is written once.
    ctx.clock.set('2026-11-30T08:01:00.000Z');
    expect(await ctx.app.weeklyDigest.runDue()).toBe(false);
    await drain(ctx);
    expect(summary(smtp.received)).toEqual([`${bob.email}: [Scoreboard] Your week: 0 new issues, 1 fixed`]);
    const text = smtp.received[0]!.mail.text!;
    expect(text).toContain('Your week on Scoreboard (23 Nov 2026 – 29 Nov 2026)');
    expect(text).toMatch(/- Shop · \d+ · \d+ · passed · 0 · 1\n/);
    expect(text).toContain(`${PUBLIC_URL}/projects/${projectId}`);
    // More than a day late (an instance down all Monday), the week's digest is left out.
    ctx.clock.set('2026-12-08T09:00:00.000Z');
    expect(await ctx.app.weeklyDigest.runDue()).toBe(false);
  });
});

describe('E11.4 delivery', () => {
  it('retries while the SMTP server is down, and every email arrives once when it is back', async ({ ctx, smtp, world }) => {
    const { ada, bob, apiToken } = world;
    await baseline(ctx, apiToken);
    await smtp.down();
    await uploadSpots(ctx, apiToken, [SQL], MAIN, '2026-11-21T09:00:00Z');
    await drain(ctx);
    const pending = await outboxOf(ctx, 'email');
    expect(pending).toHaveLength(4);
    expect(pending.every((message) => message.status === 'pending' && message.attempts === 1)).toBe(true);
    expect(pending[0]!.error).toMatch(/^could not reach the mail server/);
    // Nothing in the outbox names the SMTP server's URL.
    expect(JSON.stringify(pending)).not.toContain(smtp.url);
    await smtp.up();
    await drainOver(ctx, 3);
    expect(summary(smtp.received)).toEqual([
      `${ada.email}: [Scoreboard] Shop: 1 new critical issue on main`,
      `${ada.email}: [Scoreboard] Shop: gate failed on main`,
      `${bob.email}: [Scoreboard] Shop: 1 new critical issue on main`,
      `${bob.email}: [Scoreboard] Shop: gate failed on main`,
    ]);
    expect((await outboxOf(ctx, 'email')).every((message) => message.status === 'succeeded')).toBe(true);
    // Each email has one Message-ID, the same on every attempt.
    expect(new Set(smtp.received.map((email) => email.mail.messageId)).size).toBe(4);
  });

  it('retries a 4xx reply, records a 5xx as failed, and counts both on /metrics', async ({ ctx, smtp, world }) => {
    const { ada, bob, apiToken } = world;
    await putChoices(ctx, ada, { new_issues: 'none' });
    await putChoices(ctx, bob, { new_issues: 'none' });
    smtp.refuseNext(1, 451, 'Greylisted, try again later');
    await uploadSpots(ctx, apiToken, [SQL], MAIN, '2026-11-21T09:00:00Z');
    await drainOver(ctx, 3);
    expect(smtp.received).toHaveLength(2);

    smtp.refuseNext(2, 550, 'Mailbox unavailable');
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T10:00:00Z');
    await drainOver(ctx, 3);
    expect(smtp.received).toHaveLength(2);
    const failed = (await outboxOf(ctx, 'email')).filter((message) => message.status === 'failed');
    expect(failed).toHaveLength(2);
    expect(failed[0]!.response_status).toBe(550);
    expect(failed[0]!.error).toBe('the mail server refused the email: 550 Mailbox unavailable');

    const metrics = (await ctx.request({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('scoreboard_emails_total{kind="gate_failed",outcome="sent"} 2');
    expect(metrics).toContain('scoreboard_emails_total{kind="gate_failed",outcome="deferred"} 1');
    expect(metrics).toContain('scoreboard_emails_total{kind="gate_recovered",outcome="rejected"} 2');
  });

  it("writes a report's emails once even when its fan-out runs twice (an instance died before recording it)", async ({
    ctx,
    smtp,
    world,
  }) => {
    const { apiToken } = world;
    await baseline(ctx, apiToken);
    await uploadSpots(ctx, apiToken, [SQL], MAIN, '2026-11-21T09:00:00Z');
    const [message] = (await outboxOf(ctx, 'report_notifications')).slice(1);
    // The same message again, as a second claim after an expired one would make it.
    await ctx.db
      .insertInto('outbox')
      .values({ ...message!, id: '01900000-0000-7000-8000-000000000001' })
      .execute();
    await drain(ctx);
    expect(smtp.received).toHaveLength(4);
    expect(await outboxOf(ctx, 'email')).toHaveLength(4);
  });
});

describe('E11.3 what each email is made of', () => {
  it('has a text and an HTML part with the same links, no external resources, and the one-click headers', async ({ ctx, smtp, world }) => {
    const { bob, apiToken } = world;
    const uuid = await uploadSpots(ctx, apiToken, [SQL], MAIN, '2026-11-21T09:00:00Z');
    await drain(ctx);
    const email = smtp.received.find((received) => received.to[0] === bob.email && received.mail.subject!.includes('gate'))!;
    const { mail } = email;
    // MAIL_FROM, as configured (`Scoreboard <scoreboard@example.com>`): the envelope's sender and the From header.
    expect(email.from).toBe('scoreboard@example.com');
    expect(MAIL_FROM).toContain(`<${email.from}>`);
    expect(mail.from!.value).toEqual([{ address: 'scoreboard@example.com', name: 'Scoreboard' }]);
    expect(mail.to).toMatchObject({ value: [{ address: bob.email }] });
    expect(email.raw).toMatch(/Content-Type: multipart\/alternative/i);
    expect(mail.text).toBeTruthy();
    expect(mail.html).toBeTruthy();
    const html = mail.html as string;
    for (const part of [mail.text!, html]) {
      expect(part).toContain(`${PUBLIC_URL}/reports/${uuid}`);
      expect(part).toContain(`${PUBLIC_URL}/profile`);
      expect(part).toContain(`${PUBLIC_URL}/notifications/unsubscribe/`);
    }
    // Inline styles only: no stylesheet, image, script or anything else fetched from elsewhere.
    expect(html).not.toMatch(/<(img|script|link|iframe|object|style)\b/i);
    expect(html).not.toMatch(/\bsrc=/i);
    expect(html).not.toMatch(/url\(/i);
    expect([...html.matchAll(/href="([^"]+)"/g)].every(([, href]) => href!.startsWith(`${PUBLIC_URL}/`))).toBe(true);
    // RFC 8058: both headers, as sent (mailparser folds List-* headers into one object).
    expect(email.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    expect(headerOf(email, 'List-Unsubscribe')).toMatch(
      new RegExp(`^<${PUBLIC_URL}/notifications/unsubscribe/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}>$`),
    );
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.messageId).toMatch(/^<[0-9a-f-]+@example\.com>$/);
  });
});

describe('E11.4 the record of written events', () => {
  it('is pruned after a month, and only then', async ({ ctx, world }) => {
    await uploadSpots(ctx, world.apiToken, [SQL], MAIN, '2026-11-21T09:00:00Z');
    await drain(ctx);
    const events = () => ctx.db.selectFrom('notification_events').select('event_key').execute();
    expect(await events()).toHaveLength(1);
    ctx.clock.advance(29 * 86_400_000);
    expect(await pruneNotificationEvents({ db: ctx.db, clock: ctx.clock, retentionDays: NOTIFICATION_EVENT_RETENTION_DAYS })).toBe(0);
    ctx.clock.advance(2 * 86_400_000);
    expect(await pruneNotificationEvents({ db: ctx.db, clock: ctx.clock, retentionDays: NOTIFICATION_EVENT_RETENTION_DAYS })).toBe(1);
    expect(await events()).toEqual([]);
  });
});

describe('E11.1 without SMTP_URL and MAIL_FROM', () => {
  const bare = appTest({ user: { plan: 'business' }, env: { UPLOAD_RATE_LIMIT: '1000' } });
  bare('writes no email for an upload, an assignment or an invitation', async ({ ctx, user, apiToken }) => {
    ctx.clock.set('2026-11-22T00:00:00.000Z');
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T08:00:00Z');
    await uploadSpots(ctx, apiToken, [SQL], MAIN, '2026-11-21T09:00:00Z');
    const invited = await ctx.request({
      method: 'POST',
      url: `/api/v1/teams/${user.teamId}/invitations`,
      token: user.token,
      body: { email: 'new@example.org', role: 'member' },
    });
    expect(invited.statusCode).toBe(201);
    expect(await ctx.db.selectFrom('outbox').select('kind').execute()).toEqual([]);
    const choices = await ctx.request({ method: 'GET', url: '/api/v1/user/notifications', token: user.token });
    expect(choices.json().data.email_available).toBe(false);
  });
});

describe('E11.1 the SMTP password', () => {
  const secretive = appTest({
    user: { plan: 'business' },
    // Nothing listens on port 1: every attempt fails to connect.
    env: { SMTP_URL: 'smtp://mailer:s3cret-Passw0rd@127.0.0.1:1', MAIL_FROM: 'scoreboard@example.com', UPLOAD_RATE_LIMIT: '1000' },
    log: 'trace',
  });
  secretive('never reaches the outbox, an answer or a log line', async ({ ctx, user, apiToken, log }) => {
    ctx.clock.set('2026-11-22T00:00:00.000Z');
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T08:00:00Z');
    await uploadSpots(ctx, apiToken, [SQL], MAIN, '2026-11-21T09:00:00Z');
    await drain(ctx);
    const emails = await outboxOf(ctx, 'email');
    expect(emails.length).toBeGreaterThan(0);
    expect(emails.every((message) => message.status === 'pending' && message.error?.startsWith('could not reach the mail server'))).toBe(
      true,
    );
    const metrics = (await ctx.request({ method: 'GET', url: '/metrics' })).body;
    const choices = (await ctx.request({ method: 'GET', url: '/api/v1/user/notifications', token: user.token })).body;
    for (const text of [JSON.stringify(await ctx.db.selectFrom('outbox').selectAll().execute()), metrics, choices, log.text]) {
      expect(text).not.toContain('s3cret-Passw0rd');
    }
    expect(log.text).toContain('outbox attempt failed');
  });
});
