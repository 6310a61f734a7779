/**
 * E9.5 over HTTP and the outbox: a later report that lists an issue as fixed comments on its ticket
 * and closes GitHub and GitLab issues, against stand-ins written from each provider's documentation
 * (the method, path, headers and body each receives); the branch rule; the outbox's order (the
 * closing waits for the comment), its retries on 5xx, 429 with Retry-After and network errors, its
 * failures at once on other 4xx and on a deleted connection; one attempt at a time with two workers;
 * no credential in the outbox.
 */
import { describe, expect, onTestFinished } from 'vitest';
import { createProviderHttp } from '../../src/connections/provider-http.js';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';
import { createTicketFollowUps } from '../../src/tickets/ticket-follow-up.js';
import { appTest } from '../helpers/app-fixture.js';
import type { TestContext } from '../helpers/test-app.js';
import { changesOf, DEBUG, type Git, MAIN, SQL, XSS, fingerprintOf, uploadSpots } from '../issues/issues-world.js';
import { addGitHubIssues } from '../stand-ins/github.js';
import { addGitLabIssues } from '../stand-ins/gitlab.js';
import { addJiraIssues } from '../stand-ins/jira.js';
import { addLinear, linearIssues } from '../stand-ins/linear.js';
import { startStandIn } from '../stand-ins/stand-in-server.js';
import { box, createTicket, givenConnection, putTracker, setTarget } from './tickets-world.js';

const GITHUB = { token: 'ghp_FOLLOWUPtokenabcdefghijklm5678', login: 'octocat' };
const GITLAB = { token: 'glpat-followup-secret-4321', username: 'ada' };
const JIRA_CLOUD = { email: 'ada@example.com', api_token: 'ATATT3xFollowUpJiraToken2468', displayName: 'Ada' };
const JIRA_DC = { token: 'dc-followup-pat-1357', displayName: 'Ada' };
const LINEAR = { api_key: 'lin_api_followupkey_9753', name: 'Ada' };
const FIX_COMMIT = 'b'.repeat(40);
/** The later report on main: SQL is gone from it. */
const FIXED_ON_MAIN: Git = { git_branch: 'main', git_commit: FIX_COMMIT };
const LATER = '2026-11-21T09:30:00Z';
/** The report's page in the dashboard, as an injected request's host names it (D16, no PUBLIC_URL). */
const REPORTS = 'http://localhost:80/reports/';
/** Markdown as it reads: the ticket text escapes punctuation (a report's hyphens too) so that nothing in it is markup. */
const unescaped = (markdown: string) => markdown.replace(/\\(.)/g, '$1');

const it = appTest({
  user: { plan: 'business', name: 'Ada' },
  project: { repository_url: 'https://github.com/acme/shop' },
  env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
  deps: { secrets: box },
  log: 'trace',
})
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern
  .extend('standIn', async ({}, { onCleanup }) => {
    const standIn = await startStandIn();
    onCleanup(() => standIn.close());
    return standIn;
  })
  /** A report on main holding SQL, XSS and DEBUG, and their fingerprints. */
  .extend('world', async ({ ctx, user, apiToken }) => {
    const uuid = await uploadSpots(ctx, apiToken, [SQL, XSS, DEBUG], MAIN);
    return { uuid, sql: await fingerprintOf(ctx, user.token, uuid, SQL) };
  })
  /** SQL's ticket at the GitHub stand-in (acme/shop), through a GitHub connection linked as the tracker. */
  .extend('github', async ({ ctx, user, project, projectId, standIn, world }) => {
    const issues = addGitHubIssues(standIn, GITHUB);
    const connectionId = await givenConnection(ctx, project.project.team_id, 'github', standIn.url, { token: GITHUB.token });
    const ticket = await ticketFor(ctx, user.token, projectId, connectionId, 'acme/shop', world.sql);
    return { issues, connectionId, ticket };
  });

/** Links a connection as the project's tracker with `target`, and makes the SQL issue's ticket. */
async function ticketFor(ctx: TestContext, token: string, projectId: string, connectionId: string, target: string, fingerprint: string) {
  await setTarget(ctx, projectId, target);
  expect((await putTracker(ctx, token, projectId, { connection_id: connectionId })).statusCode).toBe(200);
  const created = await createTicket(ctx, token, projectId, fingerprint);
  expect(created.statusCode, created.body).toBe(201);
  return created.json().data as { key: string; url: string; closed_at: string | null };
}

