import { describeAnalyzer } from '../results/analyzer-catalogue.js';
import { fingerprintResults, type IssueMark } from '../changes/issue-changes.js';
import type { StoredIssue, StoredResult } from '../results/stored-result.js';
import { decodeResults, type ResultsColumns } from '../results/results-encoding.js';
import { toReportListItem, type ReportRow } from '../store/report-rows.js';
import type { ReportDetail, ReportResultTemplate } from '../reports.schemas.js';

/**
 * `GET /api/v1/reports/{report}`: the summary fields, the run's context and every result with its
 * analyzer's name and category (from the result's own metadata, else the catalogue). `marks` are
 * the fingerprint and change of each issue in upload order, as `report_issues` stores them; null
 * for a report stored before E1 that the back-fill has not reached yet (another instance may still
 * be running it): its fingerprints are computed here, the same as the back-fill will store them,
 * and it has no baseline yet. Null when the marks are fewer than the issues: the report was deleted
 * after `row` was read, and its issue rows with it.
 */
export function toReportDetail(row: ReportRow, stored: ResultsColumns, marks: readonly IssueMark[] | null): DetailWithoutStates | null {
  const results = decodeResults(stored);
  const issueMarks = marks ?? fingerprintResults(results).map((issue) => ({ fingerprint: issue.fingerprint, change: null }));
  if (issueMarks.length < results.reduce((count, result) => count + result.issues.length, 0)) return null;
  return { ...detailHead(row, suppressedCounts(results)), results: detailResults(results, issueMarks) };
}

export type SuppressedCounts = ReportDetail['suppressed_issues'];

/** The detail with its issues' marks but not their states (E8.3), which the stored answer writes in apart (detail-body.ts). */
export type DetailWithoutStates = Omit<ReportDetail, 'results'> & { results: ReportResultTemplate[] };

/** The detail but its results: the row's fields and the suppressed issues' counts. */
export function detailHead(row: ReportRow, suppressed: SuppressedCounts): Omit<ReportDetail, 'results'> {
  return {
    ...toReportListItem(row),
    project_id: row.project_id,
    pro_package_version: row.pro_package_version,
    suppressed_issues: suppressed,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    configuration: row.configuration === null ? {} : (JSON.parse(row.configuration) as Record<string, unknown>),
  };
}

export function suppressedCounts(results: readonly StoredResult[]): SuppressedCounts {
  const suppressed = { inline: 0, config: 0, baseline: 0, total: 0 };
  for (const result of results) {
    for (const issue of result.suppressed_issues) {
      const type = issue.suppression.type;
      if (type === 'inline' || type === 'config' || type === 'baseline') suppressed[type] += 1;
      suppressed.total += 1;
    }
  }
  return suppressed;
}

/**
 * The detail's results, each issue with its mark. A mark's change may be any text here: the stored
 * answer is serialised with a placeholder first, its changes and states written in afterwards (detail-body.ts).
 */
export function detailResults(
  results: readonly StoredResult[],
  marks: readonly { fingerprint: string; change: string | null }[],
): ReportResultTemplate[] {
  let next = 0;
  return results.map((result) => {
    const analyzer = describeAnalyzer(result);
    return {
      analyzer_id: result.analyzer_id,
      analyzer_name: analyzer.name,
      category: analyzer.category,
      status: result.status,
      message: result.message,
      execution_time: result.execution_time,
      issues: result.issues.map((issue) => ({ ...toIssue(issue), ...(marks[next++]! as IssueMark) })),
      suppressed_issues: result.suppressed_issues.map((issue) => ({ ...toIssue(issue), suppression: issue.suppression })),
    };
  });
}

/**
 * A location as the answer's schema has it. Reports stored before uploads dropped an infinite line
 * or column (`1e309`) hold it as null, which the schema does not allow: it is left out, as at upload.
 */
function readableLocation(location: StoredIssue['location']): StoredIssue['location'] {
  if (location === null || ((location.line as unknown) !== null && (location.column as unknown) !== null)) return location;
  const { line, column, ...rest } = location;
  return { ...rest, ...(line != null && { line }), ...(column != null && { column }) };
}

function toIssue(issue: StoredIssue) {
  return {
    message: issue.message,
    severity: issue.severity,
    location: readableLocation(issue.location),
    recommendation: issue.recommendation,
    ...(issue.code_snippet && { code_snippet: issue.code_snippet }),
    ...(issue.metadata && { metadata: issue.metadata }),
  };
}
