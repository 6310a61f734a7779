import { type CodeHostRepos, codeHostRecords, jsonObject } from './code-host-records.js';
import type { StandIn, StandInRequest } from './stand-in-server.js';

/**
 * Bitbucket Cloud's REST API 2.0 (developer.atlassian.com/cloud/bitbucket/rest): access tokens go
 * as `Authorization: Bearer T`. Errors are `{"type": "error", "error": {"message", "detail"?}}`;
 * a failed login is a 401 whose body is plain text. Routes live under /2.0, as on
 * https://api.bitbucket.org/2.0.
 */
export interface BitbucketAccount {
  token: string;
  display_name: string;
}

export function bitbucketRefusal(account: BitbucketAccount, request: StandInRequest) {
  if (request.headers.authorization === `Bearer ${account.token}`) return null;
  return {
    status: 401,
    body: { type: 'error', error: { message: 'Access token expired. Use your refresh token to obtain a new access token.' } },
  };
}

/** Adds Bitbucket's routes; returns the connection's base_url (`<stand-in>/2.0`). */
export function addBitbucket(standIn: StandIn, account: BitbucketAccount): string {
  standIn.route(
    'GET',
    '/2.0/user',
    (request) =>
      bitbucketRefusal(account, request) ?? {
        status: 200,
        body: { type: 'user', display_name: account.display_name, uuid: '{0c6ab2e1-0000-4000-8000-000000000001}', account_id: '557058:1' },
      },
  );
  return `${standIn.url}/2.0`;
}

const STATUS_STATES = ['SUCCESSFUL', 'FAILED', 'INPROGRESS', 'STOPPED'];

const bitbucketError = (status: number, message: string, fields?: Record<string, string[]>) => ({
  status,
  body: { type: 'error', error: { message, ...(fields === undefined ? {} : { fields }) } },
});

/**
 * Bitbucket Cloud's routes for E10, as developer.atlassian.com/cloud/bitbucket/rest describes them,
 * on the repositories the test adds (`addPullRequest('workspace/slug', 7)`); another repository or
 * pull request is 404 in Bitbucket's error shape.
 * - "Create a build status for a commit" (api-group-commit-statuses) `POST
 *   /repositories/{workspace}/{repo_slug}/commit/{commit}/statuses/build` {key, state:
 *   SUCCESSFUL|FAILED|INPROGRESS|STOPPED, url, name?, description?} → 201; a missing key, state or
 *   url, or another state, is 400 with the field named under `error.fields`. The host shows the
 *   latest status of each key ("the existing status object will be overwritten"); `statuses` keeps
 *   every one received, as on the other hosts.
 * - "Create a comment on a pull request" (api-group-pullrequests) `POST
 *   /repositories/{workspace}/{repo_slug}/pullrequests/{pull_request_id}/comments` {content: {raw}} →
 *   201 {id, type: pullrequest_comment, content: {raw, markup: markdown, html}, ...}; "Update a
 *   comment on a pull request" `PUT .../comments/{comment_id}` → 200, 404 once it was deleted.
 */
export function addBitbucketRepos(standIn: StandIn, account: BitbucketAccount): CodeHostRepos {
  const { repos, store } = codeHostRecords(480_000_001);
  const repoOf = (request: StandInRequest) => `${request.params[0]}/${request.params[1]}`;
  const repoNotFound = (repo: string) => bitbucketError(404, `Repository ${repo} not found`);
  const rawOf = (json: unknown) => jsonObject(jsonObject(json).content).raw;
  const contentRequired = bitbucketError(400, 'Bad request', { content: ['This field is required.'] });
  const commentAnswer = (repo: string, comment: { id: number; body: string; number: number }) => ({
    id: comment.id,
    type: 'pullrequest_comment',
    content: { raw: comment.body, markup: 'markdown', html: `<p>${escapeHtml(comment.body)}</p>`, type: 'rendered' },
    deleted: false,
    user: { type: 'user', display_name: account.display_name },
    pullrequest: { type: 'pullrequest', id: comment.number },
    links: { html: { href: `https://bitbucket.org/${repo}/pull-requests/${comment.number}/_/diff#comment-${comment.id}` } },
  });

  standIn.route('POST', /^\/2\.0\/repositories\/([^/]+)\/([^/]+)\/commit\/([^/]+)\/statuses\/build\/?$/, (request) => {
    const refusal = bitbucketRefusal(account, request);
    if (refusal) return refusal;
    const repo = repoOf(request);
    if (!store.hasRepo(repo)) return repoNotFound(repo);
    const body = jsonObject(request.json);
    for (const field of ['key', 'state', 'url']) {
      if (typeof body[field] !== 'string' || body[field] === '')
        return bitbucketError(400, 'Bad request', { [field]: ['This field is required.'] });
    }
    if (!STATUS_STATES.includes(String(body.state)))
      return bitbucketError(400, 'Bad request', { state: [`"${String(body.state)}" is not a valid choice.`] });
    const sha = request.params[2]!;
    repos.statuses.push({ repo, sha, body });
    return {
      status: 201,
      body: {
        type: 'build',
        key: body.key,
        state: body.state,
        name: body.name ?? null,
        url: body.url,
        description: body.description ?? '',
        links: {
          self: { href: `${standIn.url}/2.0/repositories/${repo}/commit/${sha}/statuses/build/${String(body.key)}` },
          commit: { href: `${standIn.url}/2.0/repositories/${repo}/commit/${sha}` },
        },
      },
    };
  });

  standIn.route('POST', /^\/2\.0\/repositories\/([^/]+)\/([^/]+)\/pullrequests\/(\d+)\/comments\/?$/, (request) => {
    const refusal = bitbucketRefusal(account, request);
    if (refusal) return refusal;
    const repo = repoOf(request);
    if (!store.hasRepo(repo)) return repoNotFound(repo);
    const number = Number(request.params[2]);
    if (!store.hasPullRequest(repo, number)) return bitbucketError(404, `Pull request ${number} not found`);
    const raw = rawOf(request.json);
    if (typeof raw !== 'string' || raw === '') return contentRequired;
    return { status: 201, body: commentAnswer(repo, store.createComment(repo, number, raw)) };
  });

  standIn.route('PUT', /^\/2\.0\/repositories\/([^/]+)\/([^/]+)\/pullrequests\/(\d+)\/comments\/(\d+)\/?$/, (request) => {
    const refusal = bitbucketRefusal(account, request);
    if (refusal) return refusal;
    const repo = repoOf(request);
    if (!store.hasRepo(repo)) return repoNotFound(repo);
    const comment = store.findComment(repo, Number(request.params[3]), Number(request.params[2]));
    if (!comment) return bitbucketError(404, 'Comment not found');
    const raw = rawOf(request.json);
    if (typeof raw !== 'string' || raw === '') return contentRequired;
    return { status: 200, body: commentAnswer(repo, store.editComment(comment, raw)) };
  });

  return repos;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);
}
