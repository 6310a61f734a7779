/**
 * The E11.3–E11.4 tests' world: an app whose SMTP_URL is a real SMTP server in the test's process
 * (helpers/smtp-catcher.ts), a team with an owner (Ada) and a member (Bob), a project "Shop" of that
 * team whose gate fails on a critical issue, and someone outside the team (Carol).
 */
import { test as base, expect } from 'vitest';
import { type CaughtEmail, type SmtpCatcher, startSmtpCatcher } from '../helpers/smtp-catcher.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';

export const PUBLIC_URL = 'https://scoreboard.example.com';
export const MAIL_FROM = 'Scoreboard <scoreboard@example.com>';

export interface World {
  ada: TestUser;
  bob: TestUser;
  carol: TestUser;
  projectId: string;
  apiToken: string;
}

export const emailsTest = base
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern
  .extend('smtp', async ({}, { onCleanup }): Promise<SmtpCatcher> => {
    const smtp = await startSmtpCatcher();
    onCleanup(() => smtp.close());
    return smtp;
  })
  .extend('ctx', async ({ smtp }, { onCleanup }): Promise<TestContext> => {
    const ctx = await buildTestApp({
      env: { SMTP_URL: smtp.url, MAIL_FROM, PUBLIC_URL, UPLOAD_RATE_LIMIT: '1000' },
    });
    onCleanup(() => ctx.close());
    // Reports are analysed on 21 November (never in the future, D2).
    ctx.clock.set('2026-11-22T00:00:00.000Z');
    return ctx;
  })
  .extend('world', async ({ ctx }): Promise<World> => {
    const ada = await ctx.given.user({ plan: 'business', name: 'Ada', email: 'ada@example.com' });
    const bob = await ctx.given.user({ name: 'Bob', email: 'bob@example.com' });
    await ctx.given.member(ada.teamId!, bob, 'member');
    const carol = await ctx.given.user({ plan: 'business', name: 'Carol', email: 'carol@example.com' });
    const { project, apiToken } = await ctx.given.project(ada, { name: 'Shop' });
    // The gate fails on a critical issue.
    const gate = await ctx.request({
      method: 'PUT',
      url: `/api/v1/projects/${project.id}`,
      token: ada.token,
      body: { name: 'Shop', framework_version: '11', settings: { fail_on: 'critical' } },
    });
    expect(gate.statusCode, gate.body).toBe(200);
    return { ada, bob, carol, projectId: project.id, apiToken };
  });

/** Runs the outbox until nothing is due now. */
export async function drain(ctx: TestContext): Promise<void> {
  while ((await ctx.app.outboxWorker.runOnce()) > 0);
}

/** Runs the outbox and moves the clock an hour at a time, `hours` times: E6's schedule's retries come due. */
export async function drainOver(ctx: TestContext, hours: number): Promise<void> {
  for (let i = 0; i < hours; i++) {
    await drain(ctx);
    ctx.clock.advance(3_600_000);
  }
  await drain(ctx);
}

/** The emails received, as `address: subject`, sorted. */
export const summary = (emails: readonly CaughtEmail[]) => emails.map((email) => `${email.to.join(',')}: ${email.mail.subject}`).sort();

export async function putChoices(ctx: TestContext, user: TestUser, body: Record<string, unknown>) {
  const response = await ctx.request({ method: 'PUT', url: '/api/v1/user/notifications', token: user.token, body });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as Record<string, unknown>;
}

/** A header as sent, unfolded (mailparser folds the List-* headers into one object). */
export function headerOf(email: CaughtEmail, name: string): string | undefined {
  const head = email.raw.split(/\r?\n\r?\n/, 1)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((candidate) => candidate.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** The path of an email's List-Unsubscribe link (under PUBLIC_URL). */
export function unsubscribePath(email: CaughtEmail): string {
  const header = headerOf(email, 'List-Unsubscribe') ?? '';
  const url = /^<([^>]+)>$/.exec(header)?.[1];
  expect(url, header).toBeDefined();
  expect(url!.startsWith(`${PUBLIC_URL}/notifications/unsubscribe/`)).toBe(true);
  return url!.slice(PUBLIC_URL.length);
}
