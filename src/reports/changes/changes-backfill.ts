import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { changeColumns, recordChanges } from './baseline-comparison.js';
import { decodeResults } from '../results/results-encoding.js';
import { createReportStore } from '../store/report-store.js';

/** Reports per transaction: a crash loses at most this much work, and a re-run picks up the rest. */
const BATCH = 50;

/**
 * Migration 0004's data step (run after the migrations, see migrations/index.ts): fingerprints, git context, baselines and changes for the reports
 * stored before E1, project by project in D19's order (so every baseline is done before the reports
 * compared with it). Each report is claimed by setting `fingerprinted_at` in the batch's transaction:
 * a report already done is skipped, and of two instances starting at once the second waits for the
 * first's claim (a row lock on PostgreSQL, the single writer on SQLite) and then skips it. A report's
 * issue rows are replaced, not added to. Safe to run again after an interruption. One report's
 * results are in memory at a time.
 */
export async function backfillChanges(db: Kysely<any>, now: () => string = () => new Date().toISOString()): Promise<number> {
  let done = 0;
  for (;;) {
    const batch = await (db as Db)
      .selectFrom('reports')
      .select(['id', 'project_id', 'analyzed_at'])
      .where('fingerprinted_at', 'is', null)
      .orderBy('project_id')
      .orderBy('analyzed_at')
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (batch.length === 0) return done;
    await (db as Db).transaction().execute(async (trx) => {
      const reports = createReportStore(trx);
      for (const { id, project_id, analyzed_at } of batch) {
        const claimed = await trx
          .updateTable('reports')
          .set({ fingerprinted_at: now() })
          .where('id', '=', id)
          .where('fingerprinted_at', 'is', null)
          .executeTakeFirst();
        if (claimed.numUpdatedRows === 0n) continue;
        const stored = await trx
          .selectFrom('reports')
          .select(['results', 'results_br', 'metadata'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const results = decodeResults(stored);
        const metadata = JSON.parse(stored.metadata) as Record<string, unknown>;
        const changes = await recordChanges(reports, { projectId: project_id, results, metadata, analyzedAt: analyzed_at, id });
        await reports.deleteIssues(id);
        // Its answer (D28) shows the changes only now recorded: the next read builds it again.
        await reports.forgetBodies([id]);
        await reports.insertIssues(id, changes.rows);
        await trx.updateTable('reports').set(changeColumns(changes)).where('id', '=', id).execute();
      }
    });
    done += batch.length;
  }
}
