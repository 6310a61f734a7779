import { retentionByAge } from '../jobs/retention.js';

/**
 * `notification_events` only has to outlive what could write an event's emails again: a fan-out
 * attempt made again after its claim expired (minutes), a digest looked for during its day. A
 * month is far past both; `startNotificationEventRetention` runs hourly until stopped.
 */
export const NOTIFICATION_EVENT_RETENTION_DAYS = 30;

export const { prune: pruneNotificationEvents, start: startNotificationEventRetention } = retentionByAge({
  name: 'notification event retention run',
  message: 'deleted notification events past their retention',
  deleteBatch: async (db, cutoff, size) => {
    const batch = db
      .selectFrom('notification_events')
      .select('event_key')
      .where('created_at', '<', cutoff)
      .orderBy('created_at')
      .limit(size);
    const result = await db.deleteFrom('notification_events').where('event_key', 'in', batch).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
});
