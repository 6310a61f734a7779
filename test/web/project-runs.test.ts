import { describe, expect, it } from 'vitest';
import { failureHeadline, newIssuesUrl, runContext, shortCommit } from '../../web/src/lib/project-runs.js';

describe('pull requests and failed runs on the project page (issue 31 item 4)', () => {
  it('links to a report page that shows only its new issues', () => {
    expect(newIssuesUrl('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b')).toBe('/reports/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b?tab=new');
  });

  it('names a failed run by its label, else its reason in words, else says it failed', () => {
    const failure = (failure_label: string | null, failure_reason: string | null) => ({ failure_label, failure_reason });
    expect(failureHeadline(failure('Database unreachable', 'uncaught_exception'))).toBe('Database unreachable');
    expect(failureHeadline(failure('  ', 'no_analyzers_ran'))).toBe('No analyzer ran');
    expect(failureHeadline(failure(null, 'uncaught_exception'))).toBe('Uncaught exception during analysis');
    expect(failureHeadline(failure(null, 'something_new'))).toBe('Failed: something_new');
    // A reason named like an object's own property is no reason the client has.
    expect(failureHeadline(failure(null, 'toString'))).toBe('Failed: toString');
    expect(failureHeadline(failure(null, null))).toBe('The run failed');
  });

  it('reads the git context a failed run sent, trimmed, and nothing that is not a string', () => {
    expect(runContext({ git_branch: ' feature/x ', git_commit: 'a'.repeat(40), pr_number: '482', base_branch: 'main' })).toEqual({
      branch: 'feature/x',
      commit: 'a'.repeat(40),
      pullRequest: '482',
      baseBranch: 'main',
    });
    expect(runContext({ git_branch: '', pr_number: 482, git_commit: { sha: 'x' } })).toEqual({
      branch: null,
      commit: null,
      pullRequest: null,
      baseBranch: null,
    });
  });

  it('shortens a commit to seven characters', () => {
    expect(shortCommit('3f2a9c1d0e4b5a6978877665544332211aabbccd')).toBe('3f2a9c1');
  });
});
