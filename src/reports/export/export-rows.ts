import { sql } from 'kysely';
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
 * Rows per query at most. A batch is all an export holds of a report at a time, and the
 * 3,000-issue fixture takes a handful of queries.
 */
export const EXPORT_BATCH_SIZE = 500;

/**
 * Characters of text per batch at most (D33): a message may be 65,535 characters, so 500 rows of
 * them would be 30 MB held for a client that stopped reading. Rows of ordinary issues (a few
 * hundred characters) still come 500 at a time. A single row over the budget is a batch of its own.
 */
export const EXPORT_BATCH_CHARS = 256 * 1024;

/** What a row costs besides its texts (its keys, numbers, fingerprint), in characters. */
const ROW_OVERHEAD_CHARS = 64;

/** A batch, and whether it is the report's last. */
export interface IssueBatch {
  issues: ExportIssue[];
  last: boolean;
}

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
     * OFFSET would, and no connection or transaction stays open between batches. The rows' text
     * lengths are read first (numbers only), so that the batch stops at `maxChars` before its
     * texts are read.
     */
    async issuesAfter(reportId: number, afterId: number, limit: number, maxChars = EXPORT_BATCH_CHARS): Promise<IssueBatch> {
      const sizes = await ownIssueRows(db, reportId)
        .select([
          'id',
          sql<number>`length(message) + coalesce(length(file), 0) + length(analyzer_id) + length(analyzer_name) + coalesce(length(category), 0)`.as(
            'chars',
          ),
        ])
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
      if (sizes.length === 0) return { issues: [], last: true };
      let taken = 0;
      let chars = 0;
      while (taken < sizes.length) {
        chars += Number(sizes[taken]!.chars) + ROW_OVERHEAD_CHARS;
        if (taken > 0 && chars > maxChars) break;
        taken++;
      }
      const issues = (await ownIssueRows(db, reportId)
        .select(issueColumns)
        .where('id', '>', afterId)
        .where('id', '<=', sizes[taken - 1]!.id)
        .orderBy('id')
        .execute()) as ExportIssue[];
      return { issues, last: taken === sizes.length && sizes.length < limit };
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
    const { issues, last } = await rows.issuesAfter(reportId, afterId, batchSize);
    if (issues.length > 0) yield issues;
    if (last || issues.length === 0) return;
    afterId = issues[issues.length - 1]!.id;
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
