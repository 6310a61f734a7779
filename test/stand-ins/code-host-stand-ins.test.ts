import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addBitbucketRepos } from './bitbucket.js';
import { addGiteaRepos } from './gitea.js';
import { addGitHubApp, addGitHubIssues, addGitHubRepos } from './github.js';
import { addGitLabRepos } from './gitlab.js';
import { type StandIn, startStandIn } from './stand-in-server.js';

/**
 * E10's code-host stand-ins against themselves, by raw fetch: they refuse what each host's
 * documentation says it refuses and accept what it accepts, so that a test of the service against
 * them proves something about the real hosts.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function standIn(): Promise<StandIn> {
  const started = await startStandIn();
  cleanups.push(() => started.close());
  return started;
}

async function call(url: string, method: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
}

const SHA = 'a'.repeat(40);

describe('GitHub', () => {
  const PAT = 'ghp_personalToken';
  const github = (token: string) => ({
    authorization: `Bearer ${token}`,
    'user-agent': 'stand-in-test',
    accept: 'application/vnd.github+json',
  });
  let privateKeyPem: string;
  let otherPrivateKeyPem: string;
  let publicKey: KeyObject;
  beforeAll(() => {
    // As GitHub hands a key out: a PKCS#1 PEM, "BEGIN RSA PRIVATE KEY".
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    publicKey = pair.publicKey;
    privateKeyPem = pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    otherPrivateKeyPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  });
  const jwt = (claims: { iss?: string; iat?: number; exp?: number }, pem = privateKeyPem) =>
    new SignJWT({ ...claims }).setProtectedHeader({ alg: 'RS256', typ: 'JWT' }).sign(createPrivateKey(pem));

  /** A clock the test moves; the app stand-in reads it for JWT times and token expiry. */
  function withApp(server: StandIn) {
    let clock = Date.parse('2026-03-01T12:00:00Z');
    const app = addGitHubApp(server, { appId: 31337, installationId: 77, publicKey, login: 'octo-org', now: () => clock });
    const seconds = () => Math.floor(clock / 1000);
    const goodJwt = () => jwt({ iss: '31337', iat: seconds() - 60, exp: seconds() + 540 });
    const mint = async () =>
      (await call(`${server.url}/app/installations/77/access_tokens`, 'POST', github(await goodJwt()))).json!.token as string;
    return { app, seconds, goodJwt, mint, advance: (ms: number) => (clock += ms) };
  }

  it('takes a commit status with a documented state, and refuses what the docs refuse', async () => {
    const server = await standIn();
    const repos = addGitHubRepos(server, { token: PAT, login: 'octocat' });
    repos.addRepo('o/r');
    const url = `${server.url}/repos/o/r/statuses/${SHA}`;
    const status = { state: 'success', context: 'scoreboard', description: 'Score 87', target_url: 'https://scoreboard.example/r/1' };

    expect(await call(url, 'POST', github(PAT), status)).toMatchObject({ status: 201, json: { state: 'success', context: 'scoreboard' } });
    expect(repos.statuses).toEqual([{ repo: 'o/r', sha: SHA, body: status }]);

    expect(await call(url, 'POST', github(PAT), { context: 'scoreboard' })).toMatchObject({
      status: 422,
      json: { message: 'Validation Failed', errors: [{ field: 'state', message: 'state is not included in the list' }] },
    });
    expect((await call(url, 'POST', github(PAT), { state: 'passed' })).status).toBe(422);
    expect((await call(url, 'POST', github(PAT), { state: 'failure', description: 'x'.repeat(141) })).json).toMatchObject({
      errors: [{ field: 'description' }],
    });
    expect(await call(url, 'POST', github('ghp_wrong'), status)).toMatchObject({ status: 401, json: { message: 'Bad credentials' } });
    expect((await call(`${server.url}/repos/o/other/statuses/${SHA}`, 'POST', github(PAT), status)).status).toBe(404);
    expect(repos.statuses).toHaveLength(1);
  });

  it("creates and edits a pull request's comment, 404 once deleted, beside the issues stand-in in either order", async () => {
    for (const issuesFirst of [true, false]) {
      const server = await standIn();
      const account = { token: PAT, login: 'octocat' };
      const issues = issuesFirst ? addGitHubIssues(server, account) : undefined;
      const repos = addGitHubRepos(server, account);
      const later = issuesFirst ? undefined : addGitHubIssues(server, account);
      repos.addPullRequest('o/r', 7);

      const created = await call(`${server.url}/repos/o/r/issues/7/comments`, 'POST', github(PAT), { body: 'first' });
      expect(created).toMatchObject({ status: 201, json: { body: 'first', user: { login: 'octocat' } } });
      const id = created.json!.id as number;
      expect(created.json!.html_url).toContain('/o/r/pull/7#issuecomment-');
      const edited = await call(`${server.url}/repos/o/r/issues/comments/${id}`, 'PATCH', github(PAT), { body: 'second' });
      expect(edited).toMatchObject({ status: 200, json: { id, body: 'second' } });
      expect(repos.comments('o/r', 7)).toEqual([{ id, body: 'second', edits: 1 }]);

      repos.deleteComment(id);
      expect(repos.comments('o/r', 7)).toEqual([]);
      expect(await call(`${server.url}/repos/o/r/issues/comments/${id}`, 'PATCH', github(PAT), { body: 'third' })).toMatchObject({
        status: 404,
        json: { message: 'Not Found' },
      });
      expect((await call(`${server.url}/repos/o/r/issues/8/comments`, 'POST', github(PAT), { body: 'x' })).status).toBe(404);
      expect((await call(`${server.url}/repos/o/r/issues/7/comments`, 'POST', github(PAT), {})).status).toBe(422);
      expect((await call(`${server.url}/repos/o/r/issues/7/comments`, 'POST', github('ghp_wrong'), { body: 'x' })).status).toBe(401);

      // The issues stand-in keeps its own issues' comments on the same route.
      const issue = await call(`${server.url}/repos/o/r/issues`, 'POST', github(PAT), { title: 'T' });
      const number = issue.json!.number as number;
      expect((await call(`${server.url}/repos/o/r/issues/${number}/comments`, 'POST', github(PAT), { body: 'on the issue' })).status).toBe(
        201,
      );
      expect((issues ?? later)!.get(`o/r#${number}`)!.comments).toEqual(['on the issue']);
      expect(repos.comments('o/r', number)).toEqual([]);
    }
  });

  it('mints installation tokens for a valid JWT, counting them, with expiry from the clock', async () => {
    const server = await standIn();
    const { app, goodJwt, seconds } = withApp(server);
    const answer = await call(`${server.url}/app/installations/77/access_tokens`, 'POST', github(await goodJwt()));
    expect(answer).toMatchObject({ status: 201, json: { repository_selection: 'all', permissions: { checks: 'write' } } });
    expect(answer.json!.token).toMatch(/^ghs_/);
    expect(answer.json!.expires_at).toBe(new Date((seconds() + 3600) * 1000).toISOString().replace('.000Z', 'Z'));
    await call(`${server.url}/app/installations/77/access_tokens`, 'POST', github(await goodJwt()));
    expect(app.minted).toBe(2);

    expect(await call(`${server.url}/app/installations/77`, 'GET', github(await goodJwt()))).toMatchObject({
      status: 200,
      json: { id: 77, account: { login: 'octo-org' } },
    });
    expect((await call(`${server.url}/app/installations/78/access_tokens`, 'POST', github(await goodJwt()))).status).toBe(404);
    expect(
      (
        await call(`${server.url}/app/installations/77/access_tokens`, 'POST', github(await goodJwt()), {
          permissions: { administration: 'write' },
        })
      ).status,
    ).toBe(422);
    expect(app.minted).toBe(2);
  });

  it('refuses a JWT that is badly signed, of another app, expired, too long-lived or issued later, and a personal token', async () => {
    const server = await standIn();
    const { app, seconds } = withApp(server);
    const url = `${server.url}/app/installations/77/access_tokens`;
    const refused = async (token: string) => (await call(url, 'POST', github(token))).json!.message;
    const now = seconds();
    expect(await refused(await jwt({ iss: '31337', iat: now - 60, exp: now + 540 }, otherPrivateKeyPem))).toBe(
      'A JSON web token could not be decoded',
    );
    expect(await refused(await jwt({ iss: '1', iat: now - 60, exp: now + 540 }))).toBe('A JSON web token could not be decoded');
    expect(await refused(await jwt({ iss: '31337', iat: now - 700, exp: now - 100 }))).toMatch(
      /^'Expiration time' claim \('exp'\) must be/,
    );
    expect(await refused(await jwt({ iss: '31337', iat: now - 60, exp: now + 660 }))).toBe(
      "'Expiration time' claim ('exp') is too far in the future",
    );
    expect(await refused(await jwt({ iss: '31337', iat: now + 120, exp: now + 540 }))).toMatch(/^'Issued at' claim/);
    const hs256 = await new SignJWT({ iss: '31337', iat: now - 60, exp: now + 540 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
    expect(await refused(hs256)).toBe('A JSON web token could not be decoded');
    expect(await call(url, 'POST', github(PAT))).toMatchObject({ status: 401 });
    expect((await call(`${server.url}/app/installations/77`, 'GET', github('not.a.jwt'))).status).toBe(401);
    expect(app.minted).toBe(0);
  });

  it('takes check runs only from an installation, appends annotations on update, and refuses more than 50 at once', async () => {
    const server = await standIn();
    const repos = addGitHubRepos(server, { token: PAT, login: 'octocat' });
    repos.addRepo('o/r');
    const { mint, advance } = withApp(server);
    const token = await mint();
    const url = `${server.url}/repos/o/r/check-runs`;
    const annotation = (line: number) => ({
      path: 'src/a.ts',
      start_line: line,
      end_line: line,
      annotation_level: 'warning',
      message: 'm',
    });
    const annotations = (from: number, count: number) => Array.from({ length: count }, (_, index) => annotation(from + index));
    const run = {
      name: 'Scoreboard',
      head_sha: SHA,
      conclusion: 'failure',
      details_url: 'https://scoreboard.example/r/1',
      output: { title: 'Gate failed', summary: '## Scoreboard', annotations: annotations(1, 50) },
    };

    expect(await call(url, 'POST', github(PAT), run)).toMatchObject({
      status: 403,
      json: { message: 'You must authenticate via a GitHub App.' },
    });
    const created = await call(url, 'POST', github(token), run);
    expect(created).toMatchObject({ status: 201, json: { name: 'Scoreboard', status: 'completed', conclusion: 'failure' } });
    const id = created.json!.id as number;
    const more = { output: { summary: '## Scoreboard', annotations: annotations(51, 30) } };
    expect(await call(`${url}/${id}`, 'PATCH', github(token), more)).toMatchObject({
      status: 200,
      json: { output: { annotations_count: 80 } },
    });
    expect(repos.checkRuns).toMatchObject([{ id, repo: 'o/r', updates: 1, body: { output: { title: 'Gate failed' } } }]);
    expect(repos.checkRuns[0]!.annotations.map((each) => each.start_line)).toEqual(Array.from({ length: 80 }, (_, index) => index + 1));

    const refused = async (body: unknown, target = url, method = 'POST') => {
      const answer = await call(target, method, github(token), body);
      expect(answer.status).toBe(422);
      return answer.json!.message as string;
    };
    expect(await refused({ ...run, output: { ...run.output, annotations: annotations(1, 51) } })).toBe(
      'Invalid request.\n\nNo more than 50 items are allowed; 51 were supplied.',
    );
    expect(await refused({ output: { summary: 's', annotations: annotations(1, 51) } }, `${url}/${id}`, 'PATCH')).toMatch(
      /No more than 50 items/,
    );
    expect(await refused({ head_sha: SHA })).toBe(`Invalid request.\n\n"name" wasn't supplied.`);
    expect(await refused({ name: 'Scoreboard' })).toMatch(/"head_sha" wasn't supplied/);
    expect(await refused({ ...run, conclusion: 'passed' })).toMatch(
      /^Invalid request.\n\nFor 'properties\/conclusion', "passed" is not one of/,
    );
    expect(await refused({ name: 'Scoreboard', head_sha: SHA, status: 'completed' })).toBe('Validation Failed');
    expect(await refused({ ...run, output: { title: 'T' } })).toMatch(/"summary" wasn't supplied/);
    expect(await refused({ ...run, output: { ...run.output, summary: 'x'.repeat(65_536) } })).toMatch(/Only 65535 characters are allowed/);
    expect(await refused({ ...run, output: { ...run.output, annotations: [{ ...annotation(1), annotation_level: 'error' }] } })).toMatch(
      /'properties\/annotation_level', "error" is not one of/,
    );
    expect((await call(`${url}/999`, 'PATCH', github(token), more)).status).toBe(404);
    expect(repos.checkRuns[0]!.annotations).toHaveLength(80);

    // Installation tokens work on the other repository routes, until their hour is over.
    const status = { state: 'success', context: 'scoreboard' };
    expect((await call(`${server.url}/repos/o/r/statuses/${SHA}`, 'POST', github(token), status)).status).toBe(201);
    advance(60 * 60 * 1000);
    expect((await call(`${server.url}/repos/o/r/statuses/${SHA}`, 'POST', github(token), status)).status).toBe(401);
    expect((await call(url, 'POST', github(token), run)).status).toBe(401);
  });
});

describe('GitLab', () => {
  const TOKEN = 'glpat-token';
  const gitlab = (token = TOKEN) => ({ 'private-token': token });

  it('takes a commit status by numeric id or encoded path, and refuses a missing or unknown state', async () => {
    const server = await standIn();
    const repos = addGitLabRepos(server, { token: TOKEN, username: 'gitlabber' });
    repos.addRepo('group/sub/project');
    const id = repos.projectId('group/sub/project');
    const status = { state: 'success', name: 'scoreboard', description: 'Score 87', target_url: 'https://scoreboard.example/r/1' };
    for (const project of [String(id), 'group%2Fsub%2Fproject']) {
      expect(await call(`${server.url}/api/v4/projects/${project}/statuses/${SHA}`, 'POST', gitlab(), status)).toMatchObject({
        status: 201,
        json: { status: 'success', name: 'scoreboard', sha: SHA },
      });
    }
    expect(repos.statuses).toEqual([
      { repo: 'group/sub/project', sha: SHA, body: status },
      { repo: 'group/sub/project', sha: SHA, body: status },
    ]);
    const url = `${server.url}/api/v4/projects/${id}/statuses/${SHA}`;
    expect(await call(url, 'POST', gitlab(), { name: 'scoreboard' })).toEqual({ status: 400, json: { error: 'state is missing' } });
    expect(await call(url, 'POST', gitlab(), { state: 'failure' })).toEqual({
      status: 400,
      json: { error: 'state does not have a valid value' },
    });
    expect(await call(url, 'POST', gitlab('wrong'), status)).toEqual({ status: 401, json: { message: '401 Unauthorized' } });
    expect((await call(`${server.url}/api/v4/projects/group%2Fother/statuses/${SHA}`, 'POST', gitlab(), status)).status).toBe(404);
    expect(repos.statuses).toHaveLength(2);
  });

  it("creates and edits a merge request's note, 404 once deleted", async () => {
    const server = await standIn();
    const repos = addGitLabRepos(server, { token: TOKEN, username: 'gitlabber' });
    repos.addPullRequest('group/project', 7);
    const notes = `${server.url}/api/v4/projects/group%2Fproject/merge_requests/7/notes`;
    const created = await call(notes, 'POST', gitlab(), { body: 'first' });
    expect(created).toMatchObject({ status: 201, json: { body: 'first', noteable_type: 'MergeRequest', noteable_iid: 7 } });
    const id = created.json!.id as number;
    expect(await call(`${notes}/${id}`, 'PUT', gitlab(), { body: 'second' })).toMatchObject({ status: 200, json: { id, body: 'second' } });
    expect(repos.comments('group/project', 7)).toEqual([{ id, body: 'second', edits: 1 }]);
    repos.deleteComment(id);
    expect(await call(`${notes}/${id}`, 'PUT', gitlab(), { body: 'third' })).toEqual({ status: 404, json: { message: '404 Not found' } });
    expect(await call(notes, 'POST', gitlab(), {})).toEqual({ status: 400, json: { error: 'body is missing' } });
    expect(
      (await call(`${server.url}/api/v4/projects/group%2Fproject/merge_requests/8/notes`, 'POST', gitlab(), { body: 'x' })).status,
    ).toBe(404);
  });
});

describe('Gitea', () => {
  const TOKEN = 'gitea-token';
  const gitea = (token = TOKEN) => ({ authorization: `token ${token}` });

  it('takes a commit status with a documented state and refuses another', async () => {
    const server = await standIn();
    const repos = addGiteaRepos(server, { token: TOKEN, login: 'teatime' });
    repos.addRepo('o/r');
    const url = `${server.url}/api/v1/repos/o/r/statuses/${SHA}`;
    const status = { state: 'failure', context: 'scoreboard', description: 'gate failed', target_url: 'https://scoreboard.example/r/1' };
    expect(await call(url, 'POST', gitea(), status)).toMatchObject({ status: 201, json: { status: 'failure', context: 'scoreboard' } });
    expect(repos.statuses).toEqual([{ repo: 'o/r', sha: SHA, body: status }]);
    expect((await call(url, 'POST', gitea(), { state: 'failed' })).status).toBe(400);
    expect((await call(url, 'POST', gitea(), {})).status).toBe(400);
    expect((await call(url, 'POST', { authorization: `Bearer ${TOKEN}` }, status)).status).toBe(401);
    expect((await call(`${server.url}/api/v1/repos/o/other/statuses/${SHA}`, 'POST', gitea(), status)).status).toBe(404);
  });

  it("creates and edits a pull request's comment, 404 once deleted", async () => {
    const server = await standIn();
    const repos = addGiteaRepos(server, { token: TOKEN, login: 'teatime' });
    repos.addPullRequest('o/r', 7);
    const created = await call(`${server.url}/api/v1/repos/o/r/issues/7/comments`, 'POST', gitea(), { body: 'first' });
    expect(created).toMatchObject({ status: 201, json: { body: 'first', user: { login: 'teatime' } } });
    const id = created.json!.id as number;
    const edit = `${server.url}/api/v1/repos/o/r/issues/comments/${id}`;
    expect(await call(edit, 'PATCH', gitea(), { body: 'second' })).toMatchObject({ status: 200, json: { id, body: 'second' } });
    expect(repos.comments('o/r', 7)).toEqual([{ id, body: 'second', edits: 1 }]);
    expect((await call(edit, 'PATCH', gitea(), {})).status).toBe(422);
    repos.deleteComment(id);
    expect((await call(edit, 'PATCH', gitea(), { body: 'third' })).status).toBe(404);
    expect((await call(`${server.url}/api/v1/repos/o/r/issues/8/comments`, 'POST', gitea(), { body: 'x' })).status).toBe(404);
  });
});

describe('Bitbucket Cloud', () => {
  const TOKEN = 'bitbucket-token';
  const bitbucket = (token = TOKEN) => ({ authorization: `Bearer ${token}` });

  it('takes a build status with key, state and url, and refuses one without', async () => {
    const server = await standIn();
    const repos = addBitbucketRepos(server, { token: TOKEN, display_name: 'Bucket Person' });
    repos.addRepo('ws/slug');
    const url = `${server.url}/2.0/repositories/ws/slug/commit/${SHA}/statuses/build`;
    const status = { key: 'scoreboard', state: 'INPROGRESS', name: 'Scoreboard', url: 'https://scoreboard.example/r/1', description: 'd' };
    expect(await call(url, 'POST', bitbucket(), status)).toMatchObject({
      status: 201,
      json: { type: 'build', key: 'scoreboard', state: 'INPROGRESS' },
    });
    expect((await call(url, 'POST', bitbucket(), { ...status, state: 'SUCCESSFUL' })).status).toBe(201);
    expect(repos.statuses).toEqual([
      { repo: 'ws/slug', sha: SHA, body: status },
      { repo: 'ws/slug', sha: SHA, body: { ...status, state: 'SUCCESSFUL' } },
    ]);

    const { url: _, ...withoutUrl } = status;
    expect(await call(url, 'POST', bitbucket(), withoutUrl)).toMatchObject({
      status: 400,
      json: { type: 'error', error: { fields: { url: [expect.any(String)] } } },
    });
    expect(await call(url, 'POST', bitbucket(), { ...status, state: 'SUCCESS' })).toMatchObject({
      status: 400,
      json: { error: { fields: { state: [expect.any(String)] } } },
    });
    expect((await call(url, 'POST', bitbucket('wrong'), status)).status).toBe(401);
    expect(await call(`${server.url}/2.0/repositories/ws/other/commit/${SHA}/statuses/build`, 'POST', bitbucket(), status)).toMatchObject({
      status: 404,
      json: { type: 'error' },
    });
  });

  it("creates and edits a pull request's comment as content.raw, 404 once deleted", async () => {
    const server = await standIn();
    const repos = addBitbucketRepos(server, { token: TOKEN, display_name: 'Bucket Person' });
    repos.addPullRequest('ws/slug', 7);
    const comments = `${server.url}/2.0/repositories/ws/slug/pullrequests/7/comments`;
    const created = await call(comments, 'POST', bitbucket(), { content: { raw: '**first**' } });
    expect(created).toMatchObject({
      status: 201,
      json: { type: 'pullrequest_comment', content: { raw: '**first**', markup: 'markdown' } },
    });
    const id = created.json!.id as number;
    expect(await call(`${comments}/${id}`, 'PUT', bitbucket(), { content: { raw: 'second' } })).toMatchObject({
      status: 200,
      json: { id, content: { raw: 'second' } },
    });
    expect(repos.comments('ws/slug', 7)).toEqual([{ id, body: 'second', edits: 1 }]);
    expect((await call(comments, 'POST', bitbucket(), { body: 'not how Bitbucket takes it' })).status).toBe(400);
    repos.deleteComment(id);
    expect(await call(`${comments}/${id}`, 'PUT', bitbucket(), { content: { raw: 'third' } })).toMatchObject({
      status: 404,
      json: { type: 'error', error: { message: expect.any(String) } },
    });
    expect(
      (await call(`${server.url}/2.0/repositories/ws/slug/pullrequests/8/comments`, 'POST', bitbucket(), { content: { raw: 'x' } })).status,
    ).toBe(404);
  });
});
