import { decodeResults, type ResultsColumns } from '../results/results-encoding.js';
import { suppressedItemsOf, type SuppressedItem } from '../results/suppressed-issues.js';
import type { ExportAnalyzer } from './export-rows.js';
import { analyzerHelpOf, type AnalyzerHelp } from './sarif-rules.js';

/**
 * What a SARIF export reads of a report's stored results, decoded once (on a thread when they are
 * large, D28): the help text of its analyzers and (E8.7) the issues the client suppressed, which
 * the log lists as suppressed results after the report's own issues. The suppressed issues are
 * held while the export streams, without their recommendations and code snippets (about an eighth
 * of their stored text, measured: 0.47 MB for 2,000 of them in a 4.3 MB report).
 */
export interface SarifSources {
  help: Map<string, AnalyzerHelp>;
  suppressed: SuppressedItem[];
}

/** The help of `analyzerIds` and of the suppressed issues' analyzers, and the suppressed issues in upload order. */
export function sarifSourcesOf(stored: ResultsColumns, analyzerIds: readonly string[]): SarifSources {
  const results = decodeResults(stored);
  const suppressed = suppressedItemsOf(results);
  return { help: analyzerHelpOf(results, [...analyzerIds, ...suppressed.map((item) => item.analyzer_id)]), suppressed };
}

/**
 * The rules of a log: the analyzers of the report's issues, then those that only suppressed
 * issues have, each described by its first suppressed issue, in upload order.
 */
export function analyzersWithSuppressed(analyzers: readonly ExportAnalyzer[], suppressed: readonly SuppressedItem[]): ExportAnalyzer[] {
  const all = [...analyzers];
  const known = new Set(analyzers.map((analyzer) => analyzer.analyzer_id));
  for (const item of suppressed) {
    if (known.has(item.analyzer_id)) continue;
    known.add(item.analyzer_id);
    all.push({ analyzer_id: item.analyzer_id, analyzer_name: item.analyzer_name, category: item.category });
  }
  return all;
}
