import { describeAnalyzer } from '../results/analyzer-catalogue.js';
import { storableText } from '../../wire/storable-text.js';
import { fingerprintIssues, targetLineText } from './fingerprint.js';
import type { StoredResult } from '../results/stored-result.js';
import { type ChangeKind, SEVERITIES, type Severity } from '../vocabulary.js';

export { CHANGE_KINDS, type ChangeKind } from '../vocabulary.js';

/** E1.4/E1.5: what an issue of a report is, against the report's baseline (null: no baseline). */
export type IssueChange = 'new' | 'unchanged' | null;

/** A report's issue changes as small integers, to cross threads in a byte array (detail-body.ts). */
export const CHANGE_CODES: readonly IssueChange[] = [null, 'new', 'unchanged'];

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
  /** The issue's place among the report's issues as uploaded; null on a fixed row. */
  position: number | null;
}

/** What the report detail shows of each issue beside what the client sent (E1.5), in upload order. */
export interface IssueMark {
  fingerprint: string;
  change: IssueChange;
}

export interface ChangeCounts {
  new: number;
  fixed: number;
  unchanged: number;
}

/**
 * What a comparison needs of the baseline (E1.4): the fingerprints of all its issues, and the full
 * records only of those the report no longer has (its `fixed` rows). Reading only fingerprints
 * keeps a 3,000-issue baseline cheap when, as usual, most issues are unchanged.
 */
export interface BaselineIssues {
  fingerprints: readonly string[];
  /** The baseline's issues whose fingerprints `missingFromReport` named. */
  gone: readonly IssueRecord[];
}

/** The baseline fingerprints that the report's issues do not have: its fixed issues (E1.4). */
export function missingFromReport(baselineFingerprints: readonly string[], issues: readonly IssueRecord[]): string[] {
  const now = new Set(issues.map((issue) => issue.fingerprint));
  return baselineFingerprints.filter((fingerprint) => !now.has(fingerprint));
}

/**
 * E1.2: fingerprints every issue of `results` (suppressed issues are not issues: they get none).
 * Returns the report's issues in upload order.
 */
export function fingerprintResults(results: readonly StoredResult[]): IssueRecord[] {
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
  // The fingerprints are of the text as sent; the rows, in text columns, hold it storable (a NUL
  // would be a 500 on PostgreSQL): the detail shows what was sent, the changes list and exports this.
  return flat.map(({ result, analyzer, issue }, index) => {
    return {
      fingerprint: fingerprints[index]!,
      analyzer_id: storableText(result.analyzer_id),
      analyzer_name: storableText(analyzer.name),
      category: analyzer.category === null ? null : storableText(analyzer.category),
      severity: issue.severity,
      message: storableText(issue.message),
      file: issue.location ? storableText(issue.location.file) : null,
      line: columnInteger(issue.location?.line),
      column_number: columnInteger(issue.location?.column),
    };
  });
}

/**
 * E1.4: the report's issues (in upload order) against its baseline's (null: no baseline). Each
 * issue is new or unchanged, and the baseline's issues the report no longer has (`baseline.gone`)
 * come back as `fixed` rows; the counts are null without a baseline.
 */
export function compareWithBaseline(
  issues: readonly IssueRecord[],
  baseline: BaselineIssues | null,
): { rows: IssueRow[]; counts: ChangeCounts | null } {
  const before = baseline === null ? null : new Set(baseline.fingerprints);
  const rows: IssueRow[] = [];
  let unchanged = 0;
  issues.forEach((issue, position) => {
    const change: IssueChange = before === null ? null : before.has(issue.fingerprint) ? 'unchanged' : 'new';
    if (change === 'unchanged') unchanged++;
    rows.push(issueRow(issue, change, position));
  });
  if (baseline === null) return { rows, counts: null };
  for (const issue of baseline.gone) rows.push(issueRow(issue, 'fixed', null));
  return { rows, counts: { new: issues.length - unchanged, fixed: baseline.gone.length, unchanged } };
}

/** The rank `report_issues` stores with a change, for the changes list's order (E1.6). */
export function changeRank(change: ChangeKind | null): number {
  return CHANGE_RANK[change ?? 'none'];
}

/** The largest value an `integer` column holds on PostgreSQL (and the SQL standard). */
const INTEGER_COLUMN_MAX = 2_147_483_647;

/**
 * A line or column for `report_issues`: the client's JSON may carry any integer (`1e308` is one),
 * which the detail shows as sent; a row keeps only what an integer column holds, else none.
 */
function columnInteger(value: number | undefined): number | null {
  return value !== undefined && value <= INTEGER_COLUMN_MAX ? value : null;
}

/** Field by field: spreading thousands of records (`{...issue}`) took most of the comparison's time in an upload's profile. */
export function issueRow(issue: IssueRecord, change: ChangeKind | null, position: number | null): IssueRow {
  return {
    fingerprint: issue.fingerprint,
    analyzer_id: issue.analyzer_id,
    analyzer_name: issue.analyzer_name,
    category: issue.category,
    severity: issue.severity,
    message: issue.message,
    file: issue.file,
    line: issue.line,
    column_number: issue.column_number,
    change,
    change_rank: CHANGE_RANK[change ?? 'none'],
    severity_rank: SEVERITY_RANK[issue.severity],
    position,
  };
}
