import { isHttpUrl } from '../../wire/validation.js';
import type { StoredResult } from '../results/stored-result.js';
import type { ExportAnalyzer } from './export-rows.js';

/**
 * E3 "rules: the analyzers present (id, name, category, help text when known)". The analyzer
 * catalogue (resources/analyzers.json) has names and categories but no descriptions; the help text
 * is what the client itself sent about each analyzer, `results[].metadata.description` and
 * `docsUrl` (CLIENT-WIRE.md), kept in the report's stored results. An analyzer the client did not
 * describe gets no help: nothing is made up.
 */
export interface AnalyzerHelp {
  description: string | null;
  docsUrl: string | null;
}

/**
 * The help of each analyzer in `wanted`, from the report's decoded results. The parsed
 * results are dropped once the export has what it needs (sarif-sources.ts): only these few strings
 * are kept while the export streams.
 */
export function analyzerHelpOf(results: readonly StoredResult[], analyzerIds: readonly string[]): Map<string, AnalyzerHelp> {
  const help = new Map<string, AnalyzerHelp>();
  const wanted = new Set(analyzerIds);
  if (wanted.size === 0) return help;
  for (const result of results) {
    if (!wanted.has(result.analyzer_id)) continue;
    const known = help.get(result.analyzer_id);
    // An analyzer run twice in one upload: the first description it was given wins.
    help.set(result.analyzer_id, {
      description: known?.description ?? nonEmptyText(result.metadata?.description),
      docsUrl: known?.docsUrl ?? helpUri(result.metadata?.docsUrl),
    });
  }
  return help;
}

/** A SARIF `reportingDescriptor` for one analyzer. */
export function sarifRule(analyzer: ExportAnalyzer, help: AnalyzerHelp | undefined) {
  const description = help?.description ?? null;
  const docsUrl = help?.docsUrl ?? null;
  return {
    id: analyzer.analyzer_id,
    name: analyzer.analyzer_name,
    shortDescription: { text: analyzer.analyzer_name },
    ...(description !== null && { fullDescription: { text: description }, help: { text: description } }),
    ...(docsUrl !== null && { helpUri: docsUrl }),
    // Tags are how code-scanning UIs filter rules; the category is the one we know.
    ...(analyzer.category !== null && { properties: { category: analyzer.category, tags: [analyzer.category] } }),
  };
}

function nonEmptyText(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * `helpUri` must be an absolute URI (`format: uri`): an http(s) URL as D24 accepts them, written
 * with the host as WHATWG serialises it and every other character RFC 3986 does not allow (WHATWG
 * leaves `|`, `^`, `[`... in paths) percent-encoded. Anything else is left out.
 */
function helpUri(value: unknown): string | null {
  if (typeof value !== 'string' || !isHttpUrl(value.trim())) return null;
  const url = new URL(value.trim());
  const rest = `${url.pathname}${url.search}${url.hash}`.replace(/[^A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]/g, (character) =>
    encodeURIComponent(character),
  );
  return `${url.protocol}//${url.host}${rest}`;
}
