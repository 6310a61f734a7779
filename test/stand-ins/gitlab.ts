import type { StandIn, StandInRequest } from './stand-in-server.js';

/**
 * GitLab's REST API v4 as docs.gitlab.com/api/rest describes it: a personal, project or group access
 * token in the `PRIVATE-TOKEN` header (or `Authorization: Bearer`); a bad one is 401 with
 * `{"message": "401 Unauthorized"}`. Routes live under /api/v4, as on https://gitlab.com/api/v4.
 */
export interface GitLabAccount {
  token: string;
  username: string;
}

export function gitlabRefusal(account: GitLabAccount, request: StandInRequest) {
  const ok = request.headers['private-token'] === account.token || request.headers.authorization === `Bearer ${account.token}`;
  return ok ? null : { status: 401, body: { message: '401 Unauthorized' } };
}

/** Adds GitLab's routes; returns the connection's base_url (`<stand-in>/api/v4`). */
export function addGitLab(standIn: StandIn, account: GitLabAccount): string {
  standIn.route(
    'GET',
    '/api/v4/user',
    (request) =>
      gitlabRefusal(account, request) ?? { status: 200, body: { id: 7, username: account.username, name: 'Git Lab', state: 'active' } },
  );
  return `${standIn.url}/api/v4`;
}
