import { retentionByAge } from '../jobs/retention.js';
import { createAuditRepository } from './audit.repository.js';

/**
 * E5 / AUDIT_RETENTION_DAYS. `pruneAuditEvents` deletes the events older than the retention, oldest
 * first, in batches, and returns how many went. Safe with several instances running it at once:
 * each batch deletes what is still there and older than the cut, so two runs share the work and none
 * fails. `startAuditRetention` runs it shortly after start, then every hour (jobs/retention.ts),
 * until the returned function is called.
 */
export const { prune: pruneAuditEvents, start: startAuditRetention } = retentionByAge({
  name: 'audit retention run',
  message: 'deleted audit events past their retention',
  deleteBatch: (db, cutoff, size) => createAuditRepository(db).deleteOlderThan(cutoff, size),
});
