/**
 * E10.2–E10.4 over HTTP and the outbox, against stand-ins written from each host's documentation
 * (test/stand-ins/): a report with a commit sets its status, a report of a pull request keeps one
 * comment current on it (created, edited in place, created again once deleted, never overwritten by
 * an older report), on GitHub, GitLab, Gitea and Bitbucket, with the method, path, headers and body
 * each host documents; the link's switches; dismissed issues left out; retries and failures as
 * E10.4 says; a burst of 200 reports on one pull request.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import type { TestContext } from '../helpers/test-app.js';
import { DEBUG, type Git, MAIN, SQL, XSS, fingerprintOf, putState, uploadSpots } from '../issues/issues-world.js';
import { addBitbucketRepos } from '../stand-ins/bitbucket.js';
import type { CodeHostRepos } from '../stand-ins/code-host-records.js';
import { addGiteaRepos } from '../stand-ins/gitea.js';
import { addGitHubRepos } from '../stand-ins/github.js';
import { addGitLabRepos } from '../stand-ins/gitlab.js';
import { type StandIn, type StandInRequest, startStandIn } from '../stand-ins/stand-in-server.js';
import { box, givenConnection } from '../tickets/tickets-world.js';

const PR_COMMIT = 'c'.repeat(40);
/** A pull request's run: its branch, its number and the branch it merges into (the baseline's). */
const pullRequest = (commit = PR_COMMIT, number = '7'): Git => ({
  git_branch: 'feature/login',
  git_commit: commit,
  pr_number: number,
  base_branch: 'main',
});
/** The report's page in the dashboard, as an injected request's host names it (D16, no PUBLIC_URL). */
const REPORTS = 'http://localhost:80/reports/';
const MARKER = (projectId: string) => `<!-- scoreboard:project:${projectId} -->`;
/** Markdown as it reads: the hosts' escapes (a backslash, a zero-width space) taken out. */
const plain = (markdown: string) => markdown.replace(/\\(.)/g, '$1').replaceAll('\u200b', '');

interface Host {
  provider: 'github' | 'gitlab' | 'gitea' | 'bitbucket';
  repository: string;
  /** The stand-in's routes for the host, the connection's base_url and credentials. */
  setUp(standIn: StandIn): { repos: CodeHostRepos; baseUrl: string; credentials: Record<string, string> };
  /** The headers that must authenticate every call. */
  auth: Record<string, string>;
  /** The credential, which must never be in the outbox. */
  secret: string;
  statusPath(sha: string): string;
  /** The status body the host documents, for a gate that passed or failed. */
  statusBody(passed: boolean, reportUrl: string): Record<string, unknown>;
  createPath(number: string): string;
  edit(number: string, id: number): { method: string; path: string };
  /** The comment's Markdown in a request's body. */
  markdownOf(request: StandInRequest): string;
}

