import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../db/database.js';
import { lockForUpdate } from '../db/dialect.js';
import { daysAgo, type RetentionJobDeps, startRetentionJob } from '../jobs/retention.js';
import type { RetentionRule } from './store/report-rows.js';
import { createReportStore } from './store/report-store.js';

/**
 * Reports per transaction. Each takes its issues with it (thousands of rows for a large report), so
 * batches stay small: the project stays locked, and other writers wait, only that long.
 */
const BATCH = 50;

export interface ReportRetention {
  /** Reports stored (created_at, the service's clock) more than this many days ago are deleted. */
  readonly days?: number;
  /** A project's reports beyond its this-many newest (D19's order) are deleted. */
  readonly keep?: number;
}

/**
 * REPORT_RETENTION_DAYS / REPORT_RETENTION_KEEP: deletes the reports past the retention, project by
 * project, oldest first, and returns how many went. Never the project's latest report, nor the
 * baseline of that report (its changes list still reads the baseline's issues).
 *
 * Safe with several instances at once: each batch is a transaction that locks its project (as an
 * upload or a deletion through the API does) and chooses its reports inside the lock, so two runs
 * share the work, never delete a report the other has made latest meanwhile, and none fails.
 * A deleted report is deleted as through the API (D11, D19): its issues and stored answer go with
 * it, the answers of the reports that had it as baseline are forgotten (they show none now, E1.4).
 * No audit event: E5 records changes made by users and the operator, and this is neither.
 */
export async function pruneReports(deps: { db: Db; clock: Clock; retention: ReportRetention }): Promise<number> {
  const { days, keep } = deps.retention;
  if (days === undefined && keep === undefined) return 0;
  const rule: RetentionRule = {
    cutoff: days === undefined ? undefined : daysAgo(deps.clock, days),
    keep,
  };
  const reports = createReportStore(deps.db);
  const projects = new Set<string>();
  if (rule.cutoff !== undefined) for (const id of await reports.projectsStoredBefore(rule.cutoff)) projects.add(id);
  if (rule.keep !== undefined) for (const id of await reports.projectsWithMoreReportsThan(rule.keep)) projects.add(id);

  let deleted = 0;
  for (const projectId of projects) {
    for (;;) {
      const batch = await pruneBatch(deps.db, projectId, rule);
      deleted += batch.deleted;
      if (batch.chosen < BATCH) break;
    }
  }
  return deleted;
}

/** One transaction: up to BATCH of the project's reports past the retention, chosen and deleted under its lock. */
async function pruneBatch(db: Db, projectId: string, rule: RetentionRule): Promise<{ chosen: number; deleted: number }> {
  return inTransaction(db, async (trx) => {
    await lockForUpdate(trx, 'projects', projectId);
    const reports = createReportStore(trx);
    const kept = await reports.keptByRetention(projectId);
    if (kept === undefined) return { chosen: 0, deleted: 0 }; // the project was deleted meanwhile
    const doomed = await reports.pastRetention(projectId, rule, kept, BATCH);
    if (doomed.length === 0) return { chosen: 0, deleted: 0 };
    return { chosen: doomed.length, deleted: await reports.deleteReports(projectId, doomed) };
  });
}

/**
 * Runs `pruneReports` shortly after start, then every hour (jobs/retention.ts), until the
 * returned function is called; nothing when no retention is configured.
 */
export function startReportRetention(deps: RetentionJobDeps & { retention: ReportRetention }): () => void {
  if (deps.retention.days === undefined && deps.retention.keep === undefined) return () => {};
  return startRetentionJob(deps, {
    name: 'report retention run',
    prune: () => pruneReports(deps),
    message: 'deleted reports past their retention',
    fields: { retention: deps.retention },
  });
}
