import { storableText } from '../../wire/storable-text.js';

/** E1.1: a report's git context, from the run metadata the client sends (CLIENT-WIRE.md). */
export interface GitContext {
  branch: string | null;
  commit: string | null;
  pull_request: string | null;
  base_branch: string | null;
}

/** `git_branch`, `git_commit`, `pr_number` and `base_branch` of `metadata`, each trimmed, or null. */
export function gitContextOf(metadata: Record<string, unknown>): GitContext {
  return {
    branch: text(metadata.git_branch),
    commit: text(metadata.git_commit),
    pull_request: text(metadata.pr_number),
    base_branch: text(metadata.base_branch),
  };
}

/**
 * A string, trimmed and storable in a text column (a NUL would be a 500 on PostgreSQL); a number as
 * written (a client may send `pr_number` as one); else null.
 */
function text(value: unknown): string | null {
  const written = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof written !== 'string') return null;
  const trimmed = storableText(written.trim());
  return trimmed === '' ? null : trimmed;
}

/**
 * `?branch=` as the lists and the trend take it (E1.6): absent, empty (the reports without a
 * branch: null), or a name, made storable like the names it is compared with.
 */
export function branchFilter(branch: string | undefined): string | null | undefined {
  return branch === undefined ? undefined : branch === '' ? null : storableText(branch);
}

/** E1.3: a report is a pull request's when it names both the pull request and its base branch. */
export function isPullRequest(git: GitContext): git is GitContext & { pull_request: string; base_branch: string } {
  return git.pull_request !== null && git.base_branch !== null;
}
