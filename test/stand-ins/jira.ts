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

/** An issue as the stand-in keeps it: its comments' bodies as sent (ADF documents on v3, wiki text on v2). */
export interface JiraIssue {
  key: string;
  comments: unknown[];
}

/**
 * Jira's issues: "Create issue" `POST /rest/api/{3|2}/issue` {fields: {project: {key}, issuetype,
 * summary, description}} → 201 {id, key, self}; "Add comment" `POST
 * /rest/api/{3|2}/issue/{issueIdOrKey}/comment` {body} → 201 {id, body, ...}: on Cloud's v3 the
 * body is an Atlassian Document Format document, on v2 a string; 404 `{"errorMessages": ["Issue
 * does not exist or you do not have permission to see it."]}` for an unknown key, 400 for a body of
 * the wrong kind. Returns the issues by key.
 */
export function addJiraIssues(standIn: StandIn, account: JiraAccount, projectKey: string): Map<string, JiraIssue> {
  const issues = new Map<string, JiraIssue>();
  const version = 'api_token' in account ? '3' : '2';
  let next = 11;
  standIn.route('POST', `/rest/api/${version}/issue`, (request) => {
    const refusal = jiraRefusal(account, request);
    if (refusal) return refusal;
    const fields = (request.json as { fields?: { project?: { key?: unknown } } } | undefined)?.fields;
    if (fields?.project?.key !== projectKey)
      return { status: 400, body: { errorMessages: [], errors: { project: 'valid project is required' } } };
    next += 1;
    const key = `${projectKey}-${next}`;
    issues.set(key, { key, comments: [] });
    return { status: 201, body: { id: String(10000 + next), key, self: `${standIn.url}/rest/api/${version}/issue/${10000 + next}` } };
  });
  standIn.route('POST', new RegExp(`^/rest/api/${version}/issue/([^/]+)/comment$`), (request) => {
    const refusal = jiraRefusal(account, request);
    if (refusal) return refusal;
    const issue = issues.get(request.params[0]!);
    if (!issue)
      return { status: 404, body: { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} } };
    const { body } = (request.json ?? {}) as { body?: unknown };
    const wellFormed =
      version === '3'
        ? typeof body === 'object' &&
          body !== null &&
          (body as { type?: unknown }).type === 'doc' &&
          (body as { version?: unknown }).version === 1
        : typeof body === 'string' && body !== '';
    if (!wellFormed) return { status: 400, body: { errorMessages: [], errors: { comment: 'Comment body can not be empty!' } } };
    issue.comments.push(body);
    return { status: 201, body: { id: String(20000 + issue.comments.length), body } };
  });
  return issues;
}
