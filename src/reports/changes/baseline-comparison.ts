import {
  CHANGE_CODES,
  compareWithBaseline,
  issueRow,
  fingerprintResults,
  missingFromReport,
  type BaselineIssues,
  type ChangeCounts,
  type IssueRow,
} from './issue-changes.js';
import { gitContextOf, isPullRequest, type GitContext } from '../upload/git-context.js';
import type { StoredResult } from '../results/stored-result.js';
import type { BaselineCandidate } from '../store/report-rows.js';
import type { ReportStore } from '../store/report-store.js';
import { timeSlices } from '../store/time-slices.js';
import { FINGERPRINT_LENGTH } from './fingerprint.js';
import { fingerprintAt, type PreparedIssues } from '../upload/process-upload.js';
import { SEVERITIES, type Severity } from '../vocabulary.js';

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
  reports: Pick<ReportStore, 'findBaseline' | 'fingerprintsOf' | 'issuesWithFingerprints'>,
  report: { projectId: string; results: readonly StoredResult[]; metadata: Record<string, unknown>; analyzedAt: string; id: number | null },
): Promise<ReportChanges> {
  const git = gitContextOf(report.metadata);
  const baseline = await chooseBaseline(reports, report.projectId, git, { analyzed_at: report.analyzedAt, id: report.id });
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

/** E1.3: the report's baseline, chosen once when it is stored (see `recordChanges` for `ownPlace`). */
export async function chooseBaseline(
  reports: Pick<ReportStore, 'findBaseline'>,
  projectId: string,
  git: GitContext,
  ownPlace: { analyzed_at: string; id: number | null },
): Promise<BaselineCandidate | null> {
  const found = isPullRequest(git)
    ? await reports.findBaseline(projectId, { branch: git.base_branch, before: ownPlace.id === null ? null : ownPlace })
    : await reports.findBaseline(projectId, { branch: git.branch, before: ownPlace });
  return found ?? null;
}

/** What E1.4 finds for an upload's prepared issues (upload/process-upload.ts) against its baseline. */
export interface UploadComparison {
  /** The change of each issue in upload order, as CHANGE_CODES indexes. */
  changes: Uint8Array;
  counts: ChangeCounts | null;
  /** The baseline's issues the upload no longer has. */
  fixed: IssueRow[];
  /** The issues the gate counts as new (E1.7: all of them without a baseline), by severity. */
  newBySeverity: Record<Severity, number>;
}

/**
 * E1.4 as `compareWithBaseline`, on the compact form of an upload's issues: a code per issue rather
 * than a row object, so that a 75,000-issue upload costs the event loop a set lookup per issue.
 */
export async function compareUploadedIssues(
  reports: Pick<ReportStore, 'concatenatedFingerprintsOf' | 'issuesWithFingerprints'>,
  issues: PreparedIssues,
  baseline: BaselineCandidate | null,
): Promise<UploadComparison> {
  const changes = new Uint8Array(issues.count);
  const newBySeverity: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  const countNew = (i: number) => (newBySeverity[SEVERITIES[issues.severityRanks[i]!]!] += 1);
  if (baseline === null) {
    for (let i = 0; i < issues.count; i++) countNew(i);
    return { changes, counts: null, fixed: [], newBySeverity };
  }
  const concatenated = await reports.concatenatedFingerprintsOf(baseline.id);
  const before = new Set<string>();
  await inSlices(concatenated.length / FINGERPRINT_LENGTH, (i) => {
    before.add(concatenated.slice(i * FINGERPRINT_LENGTH, (i + 1) * FINGERPRINT_LENGTH));
  });
  const now = new Set<string>();
  let unchanged = 0;
  await inSlices(issues.count, (i) => {
    const fingerprint = fingerprintAt(issues, i);
    now.add(fingerprint);
    if (before.has(fingerprint)) {
      changes[i] = CHANGE_CODES.indexOf('unchanged');
      unchanged++;
    } else {
      changes[i] = CHANGE_CODES.indexOf('new');
      countNew(i);
    }
  });
  const missing: string[] = [];
  const baselineFingerprints = [...before];
  await inSlices(baselineFingerprints.length, (i) => {
    if (!now.has(baselineFingerprints[i]!)) missing.push(baselineFingerprints[i]!);
  });
  const gone = missing.length === 0 ? [] : await reports.issuesWithFingerprints(baseline.id, missing);
  return {
    changes,
    counts: { new: issues.count - unchanged, fixed: gone.length, unchanged },
    fixed: gone.map((issue) => issueRow(issue, 'fixed', null)),
    newBySeverity,
  };
}

/** Steps between two looks at the clock in a pass over a large report's issues. */
const STEP = 2_000;

/** `work(i)` for i from 0 to count - 1, giving the event loop back when a slice's time is used (time-slices.ts). */
async function inSlices(count: number, work: (i: number) => void): Promise<void> {
  const pause = timeSlices();
  for (let start = 0; start < count; start += STEP) {
    await pause();
    for (let i = start; i < Math.min(count, start + STEP); i++) work(i);
  }
}
