import { readFileSync } from 'node:fs';
import type { StoredResult } from './stored-result.js';

interface CatalogueEntry {
  id: string;
  name: string;
  category: string;
}

// The analyzers the client package runs (shared/data/analyzers.json). Read from the repository's
// resources/ folder, which sits three levels above both src/reports/results/ and dist/reports/results/.
const catalogue: ReadonlyMap<string, CatalogueEntry> = new Map(
  (JSON.parse(readFileSync(new URL('../../../resources/analyzers.json', import.meta.url), 'utf8')) as CatalogueEntry[]).map((entry) => [
    entry.id,
    entry,
  ]),
);

/**
 * The display name and category of a result's analyzer: the analyzer's own description as the
 * client sent it in the result's `metadata`, else the catalogue, else (an analyzer the catalogue
 * does not know) a name derived from the id and no category.
 */
export function describeAnalyzer(result: Pick<StoredResult, 'analyzer_id' | 'metadata'>): {
  name: string;
  category: string | null;
} {
  const known = catalogue.get(result.analyzer_id);
  return {
    name: nonEmptyString(result.metadata.name) ?? known?.name ?? nameFromId(result.analyzer_id),
    category: nonEmptyString(result.metadata.category) ?? known?.category ?? null,
  };
}

/** `custom-analyzer` -> `Custom Analyzer`. */
export function nameFromId(id: string): string {
  const words = id.split(/[-_\s]+/).filter((word) => word !== '');
  return words.length === 0 ? id : words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join(' ');
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}
