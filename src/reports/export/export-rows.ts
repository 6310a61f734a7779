import type { Db } from '../../db/database.js';
import type { IssueChange, IssueRecord } from '../changes/issue-changes.js';
import { ownIssueRows } from '../store/report-reads.js';
import { ISSUE_RECORD_COLUMNS } from '../store/report-rows.js';

/**
 * E3: what an export reads of a report, straight from `report_issues` (E1.2): the report's own
 * issues, never the `fixed` rows it carries from its baseline (those are issues it no longer has).
 */
export interface ExportIssue extends IssueRecord {
  id: number;
  change: IssueChange;
}

/** An analyzer with at least one issue in the report: a SARIF rule. */
export interface ExportAnalyzer {
  analyzer_id: string;
  analyzer_name: string;
  category: string | null;
}

/**
 * Rows per query. A batch is all an export holds of a report at a time (a few hundred KiB for long
 * messages), and the 3,000-issue fixture takes a handful of queries.
 */
export const EXPORT_BATCH_SIZE = 500;

const issueColumns = ['id', 'change', ...ISSUE_RECORD_COLUMNS] as const;

/** The queries of an export; plain Kysely, the same SQL on SQLite and PostgreSQL. */
export function createExportRowsRepository(db: Db) {
  return {
    /**
     * The analyzers present among the report's issues, in the order of their first issue (the order
     * of the upload), each described by that first issue's row. One query, before any result is
     * written: a SARIF log lists its rules before its results.
     */
    async analyzersOf(reportId: number): Promise<ExportAnalyzer[]> {
      const firstIssueOfEach = ownIssueRows(db, reportId)
        .select((eb) => eb.fn.min('id').as('first_id'))
        .groupBy('analyzer_id');
      return db
        .selectFrom('report_issues')
        .select(['analyzer_id', 'analyzer_name', 'category'])
        .where('id', 'in', firstIssueOfEach)
        .orderBy('id')
        .execute();
    },

    /**
     * Keyset pagination by id (upload order, the order of the report detail): each batch starts
     * after the last id of the one before, so no batch costs more than the one before it, as an
     * OFFSET would, and no connection or transaction stays open between batches.
     */
    async issuesAfter(reportId: number, afterId: number, limit: number): Promise<ExportIssue[]> {
      return ownIssueRows(db, reportId).select(issueColumns).where('id', '>', afterId).orderBy('id').limit(limit).execute() as Promise<
        ExportIssue[]
      >;
    },
  };
}

export type ExportRowsRepository = ReturnType<typeof createExportRowsRepository>;

/** The report's issues, batch by batch, read only as fast as the consumer asks for them. */
export async function* issueBatches(
  rows: Pick<ExportRowsRepository, 'issuesAfter'>,
  reportId: number,
  batchSize = EXPORT_BATCH_SIZE,
): AsyncGenerator<ExportIssue[]> {
  let afterId = 0;
  for (;;) {
    const batch = await rows.issuesAfter(reportId, afterId, batchSize);
    if (batch.length > 0) yield batch;
    if (batch.length < batchSize) return;
    afterId = batch[batch.length - 1]!.id;
  }
}

/**
 * Runs `source` up to its first value before the answer starts: a failure there (the database is
 * down) is still an ordinary D3 error answer. Once the first bytes are sent, a failure can only cut
 * the download short.
 */
export async function primed<T>(source: AsyncGenerator<T>): Promise<AsyncGenerator<T>> {
  const first = await source.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    yield* source;
  })();
}
