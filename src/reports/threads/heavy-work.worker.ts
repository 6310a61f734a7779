/**
 * The entry point of a heavy-work thread (reports/threads/heavy-work.ts): each export is a task, run by name.
 * Plain functions of their input: no database, no clock, no state between tasks.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { processUploadBytes as process } from '../upload/process-upload.js';
import { ownedBuffers } from './heavy-work.js';

export { assembleDetailBody, buildDetailBody } from '../answer/detail-body.js';

/**
 * upload/process-upload.ts's outcome, its large byte arrays moved to the event loop's thread rather
 * than copied (piscina's Transferable).
 */
export function processUploadBytes(bytes: Uint8Array) {
  const outcome = process(bytes);
  if (outcome.kind !== 'processed') return outcome;
  const { resultsBr, issues, detail } = outcome.upload;
  const moved = ownedBuffers([resultsBr, issues.severityRanks, ...(detail ? [detail.resultsBytes, detail.changeAt] : [])]);
  return move({
    get [transferableSymbol]() {
      return moved;
    },
    get [valueSymbol]() {
      return outcome;
    },
  });
}

import type { ResultsColumns } from '../results/results-encoding.js';
import { sarifSourcesOf } from '../export/sarif-sources.js';
import { suppressedPageOf } from '../results/suppressed-issues.js';
import type { SuppressionType } from '../vocabulary.js';

/** sarif-sources.ts's help of each analyzer (as entries: a Map crosses threads as one anyway) and suppressed issues. */
export function sarifSourceEntries({ stored, analyzerIds }: { stored: ResultsColumns; analyzerIds: string[] }) {
  const { help, suppressed } = sarifSourcesOf(stored, analyzerIds);
  return { help: [...help], suppressed };
}

/** E8.6: a page of the suppressed issues (results/suppressed-issues.ts). */
export function suppressedPage({
  stored,
  query,
}: {
  stored: ResultsColumns;
  query: { type?: SuppressionType; offset: number; limit: number };
}) {
  return suppressedPageOf(stored, query);
}
