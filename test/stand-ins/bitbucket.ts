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
