import { type CodeHostRepos, codeHostRecords, jsonObject } from './code-host-records.js';
import type { StandIn, StandInRequest } from './stand-in-server.js';

/**
 * Gitea's (and Forgejo's) API v1 as docs.gitea.com/development/api-usage describes it: an access
 * token in `Authorization: token T` ("for historical reasons, Gitea needs the word token"); OAuth
 * tokens go as `bearer`. Errors are `{message, url}`; a bad token is 401. Routes live under /api/v1.
 */
export interface GiteaAccount {
  token: string;
  login: string;
}

export function giteaRefusal(account: GiteaAccount, request: StandInRequest) {
  if (request.headers.authorization === `token ${account.token}`) return null;
  return { status: 401, body: { message: 'user does not exist [uid: 0, name: ]', url: 'https://gitea.example.com/api/swagger' } };
}

/** Adds Gitea's routes; returns the connection's base_url (`<stand-in>/api/v1`). */
export function addGitea(standIn: StandIn, account: GiteaAccount): string {
  standIn.route(
    'GET',
    '/api/v1/user',
    (request) => giteaRefusal(account, request) ?? { status: 200, body: { id: 3, login: account.login, full_name: 'Tea Drinker' } },
  );
  return `${standIn.url}/api/v1`;
}

const SWAGGER = 'https://gitea.example.com/api/swagger';
const STATUS_STATES = ['pending', 'success', 'error', 'failure', 'warning'];

/**
 * Gitea's routes for E10, as its API reference (the instance's /api/swagger) describes them, on the
 * repositories the test adds (`addPullRequest('o/r', 7)`: a pull request is an issue with an
 * index). Another repository or index is 404 `{"message": "The target couldn't be found.", ...}`.
 * - "Create a commit status" (repoCreateStatus) `POST /repos/{owner}/{repo}/statuses/{sha}` {state:
 *   pending|success|error|failure|warning, target_url?, description?, context?} → 201 CommitStatus
 *   (its state as `status`); another state is the documented 400 `{message, url}`.
 * - "Add a comment to an issue" (issueCreateComment) `POST /repos/{owner}/{repo}/issues/{index}/comments`
 *   {body} → 201 Comment {id, body, html_url, ...}; "Edit a comment" (issueEditComment) `PATCH
 *   /repos/{owner}/{repo}/issues/comments/{id}` {body} → 200 Comment, 404 once it was deleted. The
 *   body is required: without it 422 `{"message": "[Body]: Required", url}` (a validation error).
 */
export function addGiteaRepos(standIn: StandIn, account: GiteaAccount): CodeHostRepos {
  const { repos, store } = codeHostRecords(700_001);
  const notFound = { status: 404, body: { errors: [], message: "The target couldn't be found.", url: SWAGGER } };
  const bodyRequired = { status: 422, body: { message: '[Body]: Required', url: SWAGGER } };
  const repoOf = (request: StandInRequest) => `${request.params[0]}/${request.params[1]}`;
  const commentAnswer = (repo: string, comment: { id: number; body: string; number: number }) => ({
    id: comment.id,
    body: comment.body,
    html_url: `${standIn.url}/${repo}/pulls/${comment.number}#issuecomment-${comment.id}`,
    pull_request_url: `${standIn.url}/${repo}/pulls/${comment.number}`,
    issue_url: '',
    user: { login: account.login },
  });

  standIn.route('POST', /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/statuses\/([^/]+)$/, (request) => {
    const refusal = giteaRefusal(account, request);
    if (refusal) return refusal;
    const repo = repoOf(request);
    if (!store.hasRepo(repo)) return notFound;
    const body = jsonObject(request.json);
    if (!STATUS_STATES.includes(String(body.state)))
      return { status: 400, body: { message: `invalid commit status state: ${String(body.state ?? '')}`, url: SWAGGER } };
    const sha = request.params[2]!;
    repos.statuses.push({ repo, sha, body });
    return {
      status: 201,
      body: {
        id: repos.statuses.length,
        status: body.state,
        context: body.context ?? '',
        description: body.description ?? '',
        target_url: body.target_url ?? '',
        url: `${standIn.url}/api/v1/repos/${repo}/statuses/${sha}`,
        creator: { login: account.login },
      },
    };
  });

  standIn.route('POST', /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/, (request) => {
    const refusal = giteaRefusal(account, request);
    if (refusal) return refusal;
    const repo = repoOf(request);
    const index = Number(request.params[2]);
    if (!store.hasPullRequest(repo, index)) return notFound;
    const { body } = jsonObject(request.json);
    if (typeof body !== 'string' || body === '') return bodyRequired;
    return { status: 201, body: commentAnswer(repo, store.createComment(repo, index, body)) };
  });

  standIn.route('PATCH', /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/, (request) => {
    const refusal = giteaRefusal(account, request);
    if (refusal) return refusal;
    const repo = repoOf(request);
    const comment = store.findComment(repo, Number(request.params[2]));
    if (!comment) return notFound;
    const { body } = jsonObject(request.json);
    if (typeof body !== 'string' || body === '') return bodyRequired;
    return { status: 200, body: commentAnswer(repo, store.editComment(comment, body)) };
  });

  return repos;
}
