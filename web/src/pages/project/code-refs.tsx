import { type CodeLinks, pullRequestLabel } from '../../lib/code-links.js';
import { shortCommit } from '../../lib/project-runs.js';

/** A commit, short, linked to the repository at that commit when the code host is known. */
export function CommitRef({ sha, links }: { sha: string; links: CodeLinks | null }) {
  const text = <code title={sha}>{shortCommit(sha)}</code>;
  if (links === null) return text;
  return (
    <a href={links.commit(sha)} rel="noreferrer" aria-label={`Commit ${shortCommit(sha)} in the repository`}>
      {text}
    </a>
  );
}

/** A pull (or GitLab merge) request by its number, linked to it when the code host is known; with the branch it goes into. */
export function PullRequestRef({ number, base, links }: { number: string; base: string | null; links: CodeLinks | null }) {
  const label = pullRequestLabel(links?.host, number);
  return (
    <span class="pull-request-ref">
      {links === null ? (
        <span>{label}</span>
      ) : (
        <a href={links.pullRequest(number)} rel="noreferrer">
          {label}
        </a>
      )}
      {base !== null && (
        <span class="muted">
          {' '}
          into <BranchName name={base} />
        </span>
      )}
    </span>
  );
}

/** A branch name that a narrow column breaks after a `/` (`feature/` then `checkout-hardening`), not mid-word. */
export function BranchName({ name }: { name: string }) {
  const parts = name.split('/');
  return (
    <span class="branch-name">
      {parts.map((part, index) => (
        <span key={index}>
          {part}
          {index < parts.length - 1 && (
            <>
              /<wbr />
            </>
          )}
        </span>
      ))}
    </span>
  );
}
