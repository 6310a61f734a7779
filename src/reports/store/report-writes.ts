import { CompiledQuery } from 'kysely';
import { inTransaction, type Db } from '../../db/database.js';
import { isPostgres, lockForUpdate } from '../../db/dialect.js';
import { CHANGE_CODES, changeRank, type IssueRow } from '../changes/issue-changes.js';
import type { PreparedIssues } from '../upload/process-upload.js';
import { statesSeenIn } from '../../issues/upload-decisions.js';
import { countStatesChange } from '../../issues/state-reads.js';
import { timeSlices } from './time-slices.js';
import { IDS_PER_LIST, ISSUE_COLUMNS, type NewReport } from './report-rows.js';

/**
 * How long a replaced report answer stays readable (E8.3): far beyond what a client that stops
 * reading may hold its connection (the server closes a socket idle for a minute).
 */
export const SUPERSEDED_KEPT_MS = 10 * 60 * 1000;

/** Rows per insert statement: 14 parameters each stays well under SQLite's and PostgreSQL's limits. */
const ISSUE_ROWS_PER_INSERT = 500;

/**
 * The SQL of an insert of `rows` issue rows, kept per dialect and row count (a full batch, and the
 * few remainders uploads have). Written here rather than built by Kysely: building and compiling a
 * 500-row insert (6,500 value nodes) took about a third of insertIssues' time in an upload's profile,
 * and the text is the same every time. Identifiers are double-quoted on both dialects.
 */
const issueInsertSql = new Map<string, string>();
function issueInsertText(postgres: boolean, rows: number): string {
  const key = `${postgres ? 'postgres' : 'sqlite'}:${rows}`;
  let text = issueInsertSql.get(key);
  if (text === undefined) {
    let n = 0;
    const tuple = () => `(${ISSUE_COLUMNS.map(() => (postgres ? `$${++n}` : '?')).join(', ')})`;
    text = `insert into "report_issues" (${ISSUE_COLUMNS.map((column) => `"${column}"`).join(', ')}) values ${Array.from({ length: rows }, tuple).join(', ')}`;
    // A full batch and a handful of remainders in practice; bounded all the same.
    if (issueInsertSql.size >= 64) issueInsertSql.clear();
    issueInsertSql.set(key, text);
  }
  return text;
}

