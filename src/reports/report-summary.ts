import type { Selectable } from 'kysely';
import type { ReportsTable } from '../db/schema.js';
import type { ReportCounts } from './results/summarize.js';
import type { ReportSummary } from './reports.schemas.js';
import { SEVERITIES, type Severity } from './vocabulary.js';

/*
 * A report's summary (api-v1.md 2.2) in its two forms, written once: the columns of `reports` that
 * hold it, and the API's shape. The repository, the upload, the project list's SQL and the seeds
 * all go through here.
 */

/** The per-severity issue counts' columns, in SEVERITIES' order. */
export const SEVERITY_COLUMNS = SEVERITIES.map((severity) => `issues_${severity}` as const);
type SeverityColumn = `issues_${Severity}`;

/** The summary columns, for `latest_report` and report lists; never the full results. */
export const SUMMARY_COLUMNS = [
  'id',
  'uuid',
  'score',
  'total',
  'passed',
  'failed',
  'warnings',
  'skipped',
  'errors',
  'total_issues',
  ...SEVERITY_COLUMNS,
  'framework_version',
  'package_version',
  'total_execution_time',
  'triggered_by',
  'analyzed_at',
  'created_at',
] as const;

export type ReportSummaryRow = Pick<Selectable<ReportsTable>, (typeof SUMMARY_COLUMNS)[number]>;

/** E1.2: a report summary, from its row. */
export function toReportSummary(row: ReportSummaryRow): ReportSummary {
  return {
    id: row.id,
    uuid: row.uuid,
    score: row.score,
    total: row.total,
    passed: row.passed,
    failed: row.failed,
    warnings: row.warnings,
    skipped: row.skipped,
    errors: row.errors,
    total_issues: row.total_issues,
    issues_by_severity: issuesBySeverityOf(row),
    framework_version: row.framework_version,
    package_version: row.package_version,
    total_execution_time: row.total_execution_time === null ? null : Number(row.total_execution_time),
    triggered_by: row.triggered_by,
    analyzed_at: row.analyzed_at,
    created_at: row.created_at,
  };
}

/** The summary's `issues_by_severity`, from the per-severity columns. */
export function issuesBySeverityOf(row: Pick<Selectable<ReportsTable>, SeverityColumn>): ReportSummary['issues_by_severity'] {
  return { critical: row.issues_critical, high: row.issues_high, medium: row.issues_medium, low: row.issues_low, info: row.issues_info };
}

/** The columns that hold an upload's counts (summarize.ts), as an upload stores them. */
export function countColumnsOf(counts: ReportCounts) {
  const bySeverity = counts.issues_by_severity;
  return {
    score: counts.score,
    total: counts.total,
    passed: counts.passed,
    failed: counts.failed,
    warnings: counts.warnings,
    skipped: counts.skipped,
    errors: counts.errors,
    total_issues: counts.total_issues,
    issues_critical: bySeverity.critical,
    issues_high: bySeverity.high,
    issues_medium: bySeverity.medium,
    issues_low: bySeverity.low,
    issues_info: bySeverity.info,
  } satisfies Partial<Selectable<ReportsTable>>;
}
