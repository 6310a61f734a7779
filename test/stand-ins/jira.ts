import type { StandIn, StandInRequest } from './stand-in-server.js';

/**
 * Jira's REST API as Atlassian documents it. Cloud (developer.atlassian.com/cloud/jira/platform):
 * Basic auth with `email:api_token`, API v3 (`GET /rest/api/3/myself` answers accountId,
 * displayName, emailAddress). Data Center: a personal access token as `Authorization: Bearer T`,
 * API v2 (`GET /rest/api/2/myself` answers key, name, displayName). Errors are
 * `{"errorMessages": [...], "errors": {field: text}}`. Routes live under the site's root.
 */
export type JiraAccount = { email: string; api_token: string; displayName: string } | { token: string; displayName: string };

const NOT_AUTHENTICATED = { errorMessages: ['You are not authenticated. Authentication required to perform this operation.'], errors: {} };

export function jiraRefusal(account: JiraAccount, request: StandInRequest) {
  const expected =
    'api_token' in account ? `Basic ${Buffer.from(`${account.email}:${account.api_token}`).toString('base64')}` : `Bearer ${account.token}`;
  return request.headers.authorization === expected ? null : { status: 401, body: NOT_AUTHENTICATED };
}

/** Adds Jira's routes (Cloud's v3 or Data Center's v2, as the account is); returns the site URL, the connection's base_url. */
export function addJira(standIn: StandIn, account: JiraAccount): string {
  if ('api_token' in account) {
    standIn.route(
      'GET',
      '/rest/api/3/myself',
      (request) =>
        jiraRefusal(account, request) ?? {
          status: 200,
          body: { accountId: '5b10ac8d82e05b22cc7d4ef5', displayName: account.displayName, emailAddress: account.email, active: true },
        },
    );
  } else {
    standIn.route(
      'GET',
      '/rest/api/2/myself',
      (request) =>
        jiraRefusal(account, request) ?? {
          status: 200,
          body: { key: 'jdoe', name: 'jdoe', displayName: account.displayName, active: true },
        },
    );
  }
  return standIn.url;
}