/** The project's outbox, oldest first. */
const outbox = (ctx: TestContext) => ctx.db.selectFrom('outbox').selectAll().orderBy('created_at').orderBy('id').execute();

/** The ticket as a report's changes show it on the issue (a fixed one's too). */
async function ticketShown(ctx: TestContext, token: string, report: string, fingerprint: string) {
  const item = (await changesOf(ctx, token, report)).find((candidate) => candidate.fingerprint === fingerprint);
  return item?.state?.ticket;
}

describe('E9.5 a fixed issue tells its ticket', () => {
  it('GitHub: comments "Fixed in report R at commit C" with the report link, then closes the issue as completed', async ({
    ctx,
    user,
    projectId,
    apiToken,
    standIn,
    world,
    github,
  }) => {
    const { issues, ticket } = github;
    // A report that still holds the issue says nothing to its ticket.
    await uploadSpots(ctx, apiToken, [SQL, XSS], MAIN, '2026-11-21T09:10:00Z');
    expect(await outbox(ctx)).toEqual([]);

    const fix = await uploadSpots(ctx, apiToken, [XSS, DEBUG], FIXED_ON_MAIN, LATER);
    const messages = await outbox(ctx);
    expect(messages.map((message) => [message.kind, message.status])).toEqual([
      ['ticket_comment', 'pending'],
      ['ticket_close', 'pending'],
    ]);
    standIn.received.length = 0;

    // The closing waits for the comment: one round makes the comment only.
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    const [comment] = standIn.received;
    expect(comment!.method).toBe('POST');
    expect(comment!.path).toBe(`/repos/acme/shop/issues/${ticket.key.split('#')[1]}/comments`);
    expect(comment!.headers.authorization).toBe(`Bearer ${GITHUB.token}`);
    expect(comment!.headers.accept).toBe('application/vnd.github+json');
    expect(comment!.headers['x-github-api-version']).toBe('2022-11-28');
    const body = unescaped((comment!.json as { body: string }).body);
    expect(body).toContain(`Fixed in report ${fix} at commit ${FIX_COMMIT} on main`);
    expect(body).toContain(`(<${REPORTS}${fix}>)`);
    expect(await ticketShown(ctx, user.token, fix, world.sql)).toMatchObject({ key: ticket.key, closed_at: null });
    // The first report's stored answer (D28) shows the open ticket...
    const before = await ctx.request({ method: 'GET', url: `/api/v1/reports/${world.uuid}`, token: user.token });
    expect(JSON.stringify(before.json())).toContain(`"key":"${ticket.key}","url":"${ticket.url}"`);
    expect(JSON.stringify(before.json())).not.toMatch(/"closed_at":"/);

    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    const close = standIn.received[1]!;
    expect(close.method).toBe('PATCH');
    expect(close.path).toBe(`/repos/acme/shop/issues/${ticket.key.split('#')[1]}`);
    expect(close.json).toEqual({ state: 'closed', state_reason: 'completed' });
    expect(issues.get(ticket.key)).toMatchObject({
      state: 'closed',
      state_reason: 'completed',
      comments: [(comment!.json as { body: string }).body],
    });
    expect(await ticketShown(ctx, user.token, fix, world.sql)).toMatchObject({ closed_at: ctx.clock.now().toISOString() });
    // ...and is built again once it is closed.
    const after = await ctx.request({ method: 'GET', url: `/api/v1/reports/${world.uuid}`, token: user.token });
    expect(JSON.stringify(after.json())).toContain(`"closed_at":"${ctx.clock.now().toISOString()}"`);
    expect((await outbox(ctx)).map((message) => [message.status, message.attempts, message.response_status])).toEqual([
      ['succeeded', 1, 201],
      ['succeeded', 1, 200],
    ]);
    expect(await ctx.app.outboxWorker.runOnce()).toBe(0);
    // Any member sees the calls, newest first, in the shape of a webhook's deliveries.
    const member = await ctx.given.inRole(user, 'readonly');
    const listed = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/tracker/deliveries`, token: member.token });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().data).toEqual([
      expect.objectContaining({ event: 'ticket_close', status: 'succeeded', attempts: 1, response_status: 200, error: null }),
      expect.objectContaining({ event: 'ticket_comment', status: 'succeeded', attempts: 1, response_status: 201, error: null }),
    ]);
    expect(listed.json().meta).toMatchObject({ total: 2 });
    // The credentials are opened when a call is made: never in the outbox, any other table, or a log line.
    expect(await ctx.store.everythingStored()).toContain('ticket_close'); // the scan sees the outbox
    expect(await ctx.store.everythingStored()).not.toContain(GITHUB.token);
  });

  it('GitLab: a note on the issue, then state_event close', async ({ ctx, user, project, projectId, apiToken, standIn, world }) => {
    const issues = addGitLabIssues(standIn, GITLAB);
    const connectionId = await givenConnection(ctx, project.project.team_id, 'gitlab', `${standIn.url}/api/v4`, { token: GITLAB.token });
    await ticketFor(ctx, user.token, projectId, connectionId, 'group/shop', world.sql);
    const fix = await uploadSpots(ctx, apiToken, [XSS, DEBUG], FIXED_ON_MAIN, LATER);
    standIn.received.length = 0;
    await ctx.app.outboxWorker.runOnce();
    await ctx.app.outboxWorker.runOnce();
    const [note, close] = standIn.received;
    expect([note!.method, note!.path, note!.headers['private-token']]).toEqual(['POST', '/api/v4/projects/3/issues/7/notes', GITLAB.token]);
    expect(unescaped((note!.json as { body: string }).body)).toContain(`Fixed in report ${fix} at commit ${FIX_COMMIT}`);
    expect([close!.method, close!.path, close!.json]).toEqual(['PUT', '/api/v4/projects/3/issues/7', { state_event: 'close' }]);
    expect(issues.get('3#7')).toMatchObject({ state: 'closed', notes: [expect.stringContaining('Fixed in report')] });
  });

  it('Jira Cloud: a comment in Atlassian Document Format, and the ticket stays open', async ({
    ctx,
    user,
    project,
    projectId,
    apiToken,
    standIn,
    world,
  }) => {
    const issues = addJiraIssues(standIn, JIRA_CLOUD, 'SHOP');
    const connectionId = await givenConnection(ctx, project.project.team_id, 'jira', standIn.url, {
      email: JIRA_CLOUD.email,
      api_token: JIRA_CLOUD.api_token,
    });
    const ticket = await ticketFor(ctx, user.token, projectId, connectionId, 'SHOP', world.sql);
    const fix = await uploadSpots(ctx, apiToken, [XSS, DEBUG], FIXED_ON_MAIN, LATER);
    expect((await outbox(ctx)).map((message) => message.kind)).toEqual(['ticket_comment']);
    standIn.received.length = 0;
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    const [comment] = standIn.received;
    expect(comment!.path).toBe(`/rest/api/3/issue/${ticket.key}/comment`);
    expect(comment!.headers.authorization).toBe(`Basic ${Buffer.from(`${JIRA_CLOUD.email}:${JIRA_CLOUD.api_token}`).toString('base64')}`);
    const document = (comment!.json as { body: { type: string; content: unknown[] } }).body;
    expect(document).toMatchObject({ type: 'doc', version: 1 });
    expect(JSON.stringify(document)).toContain(`Fixed in report ${fix} at commit ${FIX_COMMIT}`);
    expect(JSON.stringify(document)).toContain(`"href":"${REPORTS}${fix}"`);
    expect(issues.get(ticket.key)!.comments).toHaveLength(1);
    expect(await ticketShown(ctx, user.token, fix, world.sql)).toMatchObject({ closed_at: null });
  });

  it('Jira Data Center: a comment in wiki markup at API v2', async ({ ctx, user, project, projectId, apiToken, standIn, world }) => {
    const issues = addJiraIssues(standIn, JIRA_DC, 'SHOP');
    const connectionId = await givenConnection(ctx, project.project.team_id, 'jira', standIn.url, { token: JIRA_DC.token });
    const ticket = await ticketFor(ctx, user.token, projectId, connectionId, 'SHOP', world.sql);
    const fix = await uploadSpots(ctx, apiToken, [XSS, DEBUG], FIXED_ON_MAIN, LATER);
    standIn.received.length = 0;
    await ctx.app.outboxWorker.runOnce();
    const [comment] = standIn.received;
    expect(comment!.path).toBe(`/rest/api/2/issue/${ticket.key}/comment`);
    expect(comment!.headers.authorization).toBe(`Bearer ${JIRA_DC.token}`);
    expect(issues.get(ticket.key)!.comments).toEqual([expect.stringContaining(`[View the report in Scoreboard|${REPORTS}${fix}]`)]);
  });

  it("Linear: commentCreate on the issue's id", async ({ ctx, user, project, projectId, apiToken, standIn, world }) => {
    const { operations, issues } = linearIssues('ENG');
    const baseUrl = addLinear(standIn, LINEAR, operations);
    const connectionId = await givenConnection(ctx, project.project.team_id, 'linear', baseUrl, { api_key: LINEAR.api_key });
    await ticketFor(ctx, user.token, projectId, connectionId, 'ENG', world.sql);
    const fix = await uploadSpots(ctx, apiToken, [XSS, DEBUG], FIXED_ON_MAIN, LATER);
    standIn.received.length = 0;
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    const [comment] = standIn.received;
    expect(comment!.headers.authorization).toBe(LINEAR.api_key);
    const { query, variables } = comment!.json as { query: string; variables: { input: { issueId: string; body: string } } };
    expect(query).toContain('commentCreate(input: $input)');
    expect(variables.input.issueId).toBe('issue-uuid-7');
    expect(issues.get('issue-uuid-7')!.comments.map(unescaped)).toEqual([expect.stringContaining(`Fixed in report ${fix}`)]);
  });
});

describe('E9.5 which reports tell', () => {
  it("only a report on the ticket's branch: a pull request that fixes it says nothing until main's report does", async ({
    ctx,
    user,
    apiToken,
    world,
    github,
  }) => {
    const feature = await uploadSpots(
      ctx,
      apiToken,
      [XSS, DEBUG],
      { git_branch: 'feature/x', git_commit: 'c'.repeat(40), pr_number: 12, base_branch: 'main' },
      '2026-11-21T09:10:00Z',
    );
    const fixedThere = (
      await ctx.request({ method: 'GET', url: `/api/v1/reports/${feature}/changes?kind=fixed`, token: user.token })
    ).json();
    // The pull request's report compares with main's and lists the issue as fixed: not merged, nor on the ticket's branch.
    expect(fixedThere.data.map((item: { fingerprint: string }) => item.fingerprint)).toContain(world.sql);
    expect(await outbox(ctx)).toEqual([]);
    await uploadSpots(ctx, apiToken, [XSS, DEBUG], FIXED_ON_MAIN, LATER);
    expect((await outbox(ctx)).map((message) => [message.kind, (JSON.parse(message.payload) as { key: string }).key])).toEqual([
      ['ticket_comment', github.ticket.key],
      ['ticket_close', github.ticket.key],
    ]);
  });

  it('a ticket made from a report without a branch is told by any branch', async ({ ctx, user, project, projectId, apiToken, standIn }) => {
    addGitHubIssues(standIn, GITHUB);
    const noBranch = await uploadSpots(ctx, apiToken, [SQL, XSS], {}, '2026-11-21T08:00:00Z');
    const fingerprint = await fingerprintOf(ctx, user.token, noBranch, SQL);
    const connectionId = await givenConnection(ctx, project.project.team_id, 'github', standIn.url, { token: GITHUB.token });
    await ticketFor(ctx, user.token, projectId, connectionId, 'acme/shop', fingerprint);
    await uploadSpots(ctx, apiToken, [XSS], {}, LATER);
    expect((await outbox(ctx)).map((message) => message.kind)).toEqual(['ticket_comment', 'ticket_close']);
  });
});

describe('E9.5 through the outbox', () => {
  it('retries a 503 and a 429 no sooner than Retry-After, a refused connection on the schedule, then succeeds', async ({
    ctx,
    log,
    apiToken,
    standIn,
    github,
  }) => {
    await uploadSpots(ctx, apiToken, [XSS, DEBUG], FIXED_ON_MAIN, LATER);
    const created = ctx.clock.now().getTime();
    const comment = async () => (await outbox(ctx))[0]!;

    standIn.script.push({ status: 503, body: { message: 'Service unavailable' }, headers: { 'retry-after': '600' } });
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    let row = await comment();
    expect(row).toMatchObject({ status: 'pending', attempts: 1, response_status: 503, error: 'Service unavailable' });
    // The schedule's first retry is about a minute after the first; Retry-After asks ten.
    expect(Date.parse(row.next_attempt_at!)).toBe(created + 600_000);
    ctx.clock.advance(300_000);
    expect(await ctx.app.outboxWorker.runOnce()).toBe(0);

    ctx.clock.set(row.next_attempt_at!);
    standIn.script.push({ status: 429, body: { message: 'API rate limit exceeded' }, headers: { 'retry-after': '3600' } });
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    row = await comment();
    expect(row).toMatchObject({ status: 'pending', attempts: 2, response_status: 429, error: 'API rate limit exceeded' });
    expect(Date.parse(row.next_attempt_at!)).toBe(ctx.clock.now().getTime() + 3_600_000);

    // A network error (nobody listening at the connection's address) is retried on the schedule.
    ctx.clock.set(row.next_attempt_at!);
    await ctx.db.updateTable('connections').set({ base_url: 'http://127.0.0.1:9' }).where('id', '=', github.connectionId).execute();
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    row = await comment();
    expect(row).toMatchObject({ status: 'pending', attempts: 3, response_status: null });
    expect(row.error).toMatch(/connect|ECONNREFUSED/i);

    await ctx.db.updateTable('connections').set({ base_url: standIn.url }).where('id', '=', github.connectionId).execute();
    ctx.clock.set(row.next_attempt_at!);
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    expect(await comment()).toMatchObject({ status: 'succeeded', attempts: 4, response_status: 201, error: null });
    expect(log.text).toMatch(/outbox attempt failed/); // the failures were logged, and their lines hold no credential
    expect(log.text).not.toContain(GITHUB.token);
  });

  it("fails a 4xx at once with the provider's message; the closing is tried after it all the same", async ({
    ctx,
    apiToken,
    standIn,
    github,
  }) => {
    await uploadSpots(ctx, apiToken, [XSS, DEBUG], FIXED_ON_MAIN, LATER);
    standIn.script.push({ status: 410, body: { message: 'Issues are disabled for this repo' } });
    await ctx.app.outboxWorker.runOnce();
    await ctx.app.outboxWorker.runOnce();
    expect(
      (await outbox(ctx)).map((message) => [message.kind, message.status, message.response_status, message.error, message.next_attempt_at]),
    ).toEqual([
      ['ticket_comment', 'failed', 410, 'Issues are disabled for this repo', null],
      ['ticket_close', 'succeeded', 200, null, null],
    ]);
    expect(github.issues.get(github.ticket.key)).toMatchObject({ state: 'closed', comments: [] });
  });

  it('fails a message whose connection was deleted since, and sends nothing', async ({ ctx, user, project, apiToken, standIn, github }) => {
    await uploadSpots(ctx, apiToken, [XSS, DEBUG], FIXED_ON_MAIN, LATER);
    const deleted = await ctx.request({
      method: 'DELETE',
      url: `/api/v1/teams/${project.project.team_id}/connections/${github.connectionId}`,
      token: user.token,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    standIn.received.length = 0;
    await ctx.app.outboxWorker.runOnce();
    await ctx.app.outboxWorker.runOnce();
    expect(standIn.received).toEqual([]);
    expect((await outbox(ctx)).map((message) => [message.status, message.error])).toEqual([
      ['failed', 'the connection was deleted; nothing was sent'],
      ['failed', 'the connection was deleted; nothing was sent'],
    ]);
  });

  it("follows E6's address rules: an instance without WEBHOOK_ALLOW_PRIVATE_NETWORKS fails a call to a loopback provider at once", async ({
    ctx,
    apiToken,
    standIn,
    github,
  }) => {
    await uploadSpots(ctx, apiToken, [XSS, DEBUG], FIXED_ON_MAIN, LATER);
    // The tickets were made through this app, which allows private networks; an instance without it refuses 127.0.0.1.
    const http = createProviderHttp({ allowPrivateNetworks: false });
    onTestFinished(() => http.close());
    const strict = createOutboxWorker({
      db: ctx.db,
      clock: ctx.clock,
      logger: ctx.app.log,
      handlers: createTicketFollowUps({ db: ctx.db, clock: ctx.clock, secrets: box, http }).handlers,
      concurrency: 4,
    });
    standIn.received.length = 0;
    expect(await strict.runOnce()).toBe(1);
    expect(await strict.runOnce()).toBe(1);
    expect(standIn.received).toEqual([]);
    const rows = await outbox(ctx);
    expect(rows.map((row) => [row.status, row.attempts, row.response_status, row.next_attempt_at])).toEqual([
      ['failed', 1, null, null],
      ['failed', 1, null, null],
    ]);
    for (const row of rows) expect(row.error).toMatch(/refused|not allowed|private|loopback/i);
    expect(github.issues.get(github.ticket.key)).toMatchObject({ state: 'open', comments: [] });
  });

  it('two workers on one database make each call once, the comment before the closing', async ({ ctx, apiToken, standIn, github }) => {
    const { issues, ticket } = github;
    await uploadSpots(ctx, apiToken, [XSS, DEBUG], FIXED_ON_MAIN, LATER);
    // A second instance's worker: its own provider client, the same database.
    const http = createProviderHttp({ allowPrivateNetworks: true });
    onTestFinished(() => http.close());
    const other = createOutboxWorker({
      db: ctx.db,
      clock: ctx.clock,
      logger: ctx.app.log,
      handlers: createTicketFollowUps({ db: ctx.db, clock: ctx.clock, secrets: box, http }).handlers,
      concurrency: 4,
    });
    standIn.received.length = 0;
    // Rounds of both at once until nothing is left: whichever claims a call makes it, the other never does.
    let attempted = 0;
    for (let round = 0; round < 4; round++) {
      const counts = await Promise.all([ctx.app.outboxWorker.runOnce(), other.runOnce()]);
      attempted += counts[0] + counts[1];
    }
    expect(attempted).toBe(2);
    expect(standIn.received.map((request) => request.method)).toEqual(['POST', 'PATCH']);
    expect(issues.get(ticket.key)).toMatchObject({ state: 'closed', comments: [expect.stringContaining('Fixed in report')] });
  });
});

/** The same app with a provider client whose deadline is half a second, so that a hanging provider is one quickly. */
const quickIt = appTest({
  user: { plan: 'business', name: 'Ada' },
  env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
  deps: { secrets: box, providerHttp: createProviderHttp({ allowPrivateNetworks: true, timeoutMs: 500 }) },
})
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern
  .extend('standIn', async ({}, { onCleanup }) => {
    const standIn = await startStandIn();
    onCleanup(() => standIn.close());
    return standIn;
  });

describe('E9.5 providers that hang or answer too much', () => {
  quickIt(
    'a hanging provider is retried after the deadline; a 2xx of 10 MiB made the call and is not made again',
    async ({ ctx, user, project, projectId, apiToken, standIn }) => {
      const issues = addGitHubIssues(standIn, GITHUB);
      const uuid = await uploadSpots(ctx, apiToken, [SQL, XSS], MAIN);
      const connectionId = await givenConnection(ctx, project.project.team_id, 'github', standIn.url, { token: GITHUB.token });
      await ticketFor(ctx, user.token, projectId, connectionId, 'acme/shop', await fingerprintOf(ctx, user.token, uuid, SQL));
      await uploadSpots(ctx, apiToken, [XSS], FIXED_ON_MAIN, LATER);

      standIn.script.push('hang');
      expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
      const [comment] = await outbox(ctx);
      expect(comment).toMatchObject({ kind: 'ticket_comment', status: 'pending', attempts: 1, response_status: null });
      expect(comment!.error).toMatch(/time/i);

      ctx.clock.set(comment!.next_attempt_at!);
      standIn.script.push({ huge: 10 * 1024 * 1024, status: 201 });
      expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
      expect((await outbox(ctx))[0]).toMatchObject({ status: 'succeeded', attempts: 2, response_status: 201 });
      // The closing is next, and the comment is not made a third time.
      expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
      expect(standIn.received.filter((request) => request.path.endsWith('/comments'))).toHaveLength(2);
      expect([...issues.values()][0]).toMatchObject({ state: 'closed' });
    },
  );
});
