/**
 * E10.5 against GitHub's stand-in (test/stand-ins/github.ts, from GitHub's documentation): a
 * `github_app` connection (its credentials checked when stored, its check authenticated as the
 * app), installation tokens minted with an RS256 JWT and kept until five minutes before they
 * expire, a check run instead of a status with one annotation per new issue (50 per request, the
 * rest by PATCH, at most 1,000), resumed after a failure without a second run, and the pull
 * request's comment posted as the installation.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import type { TestContext } from '../helpers/test-app.js';
import { type Git, MAIN, type Spot, uploadSpots } from '../issues/issues-world.js';
import { addGitHubApp, addGitHubRepos } from '../stand-ins/github.js';
import { startStandIn } from '../stand-ins/stand-in-server.js';
import { box } from '../tickets/tickets-world.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  // GitHub's downloaded keys are PKCS#1 ("BEGIN RSA PRIVATE KEY").
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const APP = { app_id: '123456', private_key: privateKey, installation_id: '4242' };
const PR: Git = { git_branch: 'feature/x', git_commit: 'c'.repeat(40), pr_number: '7', base_branch: 'main' };
const REPORTS = 'http://localhost:80/reports/';

const it = appTest({
  user: { plan: 'business', name: 'Ada' },
  env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
  deps: { secrets: box },
  log: 'trace',
})
  /** GitHub with the app installed on acme (installation 4242) and acme/shop's pull request 7. */
  .extend('github', async ({ ctx }, { onCleanup }) => {
    const standIn = await startStandIn();
    onCleanup(() => standIn.close());
    const repos = addGitHubRepos(standIn);
    repos.addPullRequest('acme/shop', 7);
    const app = addGitHubApp(standIn, {
      appId: 123456,
      installationId: 4242,
      publicKey,
      login: 'acme',
      now: () => ctx.clock.now().getTime(),
    });
    return { standIn, repos, app };
  })
  /** A github_app connection of the user's team, created over the API, and the project linked to acme/shop. */
  .extend('linked', async ({ ctx, user, project, projectId, github }) => {
    const teamId = project.project.team_id;
    const created = await ctx.request({
      method: 'POST',
      url: `/api/v1/teams/${teamId}/connections`,
      token: user.token,
      body: { provider: 'github_app', name: 'Scoreboard app', base_url: github.standIn.url, credentials: APP },
    });
    expect(created.statusCode, created.body).toBe(201);
    const connection = created.json().data as { id: string; credentials_hint: string };
    const linked = await ctx.request({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}/code-host`,
      token: user.token,
      body: { connection_id: connection.id, repository: 'acme/shop' },
    });
    expect(linked.statusCode, linked.body).toBe(200);
    return { connection, teamId };
  });

const drain = async (ctx: TestContext) => {
  while ((await ctx.app.outboxWorker.runOnce()) > 0);
};
const outbox = (ctx: TestContext) => ctx.db.selectFrom('outbox').selectAll().orderBy('created_at').orderBy('id').execute();

/** `count` new low issues, each on a line of its own; one more without a line (no annotation for it). */
const spots = (count: number): Spot[] => [
  ...Array.from({ length: count }, (_, i) => ({
    analyzer: 'code-smells',
    severity: 'low' as const,
    message: `Smell number ${i}`,
    file: `app/File${i % 7}.php`,
    line: i + 1,
  })),
  { analyzer: 'debug-mode', severity: 'high' as const, message: 'No line here' },
];

describe('E10.5 a GitHub App', () => {
  it('stores its credentials checked, shows nothing of the key, and checks as the app', async ({ ctx, user, project, github }) => {
    const teamId = project.project.team_id;
    const create = (credentials: Record<string, unknown>) =>
      ctx.request({
        method: 'POST',
        url: `/api/v1/teams/${teamId}/connections`,
        token: user.token,
        body: { provider: 'github_app', name: 'App', base_url: github.standIn.url, credentials },
      });
    const bad = await create({ app_id: 'abc', private_key: 'not a key', installation_id: 4242 });
    expect(bad.statusCode).toBe(422);
    expect(Object.keys(bad.json().errors).sort()).toEqual(['credentials.app_id', 'credentials.private_key']);
    const missing = await create({ app_id: 123456, private_key: privateKey });
    expect(missing.statusCode).toBe(422);
    expect(Object.keys(missing.json().errors)).toEqual(['credentials.installation_id']);

    // The ids as numbers are taken too.
    const created = await create({ app_id: 123456, private_key: privateKey, installation_id: 4242 });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.body).not.toContain('PRIVATE KEY');
    const { id, credentials_hint } = created.json().data;
    expect(privateKey.replace(/\s+/g, '').replace(/-----[A-Z ]+-----/g, '')).toMatch(
      new RegExp(`${credentials_hint.replace(/[+/]/g, '\\$&')}$`),
    );

    const check = await ctx.request({ method: 'POST', url: `/api/v1/teams/${teamId}/connections/${id}/check`, token: user.token });
    expect(check.json()).toEqual({ data: { ok: true, message: 'Connected as acme.' } });
    const [read] = github.standIn.received;
    expect(read!.method).toBe('GET');
    expect(read!.path).toBe('/app/installations/4242');
    expect(read!.headers.authorization).toMatch(/^Bearer eyJ/);
    expect(github.app.minted).toBe(0);
  });

  it('posts a check run with the new issues as annotations (50 a request, the rest by PATCH) and comments as the installation', async ({
    ctx,
    apiToken,
    github,
    linked,
  }) => {
    await uploadSpots(ctx, apiToken, [], MAIN, '2026-11-21T09:00:00Z');
    const report = await uploadSpots(ctx, apiToken, spots(120), PR, '2026-11-21T10:00:00Z');
    await drain(ctx);
    expect((await outbox(ctx)).map((message) => [message.kind, message.status])).toEqual([
      ['commit_status', 'succeeded'],
      ['commit_status', 'succeeded'],
      ['pull_request_comment', 'succeeded'],
    ]);
    // One token for every call: minted once with the app's JWT, then used as a bearer token.
    expect(github.app.minted).toBe(1);
    const mint = github.standIn.received.find((request) => request.path === '/app/installations/4242/access_tokens');
    expect(mint!.method).toBe('POST');
    const token = github.app.tokens[0]!.token;
    const calls = github.standIn.received.filter((request) => request.path.startsWith('/repos/'));
    expect(calls.every((request) => request.headers.authorization === `Bearer ${token}`)).toBe(true);
    expect(calls.every((request) => request.headers['x-github-api-version'] === '2022-11-28')).toBe(true);
    // No status: a check run per commit.
    expect(calls.some((request) => request.path.includes('/statuses/'))).toBe(false);

    const run = github.repos.checkRuns.find((candidate) => candidate.body.head_sha === PR.git_commit)!;
    expect(run.body).toMatchObject({
      name: 'Scoreboard',
      head_sha: PR.git_commit,
      status: 'completed',
      details_url: `${REPORTS}${report}`,
      output: { title: expect.any(String), summary: expect.stringContaining('Smell number') },
    });
    expect(['success', 'failure']).toContain(run.body.conclusion);
    expect(run.annotations).toHaveLength(120);
    expect(run.updates).toBe(2);
    const runCalls = calls.filter((request) => request.path.startsWith('/repos/acme/shop/check-runs'));
    expect(
      runCalls.map((request) => [
        request.method,
        (request.json as { output: { annotations?: unknown[] } }).output.annotations?.length ?? 0,
      ]),
    ).toEqual([
      ['POST', 0], // the main report's: nothing new
      ['POST', 50],
      ['PATCH', 50],
      ['PATCH', 20],
    ]);
    expect(run.annotations[0]).toMatchObject({ path: 'app/File0.php', start_line: 1, end_line: 1, annotation_level: 'notice' });
    expect(run.annotations.some((annotation) => String(annotation.message).includes('No line here'))).toBe(false);
    // The pull request's comment, by the installation.
    expect(github.repos.comments('acme/shop', 7)).toHaveLength(1);
    expect(linked.connection.id).toBeTruthy();
  });

  it('keeps the token until five minutes before it expires, then mints another', async ({ ctx, apiToken, github, linked }) => {
    expect(linked).toBeTruthy();
    await uploadSpots(ctx, apiToken, [], MAIN, '2026-11-21T09:00:00Z');
    await drain(ctx);
    ctx.clock.advance(54 * 60_000);
    await uploadSpots(ctx, apiToken, [], { git_branch: 'main', git_commit: 'b'.repeat(40) }, '2026-11-21T09:01:00Z');
    await drain(ctx);
    expect(github.app.minted).toBe(1);
    ctx.clock.advance(2 * 60_000); // 56 minutes on: less than five left
    await uploadSpots(ctx, apiToken, [], { git_branch: 'main', git_commit: 'd'.repeat(40) }, '2026-11-21T09:02:00Z');
    await drain(ctx);
    expect(github.app.minted).toBe(2);
    expect((await outbox(ctx)).every((message) => message.status === 'succeeded')).toBe(true);
  });

  it('goes on after a failed PATCH where it stopped, without a second run, and stops at 1,000 annotations', async ({
    ctx,
    apiToken,
    github,
    linked,
  }) => {
    expect(linked).toBeTruthy();
    await uploadSpots(ctx, apiToken, [], MAIN, '2026-11-21T09:00:00Z');
    await drain(ctx);
    const sha = 'e'.repeat(40);
    await uploadSpots(ctx, apiToken, spots(1_100), { git_branch: 'main', git_commit: sha }, '2026-11-21T10:00:00Z');
    // The token is cached: the run's POST and the first PATCH go through, the second PATCH meets a 502.
    github.standIn.script.push('pass', 'pass', { status: 502, body: { message: 'Server Error' } });
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    const message = async () => (await outbox(ctx)).at(-1)!;
    const failed = await message();
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, response_status: 502, error: 'Server Error' });
    const runs = () => github.repos.checkRuns.filter((run) => run.body.head_sha === sha);
    expect(runs()).toHaveLength(1);
    expect(runs()[0]!.annotations).toHaveLength(100);

    ctx.clock.set(failed.next_attempt_at!);
    const before = github.standIn.received.length;
    expect(await ctx.app.outboxWorker.runOnce()).toBe(1);
    expect(await message()).toMatchObject({ status: 'succeeded', attempts: 2, response_status: 200 });
    // Only PATCHes on the second attempt: 900 annotations left, 50 a request.
    const again = github.standIn.received.slice(before).filter((request) => request.path.includes('/check-runs'));
    expect(again.map((request) => request.method)).toEqual(Array(18).fill('PATCH'));
    expect(runs()).toHaveLength(1);
    expect(runs()[0]!.annotations).toHaveLength(1_000);
    // Most severe first: the high issue has no line, so the first are the low ones in upload order.
    expect(runs()[0]!.annotations.at(-1)).toMatchObject({ message: expect.stringContaining('Smell number 999') });
  });
});
