import { type CodeHostRepos, codeHostRecords, jsonObject } from './code-host-records.js';
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

const STATUS_STATES = ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'];

export interface GitLabRepos extends CodeHostRepos {
  /** The numeric id GitLab gives the project (`addRepo` or `addPullRequest` made it). */
  projectId(path: string): number;
}

/**
 * GitLab's routes for E10, as docs.gitlab.com/api describes them, on the projects the test adds by
 * full path (`addPullRequest('group/sub/project', 7)`). `:id` is the project's numeric id or its
 * URL-encoded path (`group%2Fsub%2Fproject`); another project is 404 `{"message": "404 Project Not
 * Found"}`. Parameters may come in the query or the JSON body, as GitLab's API takes either.
 * - "Set the pipeline status of a commit" (api/commits) `POST /projects/:id/statuses/:sha` {state:
 *   pending|running|success|failed|canceled|skipped, name? (default `default`), target_url?,
 *   description?} → 201; no state is 400 `{"error": "state is missing"}`, another one 400 `{"error":
 *   "state does not have a valid value"}`.
 * - "Create new merge request note" (api/notes) `POST /projects/:id/merge_requests/:merge_request_iid/notes`
 *   {body} → 201 {id, body, noteable_type: MergeRequest, ...} (400 `{"error": "body is missing"}`);
 *   "Modify existing merge request note" `PUT .../notes/:note_id` {body} → 200. An unknown merge
 *   request, or a note deleted, is 404 `{"message": "404 Not found"}`.
 */
export function addGitLabRepos(standIn: StandIn, account: GitLabAccount): GitLabRepos {
  const { repos, store } = codeHostRecords(3_000_001);
  const ids = new Map<string, number>();
  let nextId = 20;
  const register = (path: string) => {
    if (!ids.has(path)) ids.set(path, nextId++);
  };
  const pathOf = (id: string) => {
    if (/^\d+$/.test(id)) return [...ids].find(([, number]) => String(number) === id)?.[0];
    return ids.has(id) ? id : undefined;
  };
  const projectNotFound = { status: 404, body: { message: '404 Project Not Found' } };
  const notFound = { status: 404, body: { message: '404 Not found' } };
  const paramsOf = (request: StandInRequest) => ({ ...Object.fromEntries(request.query), ...jsonObject(request.json) });
  const noteAnswer = (note: { id: number; body: string; number: number }, projectId: number) => ({
    id: note.id,
    type: null,
    body: note.body,
    author: { username: account.username },
    system: false,
    noteable_type: 'MergeRequest',
    noteable_iid: note.number,
    project_id: projectId,
    resolvable: false,
    confidential: false,
  });

  standIn.route('POST', /^\/api\/v4\/projects\/([^/]+)\/statuses\/([^/]+)$/, (request) => {
    const refusal = gitlabRefusal(account, request);
    if (refusal) return refusal;
    const path = pathOf(request.params[0]!);
    if (path === undefined) return projectNotFound;
    const body = paramsOf(request);
    if (body.state === undefined) return { status: 400, body: { error: 'state is missing' } };
    if (!STATUS_STATES.includes(String(body.state))) return { status: 400, body: { error: 'state does not have a valid value' } };
    const sha = request.params[1]!;
    repos.statuses.push({ repo: path, sha, body });
    return {
      status: 201,
      body: {
        id: 90 + repos.statuses.length,
        sha,
        ref: body.ref ?? null,
        status: body.state,
        name: body.name ?? body.context ?? 'default',
        target_url: body.target_url ?? null,
        description: body.description ?? null,
        allow_failure: false,
        author: { username: account.username },
      },
    };
  });

  standIn.route('POST', /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes$/, (request) => {
    const refusal = gitlabRefusal(account, request);
    if (refusal) return refusal;
    const path = pathOf(request.params[0]!);
    if (path === undefined) return projectNotFound;
    const iid = Number(request.params[1]);
    if (!store.hasPullRequest(path, iid)) return notFound;
    const { body } = paramsOf(request);
    if (typeof body !== 'string' || body === '') return { status: 400, body: { error: 'body is missing' } };
    return { status: 201, body: noteAnswer(store.createComment(path, iid, body), ids.get(path)!) };
  });

  standIn.route('PUT', /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes\/(\d+)$/, (request) => {
    const refusal = gitlabRefusal(account, request);
    if (refusal) return refusal;
    const path = pathOf(request.params[0]!);
    if (path === undefined) return projectNotFound;
    const note = store.findComment(path, Number(request.params[2]), Number(request.params[1]));
    if (!note) return notFound;
    const { body } = paramsOf(request);
    if (typeof body !== 'string' || body === '')
      return { status: 400, body: { error: 'body, confidential are missing, at least one parameter must be provided' } };
    return { status: 200, body: noteAnswer(store.editComment(note, body), ids.get(path)!) };
  });

  const { addRepo, addPullRequest } = repos;
  return Object.assign(repos, {
    addRepo(path: string) {
      register(path);
      addRepo(path);
    },
    addPullRequest(path: string, iid: number) {
      register(path);
      addPullRequest(path, iid);
    },
    projectId(path: string) {
      const id = ids.get(path);
      if (id === undefined) throw new Error(`the GitLab stand-in has no project ${path}`);
      return id;
    },
  });
}