const GITHUB_TOKEN = 'ghp_CODEHOSTtokenabcdefghijklmn1234';
const HOSTS: Host[] = [
  {
    provider: 'github',
    repository: 'acme/shop',
    setUp: (standIn) => ({
      repos: addGitHubRepos(standIn, { token: GITHUB_TOKEN, login: 'octocat' }),
      baseUrl: standIn.url,
      credentials: { token: GITHUB_TOKEN },
    }),
    auth: { authorization: `Bearer ${GITHUB_TOKEN}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' },
    secret: GITHUB_TOKEN,
    statusPath: (sha) => `/repos/acme/shop/statuses/${sha}`,
    statusBody: (passed, url) => ({ state: passed ? 'success' : 'failure', context: 'scoreboard', target_url: url }),
    createPath: (n) => `/repos/acme/shop/issues/${n}/comments`,
    edit: (_n, id) => ({ method: 'PATCH', path: `/repos/acme/shop/issues/comments/${id}` }),
    markdownOf: (request) => (request.json as { body: string }).body,
  },
  {
    provider: 'gitlab',
    repository: 'acme/backend/shop',
    setUp: (standIn) => ({
      repos: addGitLabRepos(standIn, { token: 'glpat-codehost-5678', username: 'ada' }),
      baseUrl: `${standIn.url}/api/v4`,
      credentials: { token: 'glpat-codehost-5678' },
    }),
    auth: { 'private-token': 'glpat-codehost-5678' },
    secret: 'glpat-codehost-5678',
    statusPath: (sha) => `/api/v4/projects/acme%2Fbackend%2Fshop/statuses/${sha}`,
    statusBody: (passed, url) => ({ state: passed ? 'success' : 'failed', name: 'scoreboard', target_url: url }),
    createPath: (n) => `/api/v4/projects/acme%2Fbackend%2Fshop/merge_requests/${n}/notes`,
    edit: (n, id) => ({ method: 'PUT', path: `/api/v4/projects/acme%2Fbackend%2Fshop/merge_requests/${n}/notes/${id}` }),
    markdownOf: (request) => (request.json as { body: string }).body,
  },
  {
    provider: 'gitea',
    repository: 'acme/shop',
    setUp: (standIn) => ({
      repos: addGiteaRepos(standIn, { token: 'gitea-codehost-9012', login: 'ada' }),
      baseUrl: `${standIn.url}/api/v1`,
      credentials: { token: 'gitea-codehost-9012' },
    }),
    auth: { authorization: 'token gitea-codehost-9012' },
    secret: 'gitea-codehost-9012',
    statusPath: (sha) => `/api/v1/repos/acme/shop/statuses/${sha}`,
    statusBody: (passed, url) => ({ state: passed ? 'success' : 'failure', context: 'scoreboard', target_url: url }),
    createPath: (n) => `/api/v1/repos/acme/shop/issues/${n}/comments`,
    edit: (_n, id) => ({ method: 'PATCH', path: `/api/v1/repos/acme/shop/issues/comments/${id}` }),
    markdownOf: (request) => (request.json as { body: string }).body,
  },
  {
    provider: 'bitbucket',
    repository: 'acme/shop',
    setUp: (standIn) => ({
      repos: addBitbucketRepos(standIn, { token: 'bb-codehost-3456', display_name: 'Ada' }),
      baseUrl: `${standIn.url}/2.0`,
      credentials: { token: 'bb-codehost-3456' },
    }),
    auth: { authorization: 'Bearer bb-codehost-3456' },
    secret: 'bb-codehost-3456',
    statusPath: (sha) => `/2.0/repositories/acme/shop/commit/${sha}/statuses/build`,
    statusBody: (passed, url) => ({ key: 'scoreboard', state: passed ? 'SUCCESSFUL' : 'FAILED', name: 'scoreboard', url }),
    createPath: (n) => `/2.0/repositories/acme/shop/pullrequests/${n}/comments`,
    edit: (n, id) => ({ method: 'PUT', path: `/2.0/repositories/acme/shop/pullrequests/${n}/comments/${id}` }),
    markdownOf: (request) => (request.json as { content: { raw: string } }).content.raw,
  },
];

const it = appTest({
  user: { plan: 'business', name: 'Ada' },
  // The burst's 200 uploads within one minute.
  env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', UPLOAD_RATE_LIMIT: '1000' },
  deps: { secrets: box },
  log: 'trace',
}).extend('standIn', async ({ ctx }, { onCleanup }) => {
  // The reports are analysed on 21 November (D2: never in the future).
  ctx.clock.set('2026-11-22T00:00:00.000Z');
  const standIn = await startStandIn();
  onCleanup(() => standIn.close());
  return standIn;
});

/** The project's outbox, oldest first. */
const outbox = (ctx: TestContext) => ctx.db.selectFrom('outbox').selectAll().orderBy('created_at').orderBy('id').execute();

/** Runs the outbox worker until nothing is due. */
async function drain(ctx: TestContext) {
  while ((await ctx.app.outboxWorker.runOnce()) > 0);
}

/** Links the project to `host` at the stand-in, with the switches given; the stand-in's records. */
async function link(ctx: TestContext, token: string, teamId: number, projectId: string, standIn: StandIn, host: Host, switches = {}) {
  const { repos, baseUrl, credentials } = host.setUp(standIn);
  repos.addPullRequest(host.repository, 7);
  const connectionId = await givenConnection(ctx, teamId, host.provider, baseUrl, credentials);
  const linked = await ctx.request({
    method: 'PUT',
    url: `/api/v1/projects/${projectId}/code-host`,
    token,
    body: { connection_id: connectionId, repository: host.repository, ...switches },
  });
  expect(linked.statusCode, linked.body).toBe(200);
  return { repos, connectionId };
}

const gateOf = async (ctx: TestContext, uuid: string) => {
  const row = await ctx.db.selectFrom('reports').select('gate').where('uuid', '=', uuid).executeTakeFirstOrThrow();
  return JSON.parse(row.gate!) as { passed: boolean; reasons: string[] };
};

describe.each(HOSTS)('E10.2, E10.3 on $provider', (host) => {
  it('sets the commit status and keeps one pull-request comment current', async ({ ctx, user, project, projectId, apiToken, standIn }) => {
    const { repos } = await link(ctx, user.token, project.project.team_id, projectId, standIn, host);
    // The baseline: main holds XSS. A report on main has a commit and no pull request: a status only.
    const main = await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T09:00:00Z');
    expect((await outbox(ctx)).map((m) => m.kind)).toEqual(['commit_status']);
    await drain(ctx);
    expect(standIn.received).toHaveLength(1);
    const [status] = standIn.received;
    expect(status!.method).toBe('POST');
    expect(status!.path).toBe(host.statusPath(MAIN.git_commit as string));
    expect(status!.headers).toMatchObject(host.auth);
    const passedMain = (await gateOf(ctx, main)).passed;
    expect(status!.json).toMatchObject(host.statusBody(passedMain, `${REPORTS}${main}`));
    const description = (status!.json as { description: string }).description;
    expect(description.length).toBeLessThanOrEqual(140);
    expect(description).toMatch(/^Score \d+/);

    // The pull request's first report: a status on its commit and a new comment.
    standIn.received.length = 0;
    const first = await uploadSpots(ctx, apiToken, [XSS, SQL, DEBUG], pullRequest(), '2026-11-21T10:00:00Z');
    expect((await outbox(ctx)).slice(1).map((m) => m.kind)).toEqual(['commit_status', 'pull_request_comment']);
    await drain(ctx);
    const gate = await gateOf(ctx, first);
    const prStatus = standIn.received.find((request) => request.path === host.statusPath(PR_COMMIT));
    expect(prStatus!.json).toMatchObject(host.statusBody(gate.passed, `${REPORTS}${first}`));
    if (!gate.passed) expect((prStatus!.json as { description: string }).description).toContain('gate failed');
    const created = standIn.received.find((request) => request.path === host.createPath('7'));
    expect(created!.method).toBe('POST');
    expect(created!.headers).toMatchObject(host.auth);
    const [comment] = repos.comments(host.repository, 7);
    expect(comment!.body.startsWith(MARKER(projectId))).toBe(true);
    expect(comment!.body).toContain(`/reports/${first}`);
    expect(comment!.body).toContain('Raw SQL with user input');
    expect(plain(comment!.body)).toContain('APP_DEBUG is true');
    expect(comment!.body).not.toContain('Unescaped output'); // XSS is in the baseline: not new

    // A later report edits the same comment in place.
    standIn.received.length = 0;
    const second = await uploadSpots(ctx, apiToken, [XSS, SQL], pullRequest('d'.repeat(40)), '2026-11-21T11:00:00Z');
    await drain(ctx);
    const edit = host.edit('7', comment!.id);
    const edited = standIn.received.find((request) => request.path === edit.path);
    expect(edited!.method).toBe(edit.method);
    expect(host.markdownOf(edited!)).toContain(`/reports/${second}`);
    expect(repos.comments(host.repository, 7)).toEqual([expect.objectContaining({ id: comment!.id, edits: 1 })]);
    expect(plain(repos.comments(host.repository, 7)[0]!.body)).not.toContain('APP_DEBUG is true');

    // An older report (D19: analysed before the one shown), uploaded late, leaves the comment alone.
    standIn.received.length = 0;
    await uploadSpots(ctx, apiToken, [XSS, SQL, DEBUG], pullRequest('e'.repeat(40)), '2026-11-21T10:30:00Z');
    await drain(ctx);
    expect(standIn.received.map((request) => request.path)).toEqual([host.statusPath('e'.repeat(40))]);
    expect(repos.comments(host.repository, 7)[0]!.body).toContain(`/reports/${second}`);

    // Deleted on the host: the next report's edit is a 404, and a new comment takes its place.
    repos.deleteComment(comment!.id);
    const third = await uploadSpots(ctx, apiToken, [XSS], pullRequest('f'.repeat(40)), '2026-11-21T12:00:00Z');
    await drain(ctx);
    const comments = repos.comments(host.repository, 7);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.id).not.toBe(comment!.id);
    expect(comments[0]!.body).toContain(`/reports/${third}`);
    expect((await outbox(ctx)).every((message) => message.status === 'succeeded')).toBe(true);
    // No credential in any message.
    expect(JSON.stringify(await outbox(ctx))).not.toContain(host.secret);
  });
});

describe('E10 the link decides what is sent', () => {
  it('sends no status when commit_status is off, no comment when pull_request_comment is off, nothing without a link', async ({
    ctx,
    user,
    project,
    projectId,
    apiToken,
    standIn,
  }) => {
    await uploadSpots(ctx, apiToken, [XSS], pullRequest(), '2026-11-21T08:00:00Z');
    expect(await outbox(ctx)).toEqual([]);
    await link(ctx, user.token, project.project.team_id, projectId, standIn, HOSTS[0]!, { commit_status: false });
    await uploadSpots(ctx, apiToken, [XSS], pullRequest(), '2026-11-21T09:00:00Z');
    expect((await outbox(ctx)).map((m) => m.kind)).toEqual(['pull_request_comment']);
    await ctx.request({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}/code-host`,
      token: user.token,
      body: { connection_id: (await outbox(ctx))[0]!.target, repository: 'acme/shop', pull_request_comment: false },
    });
    await uploadSpots(ctx, apiToken, [XSS], pullRequest(), '2026-11-21T10:00:00Z');
    expect((await outbox(ctx)).map((m) => m.kind)).toEqual(['pull_request_comment', 'commit_status']);
    // A commit that is not hexadecimal gets no status (it could not be a path segment of the host's API).
    await uploadSpots(ctx, apiToken, [XSS], { git_branch: 'main', git_commit: 'not a sha' }, '2026-11-21T11:00:00Z');
    expect(await outbox(ctx)).toHaveLength(2);
  });

  it('leaves dismissed issues out of the comment', async ({ ctx, user, project, projectId, apiToken, standIn }) => {
    const { repos } = await link(ctx, user.token, project.project.team_id, projectId, standIn, HOSTS[0]!, { commit_status: false });
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T09:00:00Z');
    const report = await uploadSpots(ctx, apiToken, [XSS, SQL, DEBUG], pullRequest(), '2026-11-21T10:00:00Z');
    const debug = await fingerprintOf(ctx, user.token, report, DEBUG);
    expect((await putState(ctx, user.token, projectId, debug, { status: 'wont_fix', comment: 'Kept on purpose.' })).statusCode).toBe(200);
    await drain(ctx);
    const [comment] = repos.comments('acme/shop', 7);
    expect(comment!.body).toContain('Raw SQL with user input');
    expect(plain(comment!.body)).not.toContain('APP_DEBUG is true');
  });
});

