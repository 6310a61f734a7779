import type { ProjectSettings } from '../../projects/settings.js';
import type { FailedAnalyzer } from './process-upload.js';
import { SEVERITIES, severitiesAtOrAbove, type Severity } from '../vocabulary.js';

export interface GateOutcome {
  passed: boolean;
  fail_on: ProjectSettings['fail_on'];
  fail_threshold: ProjectSettings['fail_threshold'];
  fail_on_new: ProjectSettings['fail_on_new'];
  /** Why the gate failed, one sentence per rule that failed; empty when it passed. */
  reasons: string[];
  /** E8.4: how many of the report's issues were under a dismissal in force, and so left out. */
  dismissed: number;
}

/** What a stored report's gate reads from its issues (E8.4: without those under a dismissal in force). */
export interface GateIssues {
  failedAnalyzers: readonly FailedAnalyzer[];
  newBySeverity: Record<Severity, number>;
  dismissed: number;
}

/**
 * The project's quality gate (settings D14, E1.7) applied to a stored report:
 * - `fail_on` fails when any *failed* analyzer has an issue at or above that severity
 *   (`never` and null never fail on severity);
 * - `fail_threshold` fails when the score is below it (a score equal to it passes);
 * - `fail_on_new` fails when a new issue (E1.4; every issue, without a baseline) is at or above it.
 */
export function applyQualityGate(
  settings: Pick<ProjectSettings, 'fail_on' | 'fail_threshold' | 'fail_on_new'>,
  report: { score: number; failedAnalyzers: readonly FailedAnalyzer[]; newBySeverity: Record<Severity, number>; dismissed?: number },
): GateOutcome {
  const reasons: string[] = [];
  const { fail_on, fail_threshold, fail_on_new } = settings;

  if (fail_on !== null && fail_on !== 'never') {
    const blocking = [...severitiesAtOrAbove(fail_on)];
    const blockingIn = (analyzer: FailedAnalyzer) => blocking.reduce((n, severity) => n + analyzer.issues[severity], 0);
    const offending = report.failedAnalyzers.filter((analyzer) => blockingIn(analyzer) > 0);
    if (offending.length > 0) {
      const count = offending.reduce((n, analyzer) => n + blockingIn(analyzer), 0);
      const names = offending.map((r) => r.analyzer_id).join(', ');
      reasons.push(`${count} ${count === 1 ? 'issue' : 'issues'} at or above ${fail_on} severity in failed analyzers: ${names}.`);
    }
  }

  if (fail_threshold !== null && report.score < fail_threshold) {
    reasons.push(`Score ${report.score} is below the threshold of ${fail_threshold}.`);
  }

  if (fail_on_new !== null && fail_on_new !== 'never') {
    const count = [...severitiesAtOrAbove(fail_on_new)].reduce((n, severity) => n + report.newBySeverity[severity], 0);
    if (count > 0) reasons.push(`${count} new ${count === 1 ? 'issue' : 'issues'} at or above ${fail_on_new} severity.`);
  }

  return { passed: reasons.length === 0, fail_on, fail_threshold, fail_on_new, reasons, dismissed: report.dismissed ?? 0 };
}

/**
 * E8.4: the failed analyzers' issues and the new issues by severity, without the issues at
 * `dismissed` (indexes in upload order, ascending): those under a dismissal in force count for
 * neither `fail_on` nor `fail_on_new`. `severityRanks` and `isNew` describe every issue.
 */
export function withoutDismissed(
  counted: { failedAnalyzers: readonly FailedAnalyzer[]; newBySeverity: Record<Severity, number> },
  dismissed: readonly number[],
  severityRanks: Uint8Array,
  isNew: (index: number) => boolean,
): GateIssues {
  if (dismissed.length === 0) return { ...counted, dismissed: 0 };
  const newBySeverity = { ...counted.newBySeverity };
  const failedAnalyzers = counted.failedAnalyzers.map((analyzer) => ({ ...analyzer, issues: { ...analyzer.issues } }));
  // Both ascending: one walk over the failed analyzers' ranges.
  let a = 0;
  for (const index of dismissed) {
    const severity = SEVERITIES[severityRanks[index]!]!;
    if (isNew(index)) newBySeverity[severity] -= 1;
    while (a < failedAnalyzers.length && failedAnalyzers[a]!.firstIssue + failedAnalyzers[a]!.issueCount <= index) a++;
    const analyzer = failedAnalyzers[a];
    if (analyzer !== undefined && analyzer.firstIssue <= index) analyzer.issues[severity] -= 1;
  }
  return { failedAnalyzers, newBySeverity, dismissed: dismissed.length };
}
