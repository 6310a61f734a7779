import type { Severity, SuppressionType } from '../vocabulary.js';
import { describeAnalyzer } from './analyzer-catalogue.js';
import { decodeResults, type ResultsColumns } from './results-encoding.js';
import type { StoredIssue, StoredResult } from './stored-result.js';

/**
 * E8.6: an issue the client package suppressed (CLIENT-WIRE.md `results[].suppressed_issues`), as
 * the suppressed list and the SARIF export show it: its analyzer, what it says and where, and the
 * suppression's type and description as the client sent them. The upload takes any object as a
 * suppression: a type or description that is not text reads null, a type outside the three is
 * kept as sent (it is listed, and matches no `?type=` filter).
 */
export interface SuppressedItem {
  analyzer_id: string;
  analyzer_name: string;
  category: string | null;
  severity: Severity;
  message: string;
  location: { file: string; line?: number; column?: number } | null;
  suppression: { type: string | null; description: string | null };
}

/** A report's suppressed issues in upload order, result by result; those of `type` only when given. */
export function suppressedItemsOf(results: readonly StoredResult[], type?: SuppressionType): SuppressedItem[] {
  const items: SuppressedItem[] = [];
  for (const result of results) {
    if (result.suppressed_issues.length === 0) continue;
    const analyzer = describeAnalyzer(result);
    for (const issue of result.suppressed_issues) {
      const suppression = {
        type: textOrNull(issue.suppression.type),
        description: textOrNull(issue.suppression.description),
      };
      if (type !== undefined && suppression.type !== type) continue;
      items.push({
        analyzer_id: result.analyzer_id,
        analyzer_name: analyzer.name,
        category: analyzer.category,
        severity: issue.severity,
        message: issue.message,
        location: locationOf(issue.location),
        suppression,
      });
    }
  }
  return items;
}

/**
 * One page of a report's suppressed issues (`offset`, `limit`), and how many there are, read from
 * its stored results. The results are decoded whole for each page: they are stored as one
 * Brotli-compressed JSON text (results-encoding.ts), and a 4 MB report's text takes some 40 ms to
 * decompress and parse (measured with 2,000 issues and 2,000 suppressed ones; the page itself is
 * under 1 ms), which the caller runs on a heavy-work thread when the report is large (D28).
 */
export function suppressedPageOf(
  stored: ResultsColumns,
  query: { type?: SuppressionType; offset: number; limit: number },
): { total: number; items: SuppressedItem[] } {
  const items = suppressedItemsOf(decodeResults(stored), query.type);
  return { total: items.length, items: items.slice(query.offset, query.offset + query.limit) };
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/**
 * A location as the answers' schema has it (line and column from 1 on). Reports stored before
 * uploads dropped an infinite line (`1e309`) hold it as null: it is left out.
 */
function locationOf(location: StoredIssue['location']): SuppressedItem['location'] {
  if (location === null) return null;
  return {
    file: location.file,
    ...(location.line != null && { line: location.line }),
    ...(location.column != null && { column: location.column }),
  };
}
