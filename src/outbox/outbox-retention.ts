import { retentionByAge } from '../jobs/retention.js';
import { createOutboxQueue } from './outbox-queue.js';

/**
 * The outbox's done messages go after WEBHOOK_DELIVERY_RETENTION_DAYS, as webhook deliveries do
 * (they are the same kind of record: what was sent where, and how it went); pending ones stay.
 * `startOutboxRetention` runs it shortly after start, then hourly, until the returned function is called.
 */
export const { prune: pruneOutbox, start: startOutboxRetention } = retentionByAge({
  name: 'outbox retention run',
  message: 'deleted outbox messages past their retention',
  deleteBatch: (db, cutoff, size) => createOutboxQueue(db).deleteDoneBefore(cutoff, size),
});
