import { retentionByAge } from '../jobs/retention.js';
import { createWebhooksRepository } from './webhooks.repository.js';

/**
 * WEBHOOK_DELIVERY_RETENTION_DAYS. `pruneWebhookDeliveries` deletes the deliveries created before
 * the retention that are done (succeeded or failed), oldest first, in batches (the delivery worker's
 * claims never wait long behind one), and returns how many went. A pending one is kept whatever its
 * age (it is still to be attempted), and so is each webhook's newest delivery, which its
 * `last_delivery` shows. Safe with several instances at once, like the audit's.
 * `startDeliveryRetention` runs it shortly after start, then hourly (jobs/retention.ts), until the
 * returned function is called.
 */
export const { prune: pruneWebhookDeliveries, start: startDeliveryRetention } = retentionByAge({
  name: 'webhook delivery retention run',
  message: 'deleted webhook deliveries past their retention',
  deleteBatch: (db, cutoff, size) => createWebhooksRepository(db).deleteDoneDeliveriesBefore(cutoff, size),
});
