import { describe, expect, it } from 'vitest';
import { NO_CODE_HOST_MESSAGE } from '../../src/code-host/code-host.service.js';
import { CODE_HOST_EVENTS } from '../../src/code-host/code-host.schemas.js';
import { repositoryProblem } from '../../src/code-host/repository-names.js';
import { problemOf } from '../../web/src/api/problems.js';
import {
  CODE_HOST_CALLS,
  CODE_HOST_PROVIDERS,
  isNotLinked,
  linkSummary,
  NOT_LINKED_MESSAGE,
  REPOSITORY_PLACEHOLDERS,
  repositoryPlaceholder,
} from '../../web/src/lib/code-host.js';
import { PROVIDERS } from '../../web/src/lib/connections.js';

/**
 * E10.6's settings logic: the "not linked" 404 is the service's and is a state, not a problem; each
 * host's placeholder is a name the service takes for it; every event has a label; and the sentence
 * that says what a link does.
 */
describe('the code host’s settings', () => {
  it('tells the project without a link (the service’s 404) from any other problem', () => {
    expect(NOT_LINKED_MESSAGE).toBe(NO_CODE_HOST_MESSAGE);
    expect(isNotLinked(problemOf(404, { error: 'Not Found', message: NO_CODE_HOST_MESSAGE }, null))).toBe(true);
    expect(isNotLinked(problemOf(404, { error: 'Not Found', message: 'The requested resource was not found.' }, null))).toBe(false);
    expect(isNotLinked(problemOf(500, { message: NO_CODE_HOST_MESSAGE }, null))).toBe(false);
    expect(isNotLinked(null)).toBe(false);
  });

  it('offers every code host among the team’s connections, with a placeholder the service takes as a repository', () => {
    for (const provider of CODE_HOST_PROVIDERS) {
      expect(PROVIDERS, provider).toContain(provider);
      expect(repositoryProblem(provider, REPOSITORY_PLACEHOLDERS[provider]), provider).toBeNull();
    }
    expect(repositoryPlaceholder('gitlab')).toBe('group/project');
    expect(repositoryPlaceholder('bitbucket')).toBe('workspace/repo_slug');
    expect(repositoryPlaceholder('github_app')).toBe('owner/repo');
    // Before a connection is chosen, or for one that is no code host: GitHub's form.
    expect(repositoryPlaceholder(undefined)).toBe('owner/repo');
    expect(repositoryPlaceholder('jira')).toBe('owner/repo');
  });

  it('names every event the deliveries list', () => {
    expect(Object.keys(CODE_HOST_CALLS)).toEqual([...CODE_HOST_EVENTS]);
    expect(CODE_HOST_CALLS).toEqual({ commit_status: 'Commit status', pull_request_comment: 'Pull-request comment' });
  });

  it('says where the results go and what is posted', () => {
    const link = (provider: string, commit_status: boolean, pull_request_comment: boolean) => ({
      connection: { provider, name: 'Acme' },
      repository: 'acme/shop',
      commit_status,
      pull_request_comment,
    });
    expect(linkSummary(null)).toBe('No code host is linked: nothing is posted on commits or pull requests.');
    expect(linkSummary(link('github', true, true))).toBe(
      'Linked to acme/shop through Acme (GitHub): Scoreboard posts a status on each commit and a comment on each pull request.',
    );
    expect(linkSummary(link('github_app', true, false))).toBe(
      'Linked to acme/shop through Acme (GitHub App): Scoreboard posts a check run on each commit.',
    );
    expect(linkSummary(link('gitlab', false, true))).toBe(
      'Linked to acme/shop through Acme (GitLab): Scoreboard posts a comment on each pull request.',
    );
    expect(linkSummary(link('bitbucket', false, false))).toBe(
      'Linked to acme/shop through Acme (Bitbucket Cloud): nothing is posted (both are turned off).',
    );
  });
});
