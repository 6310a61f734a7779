import type { ReportsTable } from '../../db/schema.js';
import type { ResultStatus, Severity } from '../vocabulary.js';
import type { StoredResult } from './stored-result.js';

type StatusCount = 'passed' | 'failed' | 'warnings' | 'skipped' | 'errors';

/** A report's counts, as its columns of `reports` hold them but for the issues per severity. */
export type ReportCounts = Pick<ReportsTable, 'score' | 'total' | StatusCount | 'total_issues'> & {
  issues_by_severity: Record<Severity, number>;
};

/** The count a result of each status adds one to. */
const COUNT_OF_STATUS: Readonly<Record<ResultStatus, StatusCount>> = {
  passed: 'passed',
  failed: 'failed',
  warning: 'warnings',
  skipped: 'skipped',
  error: 'errors',
};

/**
 * The summary of a report, recomputed from its results: the results are the truth, the client's
 * own `summary` is never trusted (CLIENT-WIRE.md). Suppressed issues are not issues.
 */
export function summarizeResults(results: readonly StoredResult[]): ReportCounts {
  const counts: ReportCounts = {
    score: 0,
    total: results.length,
    passed: 0,
    failed: 0,
    warnings: 0,
    skipped: 0,
    errors: 0,
    total_issues: 0,
    issues_by_severity: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
  };
  for (const result of results) {
    // A status outside the vocabulary (the upload's schema lets none through) adds to no count.
    if (Object.hasOwn(COUNT_OF_STATUS, result.status)) counts[COUNT_OF_STATUS[result.status]] += 1;
    for (const issue of result.issues) counts.issues_by_severity[issue.severity] += 1;
    counts.total_issues += result.issues.length;
  }
  counts.score = score(counts.passed, counts.total, counts.skipped);
  return counts;
}

/**
 * The client's formula: round(100 * passed / (total - skipped)), and 100 when nothing ran.
 * PHP's round() rounds halves away from zero; for these non-negative values Math.round agrees.
 */
export function score(passed: number, total: number, skipped: number): number {
  const ran = total - skipped;
  return ran === 0 ? 100 : Math.round((100 * passed) / ran);
}
