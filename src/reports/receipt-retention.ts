import { retentionByAge } from '../jobs/retention.js';
import { createUploadReceipts } from './store/upload-receipts.js';

/**
 * D40's receipts are needed for a day only (an older one is taken over by the next identical
 * upload anyway); `startReceiptRetention` deletes them hourly so the table stays a day's uploads.
 */
export const { prune: pruneUploadReceipts, start: startReceiptRetention } = retentionByAge({
  name: 'upload receipt retention run',
  message: 'deleted upload receipts older than a day',
  deleteBatch: (db, cutoff, size) => createUploadReceipts(db).deleteBefore(cutoff, size),
});
