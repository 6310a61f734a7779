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

/** An issue as the stand-in keeps it. */
export interface GitLabIssue {
  iid: number;
  state: 'opened' | 'closed';
  notes: string[];
}

/**
 * GitLab's issues (docs.gitlab.com/api/issues, /api/notes): "New issue" `POST /projects/:id/issues`
 * {title, description} → 201 with id, iid, project_id, web_url, state `opened`; "Create new issue
 * note" `POST /projects/:id/issues/:issue_iid/notes` {body} → 201 (400 `{"error": "body is
 * missing"}` without one); "Edit an issue" `PUT /projects/:id/issues/:issue_iid` with
 * `state_event` close|reopen → 200 with the issue. `:id` is the numeric id or the URL-encoded path;
 * an unknown issue is 404 `{"message": "404 Not found"}`. Returns the issues by `<id>#<iid>` (the
 * project's numeric id, 3).
 */
export function addGitLabIssues(standIn: StandIn, account: GitLabAccount): Map<string, GitLabIssue> {
  const issues = new Map<string, GitLabIssue>();
  const PROJECT_ID = 3;
  let next = 6;
  const issueOf = (request: StandInRequest) => issues.get(`${PROJECT_ID}#${request.params[1]}`);
  const notFound = { status: 404, body: { message: '404 Not found' } };
  standIn.route('POST', /^\/api\/v4\/projects\/([^/]+)\/issues$/, (request) => {
    const refusal = gitlabRefusal(account, request);
    if (refusal) return refusal;
    const { title } = (request.json ?? {}) as { title?: unknown };
    if (typeof title !== 'string' || title === '') return { status: 400, body: { error: 'title is missing' } };
    next += 1;
    issues.set(`${PROJECT_ID}#${next}`, { iid: next, state: 'opened', notes: [] });
    const path = request.params[0];
    return {
      status: 201,
      body: {
        id: 80 + next,
        iid: next,
        project_id: PROJECT_ID,
        state: 'opened',
        web_url: `https://gitlab.example/${path}/-/issues/${next}`,
      },
    };
  });
  standIn.route('POST', /^\/api\/v4\/projects\/([^/]+)\/issues\/(\d+)\/notes$/, (request) => {
    const refusal = gitlabRefusal(account, request);
    if (refusal) return refusal;
    const issue = issueOf(request);
    if (!issue || request.params[0] !== String(PROJECT_ID)) return notFound;
    const { body } = (request.json ?? {}) as { body?: unknown };
    if (typeof body !== 'string' || body === '') return { status: 400, body: { error: 'body is missing' } };
    issue.notes.push(body);
    return { status: 201, body: { id: 300 + issue.notes.length, body, noteable_type: 'Issue', noteable_iid: issue.iid } };
  });
  standIn.route('PUT', /^\/api\/v4\/projects\/([^/]+)\/issues\/(\d+)$/, (request) => {
    const refusal = gitlabRefusal(account, request);
    if (refusal) return refusal;
    const issue = issueOf(request);
    if (!issue || request.params[0] !== String(PROJECT_ID)) return notFound;
    const { state_event: event } = (request.json ?? {}) as { state_event?: unknown };
    if (event !== undefined && event !== 'close' && event !== 'reopen')
      return { status: 400, body: { error: 'state_event does not have a valid value' } };
    if (event === 'close') issue.state = 'closed';
    if (event === 'reopen') issue.state = 'opened';
    return { status: 200, body: { iid: issue.iid, project_id: PROJECT_ID, state: issue.state } };
  });
  return issues;
}
