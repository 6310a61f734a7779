import type { StandIn, StandInRequest } from './stand-in-server.js';

/**
 * GitHub's REST API as its documentation describes it (docs.github.com/rest): a token in
 * `Authorization: Bearer T` (the docs also accept `token T`), `Accept: application/vnd.github+json`,
 * `X-GitHub-Api-Version: 2022-11-28`, and a User-Agent (requests without one are refused with 403).
 * Errors are `{message, documentation_url}`. Routes live under the stand-in's root, as under
 * https://api.github.com.
 */
export interface GitHubAccount {
  token: string;
  login: string;
}

export const GITHUB_BAD_CREDENTIALS = { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' };

/** The documented refusals every route shares; null when the request may proceed. */
export function githubRefusal(account: GitHubAccount, request: StandInRequest) {
  if (!request.headers['user-agent']) {
    return {
      status: 403,
      body: { message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header.' },
    };
  }
  const version = request.headers['x-github-api-version'];
  if (version !== undefined && version !== '2022-11-28') {
    return {
      status: 400,
      body: { message: `API version '${version}' is not supported.`, documentation_url: 'https://docs.github.com/rest' },
    };
  }
  if (request.headers.authorization !== `Bearer ${account.token}`) return { status: 401, body: GITHUB_BAD_CREDENTIALS };
  return null;
}

/** Adds GitHub's routes; the connection's base_url is the stand-in's url. */
export function addGitHub(standIn: StandIn, account: GitHubAccount): string {
  standIn.route(
    'GET',
    '/user',
    (request) => githubRefusal(account, request) ?? { status: 200, body: { login: account.login, id: 1, type: 'User', name: 'Octo Cat' } },
  );
  return standIn.url;
}

/** An issue as the stand-in keeps it: what "Get an issue" would answer, and its comments. */
export interface GitHubIssue {
  number: number;
  state: 'open' | 'closed';
  state_reason: string | null;
  comments: string[];
}

const GITHUB_NOT_FOUND = { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' };

/**
 * GitHub's issues (docs.github.com/rest/issues): "Create an issue" `POST
 * /repos/{owner}/{repo}/issues` {title, body} → 201 with id, number, html_url, state; "Create an
 * issue comment" `POST /repos/{owner}/{repo}/issues/{issue_number}/comments` {body} → 201 with id,
 * body, html_url (404 for an issue that does not exist); "Update an issue" `PATCH
 * /repos/{owner}/{repo}/issues/{issue_number}` with `state` open|closed and `state_reason`
 * completed|not_planned|reopened → 200 with the issue (422 "Validation Failed" for another value).
 * Returns the issues by `owner/repo#number`.
 */
export function addGitHubIssues(standIn: StandIn, account: GitHubAccount): Map<string, GitHubIssue> {
  const issues = new Map<string, GitHubIssue>();
  let next = 41;
  const invalid = (field: string) => ({
    status: 422,
    body: {
      message: 'Validation Failed',
      errors: [{ resource: 'Issue', code: 'invalid', field }],
      documentation_url: 'https://docs.github.com/rest',
    },
  });
  standIn.route('POST', /^\/repos\/([^/]+)\/([^/]+)\/issues$/, (request) => {
    const refusal = githubRefusal(account, request);
    if (refusal) return refusal;
    const [owner, repo] = request.params;
    const { title } = (request.json ?? {}) as { title?: unknown };
    if (typeof title !== 'string' || title === '') return invalid('title');
    next += 1;
    issues.set(`${owner}/${repo}#${next}`, { number: next, state: 'open', state_reason: null, comments: [] });
    return {
      status: 201,
      body: { id: 1000 + next, number: next, html_url: `https://github.com/${owner}/${repo}/issues/${next}`, state: 'open' },
    };
  });
  standIn.route('POST', /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/, (request) => {
    const refusal = githubRefusal(account, request);
    if (refusal) return refusal;
    const [owner, repo, number] = request.params;
    const issue = issues.get(`${owner}/${repo}#${number}`);
    if (!issue) return { status: 404, body: GITHUB_NOT_FOUND };
    const { body } = (request.json ?? {}) as { body?: unknown };
    if (typeof body !== 'string' || body === '') return invalid('body');
    issue.comments.push(body);
    const id = 5000 + issue.comments.length;
    return { status: 201, body: { id, body, html_url: `https://github.com/${owner}/${repo}/issues/${number}#issuecomment-${id}` } };
  });
  standIn.route('PATCH', /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)$/, (request) => {
    const refusal = githubRefusal(account, request);
    if (refusal) return refusal;
    const [owner, repo, number] = request.params;
    const issue = issues.get(`${owner}/${repo}#${number}`);
    if (!issue) return { status: 404, body: GITHUB_NOT_FOUND };
    const { state, state_reason: reason } = (request.json ?? {}) as { state?: unknown; state_reason?: unknown };
    if (state !== undefined && state !== 'open' && state !== 'closed') return invalid('state');
    if (reason !== undefined && reason !== null && !['completed', 'not_planned', 'reopened'].includes(String(reason)))
      return invalid('state_reason');
    if (state !== undefined) issue.state = state;
    if (reason !== undefined) issue.state_reason = reason as string | null;
    return { status: 200, body: { number: issue.number, state: issue.state, state_reason: issue.state_reason } };
  });
  return issues;
}
