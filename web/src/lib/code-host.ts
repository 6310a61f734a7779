import { CODE_HOST_PROVIDERS, type CodeHostProvider, isCodeHostProvider } from '../../../src/code-host/repository-names.js';
import type { Problem } from '../api/problems.js';
import { PROVIDER_LABELS } from './connections.js';

/**
 * E10.6: what the project's code-host settings need to know about E10.1's link and E10.4's calls:
 * which connections are code hosts, how each names a repository, how to tell "not linked" from a
 * failure, and what each call is called. Free of Preact so it is unit-tested; the providers come
 * from the service's own module (it imports nothing), the 404's words are held against its own by the test.
 */

export { CODE_HOST_PROVIDERS, type CodeHostProvider, isCodeHostProvider };

/** The 404 of GET .../code-host when the project has no link: a state to show, not a problem. */
export const NOT_LINKED_MESSAGE = 'This project is not linked to a code host.';

/** Whether a problem of GET .../code-host only says the project has no link. */
export const isNotLinked = (problem: Problem | null): boolean => problem?.status === 404 && problem.message === NOT_LINKED_MESSAGE;

/** What the repository field shows while empty: the repository as the chosen host names it. */
export const REPOSITORY_PLACEHOLDERS: Record<CodeHostProvider, string> = {
  github: 'owner/repo',
  github_app: 'owner/repo',
  gitlab: 'group/project',
  gitea: 'owner/repo',
  bitbucket: 'workspace/repo_slug',
};

/** The placeholder for the connection with this provider; GitHub's form before one is chosen. */
export function repositoryPlaceholder(provider: string | undefined): string {
  return provider !== undefined && isCodeHostProvider(provider) ? REPOSITORY_PLACEHOLDERS[provider] : REPOSITORY_PLACEHOLDERS.github;
}

/** E10.4's events, as the deliveries' list says them (for a GitHub App, the commit status is its check run). */
export const CODE_HOST_CALLS = { commit_status: 'Commit status', pull_request_comment: 'Pull-request comment' } as const;

export interface CodeHostLink {
  connection: { provider: string; name: string };
  repository: string;
  commit_status: boolean;
  pull_request_comment: boolean;
}

/** One sentence on what the link does: where, through which connection, and what is posted. */
export function linkSummary(link: CodeHostLink | null): string {
  if (link === null) return 'No code host is linked: nothing is posted on commits or pull requests.';
  const provider = PROVIDER_LABELS[link.connection.provider as keyof typeof PROVIDER_LABELS] ?? link.connection.provider;
  const status = link.connection.provider === 'github_app' ? 'a check run on each commit' : 'a status on each commit';
  const posted = [link.commit_status ? status : null, link.pull_request_comment ? 'a comment on each pull request' : null].filter(
    (part) => part !== null,
  );
  const what = posted.length === 0 ? 'nothing is posted (both are turned off)' : `Scoreboard posts ${posted.join(' and ')}`;
  return `Linked to ${link.repository} through ${link.connection.name} (${provider}): ${what}.`;
}