/** The report store's writes. Callers pass a transaction: a report write and its latest-report pointer change together. */
export function createReportWrites(db: Db) {
  const writes = {
    async insert(report: NewReport): Promise<number> {
      const row = await db.insertInto('reports').values(report).returning('id').executeTakeFirstOrThrow();
      return row.id;
    },

    async insertIssues(reportId: number, rows: readonly IssueRow[]): Promise<void> {
      const postgres = isPostgres(db);
      for (let start = 0; start < rows.length; start += ISSUE_ROWS_PER_INSERT) {
        const end = Math.min(rows.length, start + ISSUE_ROWS_PER_INSERT);
        // Row by row, in the order of ISSUE_COLUMNS.
        const parameters: unknown[] = [];
        for (let i = start; i < end; i++) {
          const row = rows[i]!;
          parameters.push(
            reportId,
            row.change,
            row.change_rank,
            row.severity_rank,
            row.fingerprint,
            row.analyzer_id,
            row.analyzer_name,
            row.category,
            row.severity,
            row.message,
            row.file,
            row.line,
            row.column_number,
            row.position,
          );
        }
        await db.executeQuery(CompiledQuery.raw(issueInsertText(postgres, end - start), parameters));
      }
    },

    /**
     * An upload's issues (prepared off the event loop, upload/process-upload.ts), each with its change
     * (CHANGE_CODES of `changes`). A 75,000-issue report is 150 statements: the event loop is given
     * back between them (time-slices.ts), so that other requests are answered while it is stored.
     */
    async insertPreparedIssues(reportId: number, issues: PreparedIssues, changes: Uint8Array): Promise<void> {
      const postgres = isPostgres(db);
      const pause = timeSlices();
      let position = 0;
      for (const batch of issues.batches) {
        await pause();
        const rows = JSON.parse(batch) as unknown[][];
        const parameters: unknown[] = [];
        for (const row of rows) {
          const change = CHANGE_CODES[changes[position]!]!;
          // ISSUE_COLUMNS' order; `row` is upload/process-upload.ts's, from severity_rank to column_number.
          parameters.push(reportId, change, changeRank(change), ...row, position++);
        }
        await db.executeQuery(CompiledQuery.raw(issueInsertText(postgres, rows.length), parameters));
      }
    },

    /**
     * Kept only while the report still has the baseline the body shows (`baselineId`). The report's
     * row is locked (PostgreSQL), so a deletion of its baseline (`dependentsOf`) comes wholly before
     * or after, and so do two reads storing the answer. E8.3: `shows` is the project's states
     * generation the body was built at and until when its states are true; the stored answer of an
     * older generation, or out of date by the clock, is replaced; one of a newer generation is kept,
     * and so is the same one (a body another read stored meanwhile is the same text). A replaced
     * answer stays, `superseded_at`, for SUPERSEDED_KEPT_MS: a client reading it in pieces by its id
     * (stored-body.ts) gets the whole of it, never a mix with the new one.
     */
    async storeBody(
      reportId: number,
      baselineId: number | null,
      gzip: Buffer,
      shows: { generation: number; freshUntil: string | null; at: string },
    ): Promise<void> {
      await inTransaction(db, async (trx) => {
        await lockForUpdate(trx, 'reports', reportId);
        const report = await trx.selectFrom('reports').select('baseline_report_id').where('id', '=', reportId).executeTakeFirst();
        if (!report || report.baseline_report_id !== baselineId) return;
        const stored = await trx
          .selectFrom('report_bodies')
          .select(['id', 'states_generation', 'fresh_until'])
          .where('report_id', '=', reportId)
          .where('superseded_at', 'is', null)
          .executeTakeFirst();
        if (stored) {
          if (stored.states_generation > shows.generation) return;
          if (stored.states_generation === shows.generation && stored.fresh_until === shows.freshUntil) return;
          await trx.updateTable('report_bodies').set({ superseded_at: shows.at }).where('id', '=', stored.id).execute();
        }
        const forgetBefore = new Date(Date.parse(shows.at) - SUPERSEDED_KEPT_MS).toISOString();
        await trx
          .deleteFrom('report_bodies')
          .where('report_id', '=', reportId)
          .where('superseded_at', 'is not', null)
          .where('superseded_at', '<', forgetBefore)
          .execute();
        await trx
          .insertInto('report_bodies')
          .values({ report_id: reportId, gzip, states_generation: shows.generation, fresh_until: shows.freshUntil })
          .execute();
      });
    },

    async forgetBodies(reportIds: readonly number[]): Promise<void> {
      for (let start = 0; start < reportIds.length; start += IDS_PER_LIST) {
        await db
          .deleteFrom('report_bodies')
          .where('report_id', 'in', reportIds.slice(start, start + IDS_PER_LIST))
          .execute();
      }
    },

    async deleteIssues(reportId: number): Promise<void> {
      await db.deleteFrom('report_issues').where('report_id', '=', reportId).execute();
    },

    /**
     * Deletes the project's reports `ids` as a deletion through the API does (D11, D19, E1.4): their
     * issues and stored answers go with them (cascade); the stored answers of the reports that had one
     * as baseline are forgotten, as they show none now; the project's latest-report pointer moves.
     * The caller holds the project's lock. Returns how many there were (a report deleted meanwhile
     * is not counted).
     */
    async deleteReports(projectId: string, ids: readonly number[]): Promise<number> {
      if (ids.length === 0) return 0;
      // Locked on PostgreSQL, so that no answer naming a deleted baseline is stored meanwhile.
      const dependents = db.selectFrom('reports').select('id').where('baseline_report_id', 'in', ids);
      const rows = await (isPostgres(db) ? dependents.forUpdate() : dependents).execute();
      // E8.1: states that last saw one of them see none now (the foreign key), which the project's stored answers show.
      if (await statesSeenIn(db, ids)) await countStatesChange(db, projectId);
      const result = await db.deleteFrom('reports').where('id', 'in', ids).executeTakeFirst();
      await writes.forgetBodies(rows.map((row) => row.id));
      await writes.refreshLatest(projectId);
      return Number(result.numDeletedRows);
    },

    async deleteForProject(projectId: string): Promise<void> {
      await db.deleteFrom('reports').where('project_id', '=', projectId).execute();
    },

    /**
     * D19: point the project at its report with the latest analyzed_at (ties: highest id). Run after
     * every insert or delete of a report, in the same transaction; served by reports_project_latest_idx.
     */
    async refreshLatest(projectId: string): Promise<void> {
      await db
        .updateTable('projects')
        .set((eb) => ({
          latest_report_id: eb
            .selectFrom('reports')
            .select('reports.id')
            .where('reports.project_id', '=', projectId)
            .orderBy('reports.analyzed_at', 'desc')
            .orderBy('reports.id', 'desc')
            .limit(1),
        }))
        .where('id', '=', projectId)
        .execute();
    },
  };
  return writes;
}

export type ReportWrites = ReturnType<typeof createReportWrites>;
