import type { Severity } from '../lib/report-view.js';

/** An issue's severity as the same chip on every page: the word, its colour and a weight that grows with it. */
export function SeverityChip({ severity }: { severity: Severity }) {
  return <span class={`severity severity-${severity}`}>{severity}</span>;
}
