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
