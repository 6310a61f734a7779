import type { Problem } from '../api/problems.js';

/** An API error in words, announced to screen readers as it appears. */
export function ProblemMessage({ problem }: { problem: Problem | null }) {
  if (problem === null) return null;
  return (
    <p class="problem" role="alert">
      {problem.message}
    </p>
  );
}
