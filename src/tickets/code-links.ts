import { codeLinks } from '../wire/code-links.js';

/**
 * E9.4: a file at a line, as of a commit, in the code host holding the project's repository, for a
 * ticket's body: the dashboard's rule (wire/code-links.ts); null when the host or layout is not
 * known, or the report names no commit.
 */
export function fileLink(repositoryUrl: string | null, commit: string | null, file: string, line: number | null): string | null {
  if (!commit) return null;
  return codeLinks(repositoryUrl)?.file(commit, file, line) ?? null;
}
