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
