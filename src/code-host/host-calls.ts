import type { ProviderHttp, ProviderResult, ProviderTarget } from '../connections/provider-http.js';
import type { CheckRunAnnotation } from './feedback-text.js';
import { type CodeHostProvider, repositoryPath } from './repository-names.js';

/**
 * E10.2, E10.3 and E10.5's calls, as each host documents them. Every call goes through the
 * providers' client (connections/provider-http.ts): E6's network rules, one deadline, the host's
 * own error words, never a credential. `target` is where and with what: a GitHub App's calls are
 * made with its installation's token (connections/github-app.ts).
 */

export interface HostCall {
  http: ProviderHttp;
  target: ProviderTarget;
  /** The link's provider (a GitHub App calls GitHub's API). */
  provider: CodeHostProvider;
  repository: string;
}

/** E10.2: `scoreboard` is the status's name on every host. */
export const STATUS_CONTEXT = 'scoreboard';
/** E10.5: the check run's name. */
export const CHECK_RUN_NAME = 'Scoreboard';

export interface CommitStatus {
  passed: boolean;
  description: string;
  url: string;
}

/** E10.2: a commit status. GitHub and Gitea take `context`, GitLab `name`, Bitbucket a `key` and `url`. */
export function setCommitStatus(call: HostCall, sha: string, status: CommitStatus): Promise<ProviderResult> {
  const repo = repositoryPath(call.provider, call.repository);
  const commit = encodeURIComponent(sha);
  const request = { connection: call.target, method: 'POST' as const };
  switch (call.provider) {
    case 'gitlab':
      return call.http.request({
        ...request,
        path: `${repo}/statuses/${commit}`,
        body: {
          state: status.passed ? 'success' : 'failed',
          name: STATUS_CONTEXT,
          description: status.description,
          target_url: status.url,
        },
      });
    case 'bitbucket':
      return call.http.request({
        ...request,
        path: `${repo}/commit/${commit}/statuses/build`,
        body: {
          key: STATUS_CONTEXT,
          state: status.passed ? 'SUCCESSFUL' : 'FAILED',
          name: STATUS_CONTEXT,
          url: status.url,
          description: status.description,
        },
      });
    default:
      return call.http.request({
        ...request,
        path: `${repo}/statuses/${commit}`,
        body: {
          state: status.passed ? 'success' : 'failure',
          context: STATUS_CONTEXT,
          description: status.description,
          target_url: status.url,
        },
      });
  }
}

/** The id a host gave a comment it created: GitHub, Gitea and Bitbucket `id`, GitLab the note's `id`. */
export function createdId(result: ProviderResult): string | null {
  if (!result.ok) return null;
  const id = (result.answer.json as { id?: unknown } | null)?.id;
  return typeof id === 'number' || (typeof id === 'string' && id !== '') ? String(id) : null;
}

function commentPaths(call: HostCall, pullRequest: string) {
  const repo = repositoryPath(call.provider, call.repository);
  const number = encodeURIComponent(pullRequest);
  switch (call.provider) {
    case 'gitlab':
      return {
        create: `${repo}/merge_requests/${number}/notes`,
        edit: (id: string) => `${repo}/merge_requests/${number}/notes/${encodeURIComponent(id)}`,
      };
    case 'bitbucket':
      return {
        create: `${repo}/pullrequests/${number}/comments`,
        edit: (id: string) => `${repo}/pullrequests/${number}/comments/${encodeURIComponent(id)}`,
      };
    default:
      // A pull request is an issue to GitHub's and Gitea's comment API; a comment's edit is by its id alone.
      return { create: `${repo}/issues/${number}/comments`, edit: (id: string) => `${repo}/issues/comments/${encodeURIComponent(id)}` };
  }
}

const commentBody = (provider: CodeHostProvider, markdown: string) =>
  provider === 'bitbucket' ? { content: { raw: markdown } } : { body: markdown };

/** E10.3: a new comment on the pull request's conversation. */
export function createComment(call: HostCall, pullRequest: string, markdown: string): Promise<ProviderResult> {
  return call.http.request({
    connection: call.target,
    method: 'POST',
    path: commentPaths(call, pullRequest).create,
    body: commentBody(call.provider, markdown),
  });
}

/** E10.3: the comment edited in place. GitHub and Gitea PATCH; GitLab and Bitbucket PUT. */
export function editComment(call: HostCall, pullRequest: string, commentId: string, markdown: string): Promise<ProviderResult> {
  return call.http.request({
    connection: call.target,
    method: call.provider === 'gitlab' || call.provider === 'bitbucket' ? 'PUT' : 'PATCH',
    path: commentPaths(call, pullRequest).edit(commentId),
    body: commentBody(call.provider, markdown),
  });
}

export interface CheckRunOutput {
  title: string;
  summary: string;
}

/** E10.5: a completed check run on the commit, with the first annotations. */
export function createCheckRun(
  call: HostCall,
  run: { sha: string; passed: boolean; detailsUrl: string; output: CheckRunOutput; annotations: CheckRunAnnotation[] },
): Promise<ProviderResult> {
  return call.http.request({
    connection: call.target,
    method: 'POST',
    path: `${repositoryPath(call.provider, call.repository)}/check-runs`,
    body: {
      name: CHECK_RUN_NAME,
      head_sha: run.sha,
      status: 'completed',
      conclusion: run.passed ? 'success' : 'failure',
      details_url: run.detailsUrl,
      output: { ...run.output, ...(run.annotations.length > 0 && { annotations: run.annotations }) },
    },
  });
}

/** E10.5: more annotations on a check run (GitHub adds them to those it has); the output's title and summary are required with them. */
export function annotateCheckRun(call: HostCall, checkRunId: string, output: CheckRunOutput, annotations: CheckRunAnnotation[]) {
  return call.http.request({
    connection: call.target,
    method: 'PATCH',
    path: `${repositoryPath(call.provider, call.repository)}/check-runs/${encodeURIComponent(checkRunId)}`,
    body: { output: { ...output, annotations } },
  });
}
