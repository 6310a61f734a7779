/**
 * The entry point of a heavy-work thread (reports/heavy-work.ts): each export is a task, run by name.
 * Plain functions of their input: no database, no clock, no state between tasks.
 */
export { assembleDetailBody, buildDetailBody } from './detail-body.js';
export { processUploadBytes } from './upload-processing.js';

import type { ResultsColumns } from './stored-results.js';
import { analyzerHelpOf } from './export/sarif-rules.js';

/** sarif-rules.ts's help of each analyzer, as entries: a Map crosses threads as one anyway. */
export function analyzerHelpEntries({ stored, analyzerIds }: { stored: ResultsColumns; analyzerIds: string[] }) {
  return [...analyzerHelpOf(stored, analyzerIds)];
}
