import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { StoredResult } from './stored-result.js';

/**
 * How a report's results are kept in its row (migration 0006): the JSON, Brotli-compressed at
 * quality 1 into `results_br`, with `results` left empty. Quality 1 compresses the 4 MB of a
 * 4,000-issue run to about 6 % in some 10 ms; the writes it saves cost more. Reports stored before
 * 0006 have their JSON in `results` and no `results_br`.
 */
export interface ResultsColumns {
  results: string;
  results_br: Buffer | null;
}

export function encodeResults(results: readonly StoredResult[]): ResultsColumns {
  return encodeResultsJson(JSON.stringify(results));
}

/** `encodeResults` of results already serialised (`JSON.stringify`). */
export function encodeResultsJson(json: string): ResultsColumns {
  return {
    results: '',
    results_br: brotliCompressSync(json, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 1,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(json),
      },
    }),
  };
}

export function decodeResults(row: ResultsColumns): StoredResult[] {
  const json = row.results_br === null ? row.results : brotliDecompressSync(row.results_br).toString('utf8');
  return JSON.parse(json) as StoredResult[];
}