describe('E10.4 delivery', () => {
  it('retries 5xx, 429 no sooner than Retry-After and network errors; fails another 4xx at once with the host message', async ({
    ctx,
    user,
    project,
    projectId,
    apiToken,
    standIn,
  }) => {
    const { connectionId } = await link(ctx, user.token, project.project.team_id, projectId, standIn, HOSTS[0]!, {
      pull_request_comment: false,
    });
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T09:00:00Z');
    const created = ctx.clock.now().getTime();
    const status = async () => (await outbox(ctx))[0]!;

    standIn.script.push({ status: 502, body: { message: 'Server Error' } });
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    let row = await status();
    expect(row).toMatchObject({ status: 'pending', attempts: 1, response_status: 502, error: 'Server Error' });
    expect(Date.parse(row.next_attempt_at!)).toBeGreaterThan(created);

    ctx.clock.set(row.next_attempt_at!);
    standIn.script.push({ status: 429, body: { message: 'API rate limit exceeded' }, headers: { 'retry-after': '900' } });
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    row = await status();
    expect(row).toMatchObject({ status: 'pending', attempts: 2, response_status: 429 });
    expect(Date.parse(row.next_attempt_at!)).toBe(ctx.clock.now().getTime() + 900_000);

    ctx.clock.set(row.next_attempt_at!);
    await ctx.db.updateTable('connections').set({ base_url: 'http://127.0.0.1:9' }).where('id', '=', connectionId).execute();
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    row = await status();
    expect(row).toMatchObject({ status: 'pending', attempts: 3, response_status: null });

    await ctx.db.updateTable('connections').set({ base_url: standIn.url }).where('id', '=', connectionId).execute();
    ctx.clock.set(row.next_attempt_at!);
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    expect(await status()).toMatchObject({ status: 'succeeded', attempts: 4, response_status: 201, error: null });

    // Another 4xx: failed at once, in the host's words.
    await uploadSpots(ctx, apiToken, [XSS], { git_branch: 'main', git_commit: 'b'.repeat(40) }, '2026-11-21T10:00:00Z');
    standIn.script.push({ status: 422, body: { message: 'No commit found for SHA: bbbbbbb' } });
    await drain(ctx);
    expect((await outbox(ctx))[1]).toMatchObject({
      status: 'failed',
      attempts: 1,
      response_status: 422,
      error: 'No commit found for SHA: bbbbbbb',
    });

    const listed = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/code-host/deliveries`, token: user.token });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.map((d: { event: string; status: string }) => [d.event, d.status])).toEqual([
      ['commit_status', 'failed'],
      ['commit_status', 'succeeded'],
    ]);
    expect(listed.body).not.toContain(GITHUB_TOKEN);
  });

  it('fails a message whose connection was deleted, nothing sent', async ({ ctx, user, project, projectId, apiToken, standIn }) => {
    const { connectionId } = await link(ctx, user.token, project.project.team_id, projectId, standIn, HOSTS[0]!);
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T09:00:00Z');
    await ctx.request({ method: 'DELETE', url: `/api/v1/teams/${project.project.team_id}/connections/${connectionId}`, token: user.token });
    await drain(ctx);
    expect(standIn.received).toEqual([]);
    expect((await outbox(ctx))[0]).toMatchObject({ status: 'failed', error: 'the connection was deleted; nothing was sent' });
  });

  it('a burst of 200 reports on one pull request ends with its one comment showing the newest', async ({
    ctx,
    user,
    project,
    projectId,
    apiToken,
    standIn,
  }) => {
    const { repos } = await link(ctx, user.token, project.project.team_id, projectId, standIn, HOSTS[0]!, { commit_status: false });
    await uploadSpots(ctx, apiToken, [XSS], MAIN, '2026-11-21T09:00:00Z');
    const start = Date.parse('2026-11-21T10:00:00Z');
    let newest = '';
    // Uploaded out of order: every tenth one is analysed earliest of all.
    for (let i = 0; i < 200; i++) {
      const at = new Date(start + (i % 10 === 9 ? -i : i) * 1000).toISOString();
      const uuid = await uploadSpots(ctx, apiToken, i % 2 === 0 ? [XSS, SQL] : [XSS, DEBUG], pullRequest(), at);
      if (i === 198) newest = uuid;
    }
    await drain(ctx);
    const comments = repos.comments('acme/shop', 7);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain(`/reports/${newest}`);
    expect((await outbox(ctx)).filter((message) => message.status !== 'succeeded')).toEqual([]);
  });
});
