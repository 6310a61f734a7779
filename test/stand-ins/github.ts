import { createPublicKey, type KeyObject, randomBytes } from 'node:crypto';
import { compactVerify } from 'jose';
import { type CodeHostRepos, codeHostRecords, jsonObject } from './code-host-records.js';
import type { StandIn, StandInAnswer, StandInRequest } from './stand-in-server.js';

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
  const refusal = headerRefusal(request);
  if (refusal) return refusal;
  if (request.headers.authorization !== `Bearer ${account.token}`) return { status: 401, body: GITHUB_BAD_CREDENTIALS };
  return null;
}

/** The refusals of a request's headers other than its credential: no User-Agent, an API version GitHub does not have. */
function headerRefusal(request: StandInRequest): StandInAnswer | null {
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
  addIssueCommentTarget(standIn, {
    claims: (repo, number) => issues.has(`${repo}#${number}`),
    refusal: (request) => githubRefusal(account, request),
    answer(request) {
      const refusal = githubRefusal(account, request);
      if (refusal) return refusal;
      const [owner, repo, number] = request.params;
      const issue = issues.get(`${owner}/${repo}#${number}`)!;
      const { body } = (request.json ?? {}) as { body?: unknown };
      if (typeof body !== 'string' || body === '') return invalid('body');
      issue.comments.push(body);
      const id = 5000 + issue.comments.length;
      return { status: 201, body: { id, body, html_url: `https://github.com/${owner}/${repo}/issues/${number}#issuecomment-${id}` } };
    },
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

/**
 * "Create an issue comment" serves issues and pull requests alike (a pull request is an issue to
 * GitHub), so the issues stand-in and the repositories stand-in share its one route: each claims
 * its own numbers, and a number neither knows is GitHub's 404.
 */
interface CommentTarget {
  claims(repo: string, number: number): boolean;
  refusal(request: StandInRequest): StandInAnswer | null;
  answer(request: StandInRequest): StandInAnswer;
}

const commentTargets = new WeakMap<StandIn, CommentTarget[]>();

function addIssueCommentTarget(standIn: StandIn, target: CommentTarget): void {
  const existing = commentTargets.get(standIn);
  if (existing) {
    existing.push(target);
    return;
  }
  const targets = [target];
  commentTargets.set(standIn, targets);
  standIn.route('POST', /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/, (request) => {
    const [owner, repo, number] = request.params;
    const claimant = targets.find((candidate) => candidate.claims(`${owner}/${repo}`, Number(number)));
    if (claimant) return claimant.answer(request);
    return targets[0]!.refusal(request) ?? { status: 404, body: GITHUB_NOT_FOUND };
  });
}

function validationFailed(resource: string, field: string, code: 'missing_field' | 'invalid' | 'custom', message?: string) {
  return {
    status: 422,
    body: {
      message: 'Validation Failed',
      errors: [{ resource, code, field, ...(message === undefined ? {} : { message }) }],
      documentation_url: 'https://docs.github.com/rest',
    },
  };
}

/** The installation tokens a GitHub App stand-in minted on a stand-in; the repository routes accept them until they expire. */
interface InstallationToken {
  installationId: number;
  appId: string;
  expiresAt: number;
  now: () => number;
}

const installationTokens = new WeakMap<StandIn, Map<string, InstallationToken>>();

function tokensOf(standIn: StandIn): Map<string, InstallationToken> {
  let tokens = installationTokens.get(standIn);
  if (!tokens) {
    tokens = new Map();
    installationTokens.set(standIn, tokens);
  }
  return tokens;
}

/** Who calls a repository route: the account (a personal token) or an app's installation; else the refusal. */
type Caller = { kind: 'user'; login: string } | { kind: 'installation'; login: string } | { refusal: StandInAnswer };

function callerOf(standIn: StandIn, account: GitHubAccount | undefined, request: StandInRequest): Caller {
  const refusal = headerRefusal(request);
  if (refusal) return { refusal };
  const authorization = request.headers.authorization ?? '';
  if (account && authorization === `Bearer ${account.token}`) return { kind: 'user', login: account.login };
  const installation = authorization.startsWith('Bearer ') ? tokensOf(standIn).get(authorization.slice('Bearer '.length)) : undefined;
  // "Installation tokens expire one hour from the time you create them. Using an expired token produces a status code of 401."
  if (installation && installation.now() < installation.expiresAt) return { kind: 'installation', login: `app-${installation.appId}[bot]` };
  return { refusal: { status: 401, body: GITHUB_BAD_CREDENTIALS } };
}

const STATUS_STATES = ['error', 'failure', 'pending', 'success'];
/** "Only GitHub Actions can set a status of waiting, pending, or requested." */
const CHECK_RUN_STATUSES = ['queued', 'in_progress', 'completed'];
/** "You cannot change a check run conclusion to stale, only GitHub can set this." */
const CHECK_RUN_CONCLUSIONS = ['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'timed_out'];
const ANNOTATION_LEVELS = ['notice', 'warning', 'failure'];
const ANNOTATIONS_PER_REQUEST = 50;
const OUTPUT_TEXT_MAX = 65_535;

/** A check run as the stand-in keeps it: its fields as last set (without annotations) and every annotation received. */
export interface GitHubCheckRun {
  id: number;
  repo: string;
  body: Record<string, unknown>;
  annotations: Record<string, unknown>[];
  /** How many times "Update a check run" changed it. */
  updates: number;
}

export interface GitHubRepos extends CodeHostRepos {
  checkRuns: GitHubCheckRun[];
}

/**
 * GitHub's routes for E10, as docs.github.com/rest describes them, on the repositories the test adds
 * (`addRepo('o/r')`, `addPullRequest('o/r', 7)`); another repository is 404. They accept the
 * account's token and, from `addGitHubApp` on the same stand-in, installation tokens until they
 * expire.
 * - "Create a commit status" (rest/commits/statuses) `POST /repos/{owner}/{repo}/statuses/{sha}`
 *   {state: error|failure|pending|success, target_url?, description?, context? (default `default`)}
 *   → 201; no state or another one ("state is not included in the list"), or a description over
 *   140 characters ("description is too long (maximum is 140 characters)"), is 422 "Validation Failed".
 * - "Create an issue comment" (rest/issues/comments) `POST /repos/{owner}/{repo}/issues/{issue_number}/comments`
 *   {body} → 201 {id, body, html_url, user, ...}, 404 for a number that is no pull request (or issue)
 *   of the repository; "Update an issue comment" `PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}`
 *   {body} → 200, 404 once the comment was deleted.
 * - "Create a check run" (rest/checks/runs) `POST /repos/{owner}/{repo}/check-runs` {name, head_sha,
 *   details_url?, status? queued|in_progress|completed, conclusion? (required with status completed;
 *   giving one sets status completed), output? {title, summary, text?, annotations?}} → 201; "Update a
 *   check run" `PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}` → 200, its annotations
 *   appended to those the run has. At most 50 annotations per request, each {path, start_line,
 *   end_line, annotation_level notice|warning|failure, message}; summary and text at most 65535
 *   characters; else 422 (see checkRunProblem). Only a GitHub App may write check runs: a personal
 *   token is 403 "You must authenticate via a GitHub App."
 */
export function addGitHubRepos(standIn: StandIn, account?: GitHubAccount): GitHubRepos {
  const { repos, store } = codeHostRecords(1_900_000_001);
  const checkRuns: GitHubCheckRun[] = [];
  let nextCheckRun = 4_000_000_001;
  const notFound = { status: 404, body: GITHUB_NOT_FOUND };
  const repoOf = (request: StandInRequest) => `${request.params[0]}/${request.params[1]}`;
  const commentAnswer = (repo: string, comment: { id: number; body: string; number: number }, login: string) => ({
    id: comment.id,
    body: comment.body,
    html_url: `https://github.com/${repo}/pull/${comment.number}#issuecomment-${comment.id}`,
    issue_url: `${standIn.url}/repos/${repo}/issues/${comment.number}`,
    user: { login },
  });

  standIn.route('POST', /^\/repos\/([^/]+)\/([^/]+)\/statuses\/([^/]+)$/, (request) => {
    const caller = callerOf(standIn, account, request);
    if ('refusal' in caller) return caller.refusal;
    const repo = repoOf(request);
    if (!store.hasRepo(repo)) return notFound;
    const body = jsonObject(request.json);
    if (!STATUS_STATES.includes(String(body.state)))
      return validationFailed('Status', 'state', 'custom', 'state is not included in the list');
    if (typeof body.description === 'string' && body.description.length > 140)
      return validationFailed('Status', 'description', 'custom', 'description is too long (maximum is 140 characters)');
    const sha = request.params[2]!;
    repos.statuses.push({ repo, sha, body });
    return {
      status: 201,
      body: {
        id: repos.statuses.length,
        url: `${standIn.url}/repos/${repo}/statuses/${sha}`,
        state: body.state,
        description: body.description ?? null,
        target_url: body.target_url ?? null,
        context: body.context ?? 'default',
        creator: { login: caller.login },
      },
    };
  });

  addIssueCommentTarget(standIn, {
    claims: (repo, number) => store.hasPullRequest(repo, number),
    refusal: (request) => {
      const caller = callerOf(standIn, account, request);
      return 'refusal' in caller ? caller.refusal : null;
    },
    answer(request) {
      const caller = callerOf(standIn, account, request);
      if ('refusal' in caller) return caller.refusal;
      const { body } = jsonObject(request.json);
      if (typeof body !== 'string' || body === '') return validationFailed('IssueComment', 'body', 'missing_field');
      const repo = repoOf(request);
      const comment = store.createComment(repo, Number(request.params[2]), body);
      return { status: 201, body: commentAnswer(repo, comment, caller.login) };
    },
  });

  standIn.route('PATCH', /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/, (request) => {
    const caller = callerOf(standIn, account, request);
    if ('refusal' in caller) return caller.refusal;
    const repo = repoOf(request);
    const comment = store.findComment(repo, Number(request.params[2]));
    if (!comment) return notFound;
    const { body } = jsonObject(request.json);
    if (typeof body !== 'string' || body === '') return validationFailed('IssueComment', 'body', 'missing_field');
    return { status: 200, body: commentAnswer(repo, store.editComment(comment, body), caller.login) };
  });

  const checkRunCaller = (request: StandInRequest): Caller => {
    const caller = callerOf(standIn, account, request);
    if (!('refusal' in caller) && caller.kind === 'user') {
      return {
        refusal: {
          status: 403,
          body: {
            message: 'You must authenticate via a GitHub App.',
            documentation_url: 'https://docs.github.com/rest/checks/runs#create-a-check-run',
            status: '403',
          },
        },
      };
    }
    return caller;
  };
  const checkRunAnswer = (run: GitHubCheckRun) => {
    const { output, ...fields } = run.body as { output?: Record<string, unknown> };
    return {
      id: run.id,
      ...fields,
      html_url: `https://github.com/${run.repo}/runs/${run.id}`,
      output: { ...output, annotations_count: run.annotations.length },
    };
  };

  standIn.route('POST', /^\/repos\/([^/]+)\/([^/]+)\/check-runs$/, (request) => {
    const caller = checkRunCaller(request);
    if ('refusal' in caller) return caller.refusal;
    const repo = repoOf(request);
    if (!store.hasRepo(repo)) return notFound;
    const body = jsonObject(request.json);
    const problem = checkRunProblem(body, undefined);
    if (problem) return problem;
    const { annotations, ...output } = (body.output ?? {}) as { annotations?: Record<string, unknown>[] };
    const run: GitHubCheckRun = {
      id: nextCheckRun++,
      repo,
      body: { ...body, status: body.conclusion === undefined ? (body.status ?? 'queued') : 'completed', output },
      annotations: [...(annotations ?? [])],
      updates: 0,
    };
    if (body.output === undefined) delete run.body.output;
    checkRuns.push(run);
    return { status: 201, body: checkRunAnswer(run) };
  });

  standIn.route('PATCH', /^\/repos\/([^/]+)\/([^/]+)\/check-runs\/(\d+)$/, (request) => {
    const caller = checkRunCaller(request);
    if ('refusal' in caller) return caller.refusal;
    const repo = repoOf(request);
    const run = checkRuns.find((candidate) => candidate.id === Number(request.params[2]) && candidate.repo === repo);
    if (!run) return notFound;
    const body = jsonObject(request.json);
    const problem = checkRunProblem(body, run);
    if (problem) return problem;
    const { annotations, ...output } = (body.output ?? {}) as { annotations?: Record<string, unknown>[] };
    const merged: Record<string, unknown> = { ...run.body, ...body };
    if (body.output !== undefined) merged.output = { ...(run.body.output as object | undefined), ...output };
    if (body.conclusion !== undefined) merged.status = 'completed';
    run.body = merged;
    run.annotations.push(...(annotations ?? []));
    run.updates += 1;
    return { status: 200, body: checkRunAnswer(run) };
  });

  return Object.assign(repos, { checkRuns });
}

/**
 * What GitHub refuses in a check run's body (`existing` when updating one); null when it may be
 * stored. The checks endpoints validate their body against its schema first, and say what failed as
 * 422 "Invalid request." followed by the reason ("No more than 50 items are allowed; 51 were
 * supplied."); a completed run without a conclusion is a "Validation Failed".
 */
function checkRunProblem(body: Record<string, unknown>, existing: GitHubCheckRun | undefined): StandInAnswer | null {
  const invalid = (reason: string) => ({
    status: 422,
    body: { message: `Invalid request.\n\n${reason}`, documentation_url: 'https://docs.github.com/rest/checks/runs' },
  });
  const notOneOf = (property: string, value: unknown, allowed: string[]) =>
    invalid(`For 'properties/${property}', ${JSON.stringify(value)} is not one of ${JSON.stringify(allowed)}.`);
  const tooLong = (text: unknown, max: number) =>
    typeof text === 'string' && text.length > max ? invalid(`Only ${max} characters are allowed; ${text.length} were supplied.`) : null;
  for (const field of ['name', 'head_sha'] as const) {
    if (existing === undefined && body[field] === undefined) return invalid(`"${field}" wasn't supplied.`);
    if (body[field] !== undefined && (typeof body[field] !== 'string' || body[field] === ''))
      return invalid(`For 'properties/${field}', ${JSON.stringify(body[field])} is not a non-empty string.`);
  }
  if (body.status !== undefined && !CHECK_RUN_STATUSES.includes(String(body.status)))
    return notOneOf('status', body.status, CHECK_RUN_STATUSES);
  if (body.conclusion !== undefined && !CHECK_RUN_CONCLUSIONS.includes(String(body.conclusion)))
    return notOneOf('conclusion', body.conclusion, CHECK_RUN_CONCLUSIONS);
  const concluded = body.conclusion !== undefined || existing?.body.conclusion !== undefined;
  if ((body.status === 'completed' || body.completed_at !== undefined) && !concluded)
    return validationFailed('CheckRun', 'conclusion', 'missing_field');
  if (body.details_url !== undefined && typeof body.details_url !== 'string')
    return invalid(`For 'properties/details_url', ${JSON.stringify(body.details_url)} is not a string.`);
  if (body.output === undefined) return null;
  const output = jsonObject(body.output);
  // Creating needs both title and summary; an update's output needs its summary (the title stays).
  if (existing === undefined && typeof output.title !== 'string') return invalid(`"title" wasn't supplied.`);
  if (typeof output.summary !== 'string') return invalid(`"summary" wasn't supplied.`);
  const long = tooLong(output.summary, OUTPUT_TEXT_MAX) ?? tooLong(output.text, OUTPUT_TEXT_MAX);
  if (long) return long;
  if (output.annotations === undefined) return null;
  if (!Array.isArray(output.annotations))
    return invalid(`For 'properties/annotations', ${JSON.stringify(output.annotations)} is not an array.`);
  if (output.annotations.length > ANNOTATIONS_PER_REQUEST)
    return invalid(`No more than ${ANNOTATIONS_PER_REQUEST} items are allowed; ${output.annotations.length} were supplied.`);
  for (const annotation of output.annotations.map(jsonObject)) {
    for (const field of ['path', 'message', 'start_line', 'end_line', 'annotation_level']) {
      if (annotation[field] === undefined) return invalid(`"${field}" wasn't supplied.`);
    }
    for (const field of ['start_line', 'end_line']) {
      if (!Number.isInteger(annotation[field]))
        return invalid(`For 'properties/${field}', ${JSON.stringify(annotation[field])} is not an integer.`);
    }
    if (!ANNOTATION_LEVELS.includes(String(annotation.annotation_level)))
      return notOneOf('annotation_level', annotation.annotation_level, ANNOTATION_LEVELS);
  }
  return null;
}

export interface GitHubAppOptions {
  /** The app's id, the JWT's `iss` (its client id is accepted too when given). */
  appId: number | string;
  clientId?: string;
  installationId: number;
  /** The app's public key: what verifies the JWTs the service signs with the private key. */
  publicKey: string | KeyObject;
  /** The account the app is installed on. */
  login: string;
  /** What the installation was granted; tokens get all of it unless the request asks for less. */
  permissions?: Record<string, string>;
  /** The clock, in milliseconds, for JWT times and token expiry (Date.now unless given). */
  now?: () => number;
}

export interface GitHubApp {
  /** Every installation token minted, oldest first. */
  tokens: { token: string; expires_at: string; installationId: number }[];
  /** How many were minted: what a test of the service's cache counts. */
  readonly minted: number;
}

const JWT_UNDECODABLE = {
  message: 'A JSON web token could not be decoded',
  documentation_url: 'https://docs.github.com/rest',
  status: '401',
};
const JWT_EXPIRED = "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
const JWT_TOO_LONG = "'Expiration time' claim ('exp') is too far in the future";
const JWT_ISSUED_LATER = "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";
const TOKEN_LIFETIME_MS = 60 * 60 * 1000;
const JWT_LIFETIME_SECONDS = 10 * 60;
const PERMISSION_LEVELS = ['read', 'write', 'admin'];

/**
 * A GitHub App, as "Authenticating as a GitHub App" (docs.github.com/apps/creating-github-apps/
 * authenticating-with-a-github-app) describes it. Its endpoints take `Authorization: Bearer <JWT>`:
 * signed RS256 with the app's private key, `iss` the app's id (or client id), `iat` not in the
 * future ("set this 60 seconds in the past"), `exp` in the future and "no more than 10 minutes into
 * the future". A JWT that fails is 401 with the message GitHub gives: "A JSON web token could not be
 * decoded" for a bad signature, algorithm or issuer, or the claim GitHub names.
 * - "Get an installation for the authenticated app" `GET /app/installations/{installation_id}` →
 *   200 {id, account: {login}, app_id, repository_selection, permissions, ...}; another id is 404.
 * - "Create an installation access token for an app" `POST /app/installations/{installation_id}/access_tokens`
 *   {permissions?, repositories?} → 201 {token: ghs_…, expires_at (one hour on), permissions,
 *   repository_selection}; permissions the installation lacks are 422. The repository routes of
 *   `addGitHubRepos` on the same stand-in accept the token until it expires (then 401).
 */
export function addGitHubApp(standIn: StandIn, options: GitHubAppOptions): GitHubApp {
  const now = options.now ?? Date.now;
  const publicKey = typeof options.publicKey === 'string' ? createPublicKey(options.publicKey) : options.publicKey;
  const granted = options.permissions ?? { checks: 'write', statuses: 'write', pull_requests: 'write', issues: 'write', metadata: 'read' };
  const tokens: GitHubApp['tokens'] = [];
  const issuers = [String(options.appId), ...(options.clientId === undefined ? [] : [options.clientId])];
  const unauthorized = (message: string) => ({ status: 401, body: { ...JWT_UNDECODABLE, message } });

  const jwtRefusal = async (request: StandInRequest): Promise<StandInAnswer | null> => {
    const refusal = headerRefusal(request);
    if (refusal) return refusal;
    const authorization = request.headers.authorization ?? '';
    if (!authorization.startsWith('Bearer ')) return { status: 401, body: JWT_UNDECODABLE };
    let claims: Record<string, unknown>;
    try {
      const { payload } = await compactVerify(authorization.slice('Bearer '.length), publicKey, { algorithms: ['RS256'] });
      claims = jsonObject(JSON.parse(new TextDecoder().decode(payload)));
    } catch {
      return { status: 401, body: JWT_UNDECODABLE };
    }
    if (!issuers.includes(String(claims.iss))) return { status: 401, body: JWT_UNDECODABLE };
    const seconds = Math.floor(now() / 1000);
    if (!Number.isInteger(claims.iat) || (claims.iat as number) > seconds) return unauthorized(JWT_ISSUED_LATER);
    if (typeof claims.exp !== 'number' || claims.exp <= seconds) return unauthorized(JWT_EXPIRED);
    if (claims.exp > seconds + JWT_LIFETIME_SECONDS) return unauthorized(JWT_TOO_LONG);
    return null;
  };
  const installationOf = (request: StandInRequest) =>
    Number(request.params[0]) === options.installationId ? options.installationId : null;

  standIn.route('GET', /^\/app\/installations\/(\d+)$/, async (request) => {
    const refusal = await jwtRefusal(request);
    if (refusal) return refusal;
    const id = installationOf(request);
    if (id === null) return { status: 404, body: GITHUB_NOT_FOUND };
    return {
      status: 200,
      body: {
        id,
        app_id: Number(options.appId),
        account: { login: options.login, id: 9_100, type: 'Organization' },
        target_type: 'Organization',
        repository_selection: 'all',
        permissions: granted,
        access_tokens_url: `${standIn.url}/app/installations/${id}/access_tokens`,
        html_url: `https://github.com/organizations/${options.login}/settings/installations/${id}`,
        suspended_at: null,
      },
    };
  });

  standIn.route('POST', /^\/app\/installations\/(\d+)\/access_tokens$/, async (request) => {
    const refusal = await jwtRefusal(request);
    if (refusal) return refusal;
    const id = installationOf(request);
    if (id === null) return { status: 404, body: GITHUB_NOT_FOUND };
    const body = jsonObject(request.json);
    const asked = body.permissions === undefined ? granted : (jsonObject(body.permissions) as Record<string, string>);
    for (const [name, level] of Object.entries(asked)) {
      const has = granted[name];
      if (has === undefined || PERMISSION_LEVELS.indexOf(String(level)) > PERMISSION_LEVELS.indexOf(has)) {
        return {
          status: 422,
          body: {
            message: 'The permissions requested are not granted to this installation.',
            documentation_url: 'https://docs.github.com/rest',
          },
        };
      }
    }
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    // Whole seconds, as `expires_at` shows it: a token is good exactly until the time it announces.
    const expiresAt = Math.floor((now() + TOKEN_LIFETIME_MS) / 1000) * 1000;
    const expires_at = new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
    tokensOf(standIn).set(token, { installationId: id, appId: String(options.appId), expiresAt, now });
    tokens.push({ token, expires_at, installationId: id });
    return {
      status: 201,
      body: { token, expires_at, permissions: asked, repository_selection: Array.isArray(body.repositories) ? 'selected' : 'all' },
    };
  });

  return {
    tokens,
    get minted() {
      return tokens.length;
    },
  };
}
