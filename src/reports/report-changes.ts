import {
  compareWithBaseline,
  fingerprintResults,
  missingFromReport,
  type BaselineIssues,
  type ChangeCounts,
  type IssueRow,
} from './changes.js';
import { gitContextOf, isPullRequest, type GitContext } from './git-context.js';
import type { StoredResult } from './report-results.js';
import type { BaselineCandidate, ReportsRepository } from './reports.repository.js';

/** What E1 records about a report: its git context, its baseline, its issue rows and the counts. */
export interface ReportChanges {
  git: GitContext;
  baseline: BaselineCandidate | null;
  rows: IssueRow[];
  counts: ChangeCounts | null;
}

/** The columns of `reports` that hold what `recordChanges` found (E1.1, E1.3, E1.4). */
export function changeColumns(changes: ReportChanges) {
  return {
    git_branch: changes.git.branch,
    git_commit: changes.git.commit,
    pull_request: changes.git.pull_request,
    base_branch: changes.git.base_branch,
    baseline_report_id: changes.baseline?.id ?? null,
    changes_new: changes.counts?.new ?? null,
    changes_fixed: changes.counts?.fixed ?? null,
    changes_unchanged: changes.counts?.unchanged ?? null,
  };
}

/**
 * E1.1-E1.4 for one report: reads its git context from its metadata, chooses its baseline (once,
 * here), fingerprints its issues and compares them with the baseline's. `id` is null for an upload,
 * not stored yet (it will be the newest). The migration's back-fill passes each older report's own
 * and replays history in D19's order (as issue 13 asks), so a pull request's
 * baseline too is the latest base-branch report *before it in that order*: for runs that were
 * uploaded in analysis order this is what their upload would have chosen.
 */
export async function recordChanges(
  reports: Pick<ReportsRepository, 'findBaseline' | 'fingerprintsOf' | 'issuesWithFingerprints'>,
  report: { projectId: string; results: readonly StoredResult[]; metadata: Record<string, unknown>; analyzedAt: string; id: number | null },
): Promise<ReportChanges> {
  const git = gitContextOf(report.metadata);
  const ownPlace = { analyzed_at: report.analyzedAt, id: report.id };
  const baseline =
    (isPullRequest(git)
      ? await reports.findBaseline(report.projectId, { branch: git.base_branch, before: report.id === null ? null : ownPlace })
      : await reports.findBaseline(report.projectId, { branch: git.branch, before: ownPlace })) ?? null;
  const issues = fingerprintResults(report.results);
  let before: BaselineIssues | null = null;
  if (baseline !== null) {
    // The baseline's fingerprints, then the full records of only those the report no longer has.
    const fingerprints = await reports.fingerprintsOf(baseline.id);
    const missing = missingFromReport(fingerprints, issues);
    before = { fingerprints, gone: missing.length === 0 ? [] : await reports.issuesWithFingerprints(baseline.id, missing) };
  }
  const { rows, counts } = compareWithBaseline(issues, before);
  return { git, baseline, rows, counts };
}
