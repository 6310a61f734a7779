import { describeAnalyzer } from './analyzer-catalogue.js';
import { fingerprintIssues, targetLineText } from './fingerprint.js';
import type { StoredResult } from './report-results.js';
import { SEVERITIES, type Severity } from './vocabulary.js';

/** E1.4/E1.5: what an issue of a report is, against the report's baseline (null: no baseline). */
export type IssueChange = 'new' | 'unchanged' | null;

/** The kinds the changes endpoint lists (E1.6), in its order: new, then fixed, then unchanged. */
export const CHANGE_KINDS = ['new', 'fixed', 'unchanged'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** Sort ranks stored with each row, so the database orders the changes list (E1.6). */
const CHANGE_RANK: Record<ChangeKind | 'none', number> = { new: 0, fixed: 1, unchanged: 2, none: 3 };
const SEVERITY_RANK = Object.fromEntries(SEVERITIES.map((severity, rank) => [severity, rank])) as Record<Severity, number>;

/** One issue of a report as the changes list and the next report's comparison read it. */
export interface IssueRecord {
  fingerprint: string;
  analyzer_id: string;
  analyzer_name: string;
  category: string | null;
  severity: Severity;
  message: string;
  file: string | null;
  line: number | null;
  column_number: number | null;
}

/** A row of `report_issues`: an issue of the report, or (change `fixed`) one of its baseline's that it no longer has. */
export interface IssueRow extends IssueRecord {
  change: ChangeKind | null;
  change_rank: number;
  severity_rank: number;
}

export interface ChangeCounts {
  new: number;
  fixed: number;
  unchanged: number;
}

/**
 * E1.2: fingerprints every issue of `results` (suppressed issues are not issues: they get none) and
 * writes each into its stored issue, so the report detail shows it. Returns the report's issues in
 * upload order.
 */
export function fingerprintResults(results: StoredResult[]): IssueRecord[] {
  const flat = results.flatMap((result) => {
    const analyzer = describeAnalyzer(result);
    return result.issues.map((issue) => ({ result, analyzer, issue }));
  });
  const fingerprints = fingerprintIssues(
    flat.map(({ result, issue }) => ({
      analyzerId: result.analyzer_id,
      file: issue.location?.file ?? null,
      message: issue.message,
      targetLineText: targetLineText(issue.code_snippet),
      line: issue.location?.line ?? null,
    })),
  );
  return flat.map(({ result, analyzer, issue }, index) => {
    issue.fingerprint = fingerprints[index]!;
    return {
      fingerprint: fingerprints[index]!,
      analyzer_id: result.analyzer_id,
      analyzer_name: analyzer.name,
      category: analyzer.category,
      severity: issue.severity,
      message: issue.message,
      file: issue.location?.file ?? null,
      line: issue.location?.line ?? null,
      column_number: issue.location?.column ?? null,
    };
  });
}

/**
 * E1.4: the report's issues against its baseline's (null: no baseline). Each issue is new or
 * unchanged, and the baseline's issues the report no longer has come back as `fixed` rows; the
 * counts are null without a baseline. The change of each issue is written into the stored results
 * too (`results`, as fingerprinted), for the report detail (E1.5).
 */
export function compareWithBaseline(
  results: StoredResult[],
  issues: readonly IssueRecord[],
  baseline: readonly IssueRecord[] | null,
): { rows: IssueRow[]; counts: ChangeCounts | null } {
  const before = baseline === null ? null : new Set(baseline.map((issue) => issue.fingerprint));
  const now = new Set(issues.map((issue) => issue.fingerprint));
  const changeOf = (fingerprint: string): IssueChange => (before === null ? null : before.has(fingerprint) ? 'unchanged' : 'new');

  for (const result of results) for (const issue of result.issues) issue.change = changeOf(issue.fingerprint!);

  const rows: IssueRow[] = issues.map((issue) => row(issue, changeOf(issue.fingerprint)));
  const fixed = baseline === null ? [] : baseline.filter((issue) => !now.has(issue.fingerprint)).map((issue) => row(issue, 'fixed'));
  rows.push(...fixed);
  if (before === null) return { rows, counts: null };
  const unchanged = issues.filter((issue) => before.has(issue.fingerprint)).length;
  return { rows, counts: { new: issues.length - unchanged, fixed: fixed.length, unchanged } };
}

function row(issue: IssueRecord, change: ChangeKind | null): IssueRow {
  return { ...issue, change, change_rank: CHANGE_RANK[change ?? 'none'], severity_rank: SEVERITY_RANK[issue.severity] };
}
