import { locationOf } from '../../issues/state-reads.js';
import type { Insertable, Selectable } from 'kysely';
import type { ReportIssuesTable, ReportsTable } from '../../db/schema.js';
import type { ChangeKind } from '../changes/issue-changes.js';
import type { ResultsColumns } from '../results/results-encoding.js';
import { issuesBySeverityOf, SEVERITY_COLUMNS, SUMMARY_COLUMNS, toReportSummary } from '../report-summary.js';
import type { ChangeItem, ReportListItem, StoredGate, TrendPoint } from '../reports.schemas.js';
import type { Severity } from '../vocabulary.js';
import type { IssueState } from '../../issues/issue-state.schemas.js';
import type { IssueStatus, StateFilter } from '../../issues/issue-vocabulary.js';

/*
 * The rows the report store reads and writes, and their mappings to the API's shapes: plain data,
 * no database client, so that an upload thread and the seeds can load them.
 */

export type NewReport = Omit<Selectable<ReportsTable>, 'id'>;

/** What retention deletes (report-retention.ts): reports stored before `cutoff`, and beyond a project's `keep` newest. */
export interface RetentionRule {
  readonly cutoff?: string;
  readonly keep?: number;
}

/**
 * A stored report with its baseline's uuid, time, branch and commit (E1.5); without its results,
 * which only building its answer and its SARIF rules read (`resultsOf`).
 */
export type ReportRow = Omit<Selectable<ReportsTable>, keyof ResultsColumns> & BaselineColumns;

/** Every column of `reports` but the results. */
export const reportRowColumns = [
  ...SUMMARY_COLUMNS,
  'project_id',
  'pro_package_version',
  'metadata',
  'client_summary',
  'configuration',
  'git_branch',
  'git_commit',
  'pull_request',
  'base_branch',
  'baseline_report_id',
  'changes_new',
  'changes_fixed',
  'changes_unchanged',
  'gate',
  'fingerprinted_at',
] as const satisfies readonly (keyof ReportRow)[];

export interface BaselineColumns {
  baseline_uuid: string | null;
  baseline_analyzed_at: string | null;
  baseline_branch: string | null;
  baseline_commit: string | null;
}

export const baselineColumns = [
  'b.uuid as baseline_uuid',
  'b.analyzed_at as baseline_analyzed_at',
  'b.git_branch as baseline_branch',
  'b.git_commit as baseline_commit',
] as const;

/** A report list item's columns (E1.5): the summary, the git context, the gate, the changes. */
export const reportListColumns = [
  ...SUMMARY_COLUMNS,
  'git_branch',
  'git_commit',
  'pull_request',
  'base_branch',
  'gate',
  'changes_new',
  'changes_fixed',
  'changes_unchanged',
] as const;

/** A list item's row: its columns, and its baseline's (E1.5), null when it has none. */
export type ReportListRow = Pick<Selectable<ReportsTable>, (typeof reportListColumns)[number]> & BaselineColumns;

/** A row of the changes list as E1.6 shows it (the location rebuilt from its columns), with its state (E8.3). */
export function toChangeItem(row: ChangeRow, state: IssueState): ChangeItem {
  return {
    fingerprint: row.fingerprint,
    change: row.change,
    analyzer_id: row.analyzer_id,
    analyzer_name: row.analyzer_name,
    category: row.category,
    severity: row.severity,
    message: row.message,
    location: locationOf(row),
    state,
  };
}

export type ChangeRow = Pick<
  Selectable<ReportIssuesTable>,
  'fingerprint' | 'change' | 'analyzer_id' | 'analyzer_name' | 'category' | 'severity' | 'message' | 'file' | 'line' | 'column_number'
>;

/** E1.5: a report list item, from its row. */
export function toReportListItem(row: ReportListRow): ReportListItem {
  return {
    ...toReportSummary(row),
    branch: row.git_branch,
    commit: row.git_commit,
    pull_request: row.pull_request,
    base_branch: row.base_branch,
    gate: row.gate === null ? null : storedGate(row.gate),
    changes: {
      baseline:
        row.baseline_uuid === null
          ? null
          : { uuid: row.baseline_uuid, analyzed_at: row.baseline_analyzed_at!, branch: row.baseline_branch, commit: row.baseline_commit },
      new: row.changes_new,
      fixed: row.changes_fixed,
      unchanged: row.changes_unchanged,
    },
  };
}

/** E1.8's stored gate; one stored before E8.4 has no `dismissed`: nothing was left out then. */
function storedGate(text: string): StoredGate {
  const gate = JSON.parse(text) as Omit<StoredGate, 'dismissed'> & { dismissed?: number };
  return { passed: gate.passed, reasons: gate.reasons, dismissed: gate.dismissed ?? 0 };
}

/** E2.1: a trend point's columns; no results, no baseline join. */
export const trendColumns = [
  'uuid',
  'analyzed_at',
  'git_branch',
  'git_commit',
  'score',
  'total_issues',
  ...SEVERITY_COLUMNS,
  'changes_new',
  'changes_fixed',
  'gate',
] as const;

export type TrendRow = Pick<Selectable<ReportsTable>, (typeof trendColumns)[number]>;

/** E2.1: a trend point, from its row. */
export function toTrendPoint(row: TrendRow): TrendPoint {
  return {
    uuid: row.uuid,
    analyzed_at: row.analyzed_at,
    branch: row.git_branch,
    score: row.score,
    total_issues: row.total_issues,
    issues_by_severity: issuesBySeverityOf(row),
    new: row.changes_new,
    fixed: row.changes_fixed,
    gate_passed: row.gate === null ? null : (JSON.parse(row.gate) as StoredGate).passed,
  };
}

/** The report a new one is compared with (E1.3). */
export interface BaselineCandidate {
  id: number;
  uuid: string;
  analyzed_at: string;
  git_branch: string | null;
  git_commit: string | null;
}

/** What an issue says and where, in this order: its record below and the CSV export (E3) hold these. */
export const ISSUE_FINDING_COLUMNS = ['analyzer_id', 'analyzer_name', 'category', 'severity', 'message', 'file', 'line'] as const;

/** An issue's columns (`IssueRecord`): what the next report's comparison (E1.4), the changes list and the exports read. */
export const ISSUE_RECORD_COLUMNS = ['fingerprint', ...ISSUE_FINDING_COLUMNS, 'column_number'] as const;

/** The columns of `report_issues` an upload writes, in the order of insertIssues' parameters. */
export const ISSUE_COLUMNS = [
  'report_id',
  'change',
  'change_rank',
  'severity_rank',
  ...ISSUE_RECORD_COLUMNS,
  'position',
] as const satisfies readonly (keyof Insertable<ReportIssuesTable>)[];

/** What the changes list (E1.6) may be narrowed to. */
export interface ChangesFilter {
  kind?: ChangeKind;
  severity?: Severity;
  /** E8.3: without a dismissal in force (`open`), or with one, at the time of the request. */
  state?: StateFilter;
}

/** What the project's issue list (E8.2) may be narrowed to. */
export interface ProjectIssuesFilter {
  /** The effective status (an expired acceptance is open; an issue without a state too). */
  status?: IssueStatus;
  severity?: Severity;
  /** A user id, or null: nobody (an issue without a state has no assignee). */
  assignee?: number | null;
}

/** Fingerprints or ids per `in (...)` list. */
export const IDS_PER_LIST = 500;
