import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { countAll } from '../db/dialect.js';
import type { ReportIssuesTable, ReportsTable, TeamRole } from '../db/schema.js';
import type { ChangeKind, IssueRecord, IssueRow } from './changes.js';
import type { ReportListItem, ReportSummary, StoredGate } from './reports.schemas.js';
import { SEVERITIES, type Severity } from './vocabulary.js';

export type NewReport = Omit<Selectable<ReportsTable>, 'id'>;

/** The summary columns, for `latest_report` and report lists; never the full results. */
export const reportSummaryColumns = [
  'id',
  'uuid',
  'score',
  'total',
  'passed',
  'failed',
  'warnings',
  'skipped',
  'errors',
  'total_issues',
  'issues_critical',
  'issues_high',
  'issues_medium',
  'issues_low',
  'issues_info',
  'framework_version',
  'package_version',
  'total_execution_time',
  'triggered_by',
  'analyzed_at',
  'created_at',
] as const;

/** A stored report with its baseline's uuid, time, branch and commit (E1.5). */
export type ReportRow = Selectable<ReportsTable> & BaselineColumns;

interface BaselineColumns {
  baseline_uuid: string | null;
  baseline_analyzed_at: string | null;
  baseline_branch: string | null;
  baseline_commit: string | null;
}

const baselineColumns = [
  'b.uuid as baseline_uuid',
  'b.analyzed_at as baseline_analyzed_at',
  'b.git_branch as baseline_branch',
  'b.git_commit as baseline_commit',
] as const;

export type ReportSummaryRow = Pick<Selectable<ReportsTable>, (typeof reportSummaryColumns)[number]>;

/** A report list item's columns (E1.5): the summary, the git context, the gate, the changes. */
const reportListColumns = [
  ...reportSummaryColumns,
  'git_branch',
  'git_commit',
  'pull_request',
  'base_branch',
  'gate',
  'changes_new',
  'changes_fixed',
  'changes_unchanged',
] as const;

/** A list item's row: its columns, and its baseline's (E1.5), null when it has none. */
export type ReportListRow = Pick<Selectable<ReportsTable>, (typeof reportListColumns)[number]> & BaselineColumns;

/** E1.5: a report list item, from its row. */
export function toReportListItem(row: ReportListRow): ReportListItem {
  return {
    ...toReportSummary(row),
    branch: row.git_branch,
    commit: row.git_commit,
    pull_request: row.pull_request,
    base_branch: row.base_branch,
    gate: row.gate === null ? null : (JSON.parse(row.gate) as StoredGate),
    changes: {
      baseline:
        row.baseline_uuid === null
          ? null
          : { uuid: row.baseline_uuid, analyzed_at: row.baseline_analyzed_at!, branch: row.baseline_branch, commit: row.baseline_commit },
      new: row.changes_new,
      fixed: row.changes_fixed,
      unchanged: row.changes_unchanged,
    },
  };
}

/** The report a new one is compared with (E1.3). */
export interface BaselineCandidate {
  id: number;
  uuid: string;
}

/** Rows per insert statement: 14 parameters each stays well under SQLite's and PostgreSQL's limits. */
const ISSUE_ROWS_PER_INSERT = 500;

/** What the changes list (E1.6) may be narrowed to. */
export interface ChangesFilter {
  kind?: ChangeKind;
  severity?: Severity;
}

export function toReportSummary(row: ReportSummaryRow): ReportSummary {
  return {
    id: row.id,
    uuid: row.uuid,
    score: row.score,
    total: row.total,
    passed: row.passed,
    failed: row.failed,
    warnings: row.warnings,
    skipped: row.skipped,
    errors: row.errors,
    total_issues: row.total_issues,
    issues_by_severity: {
      critical: row.issues_critical,
      high: row.issues_high,
      medium: row.issues_medium,
      low: row.issues_low,
      info: row.issues_info,
    },
    framework_version: row.framework_version,
    package_version: row.package_version,
    total_execution_time: row.total_execution_time === null ? null : Number(row.total_execution_time),
    triggered_by: row.triggered_by,
    analyzed_at: row.analyzed_at,
    created_at: row.created_at,
  };
}

/** Callers pass a transaction: a report write and its latest-report pointer change together. */
export function createReportsRepository(db: Db) {
  return {
    async insert(report: NewReport): Promise<number> {
      const row = await db.insertInto('reports').values(report).returning('id').executeTakeFirstOrThrow();
      return row.id;
    },

    /** All of the project's reports, or (E1.6) one branch's; `null` names the reports without one. */
    async countForProject(projectId: string, branch?: string | null): Promise<number> {
      const row = await db
        .selectFrom('reports')
        .select(countAll.as('count'))
        .where('project_id', '=', projectId)
        .$if(branch !== undefined, (query) => query.where('git_branch', branch === null ? 'is' : '=', branch!))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** D19's order: newest analyzed_at first, ties highest id; the first entry is latest_report. */
    async listForProject(projectId: string, page: { limit: number; offset: number }, branch?: string | null): Promise<ReportListRow[]> {
      return selectListRows(db)
        .where('r.project_id', '=', projectId)
        .$if(branch !== undefined, (query) => query.where('r.git_branch', branch === null ? 'is' : '=', branch!))
        .orderBy('r.analyzed_at', 'desc')
        .orderBy('r.id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
    },

    /** E1.6: the latest report (D19's order) of each of the project's branches, newest first. */
    async latestPerBranch(projectId: string): Promise<ReportListRow[]> {
      const ranked = db
        .selectFrom('reports')
        .select([
          'id',
          sql<number>`row_number() over (partition by git_branch order by analyzed_at desc, id desc)`.as('place'),
        ])
        .where('project_id', '=', projectId)
        .as('ranked');
      return selectListRows(db)
        .innerJoin(ranked, 'ranked.id', 'r.id')
        .where('ranked.place', '=', 1)
        .orderBy('r.analyzed_at', 'desc')
        .orderBy('r.id', 'desc')
        .execute();
    },

    /** The list-item row of one report. */
    async findListRow(id: number): Promise<ReportListRow | undefined> {
      return selectListRows(db).where('r.id', '=', id).executeTakeFirst();
    },

    /**
     * E1.3: a pull request's baseline is the project's latest report on its base branch; any other
     * report's, the latest on its own branch (null matching null) that comes before it in D19's order.
     * `before` bounds both (the migration computes history with it; an upload's own is newest by id).
     */
    async findBaseline(
      projectId: string,
      on: { branch: string | null; before: { analyzed_at: string; id: number } | null },
    ): Promise<BaselineCandidate | undefined> {
      const { branch, before } = on;
      return db
        .selectFrom('reports')
        .select(['id', 'uuid'])
        .where('project_id', '=', projectId)
        .where('git_branch', branch === null ? 'is' : '=', branch)
        .$if(before !== null, (query) =>
          query.where((eb) =>
            eb.or([
              eb('analyzed_at', '<', before!.analyzed_at),
              eb.and([eb('analyzed_at', '=', before!.analyzed_at), eb('id', '<', before!.id)]),
            ]),
          ),
        )
        .orderBy('analyzed_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
    },

    /** The report's own issues (not the fixed ones it carries from its baseline), for the next comparison. */
    async issuesOf(reportId: number): Promise<IssueRecord[]> {
      return db
        .selectFrom('report_issues')
        .select(['fingerprint', 'analyzer_id', 'analyzer_name', 'category', 'severity', 'message', 'file', 'line', 'column_number'])
        .where('report_id', '=', reportId)
        .where((eb) => eb.or([eb('change', 'is', null), eb('change', '!=', 'fixed')]))
        .execute();
    },

    async insertIssues(reportId: number, rows: readonly IssueRow[]): Promise<void> {
      for (let start = 0; start < rows.length; start += ISSUE_ROWS_PER_INSERT) {
        const values: Insertable<ReportIssuesTable>[] = rows
          .slice(start, start + ISSUE_ROWS_PER_INSERT)
          .map((row) => ({ report_id: reportId, ...row }));
        await db.insertInto('report_issues').values(values).execute();
      }
    },

    async deleteIssues(reportId: number): Promise<void> {
      await db.deleteFrom('report_issues').where('report_id', '=', reportId).execute();
    },

    /** E1.6: how many rows the changes list has, with these filters. */
    async countChanges(reportId: number, filter: ChangesFilter): Promise<number> {
      const row = await filteredChanges(db, reportId, filter).select(countAll.as('count')).executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** E1.6: new, then fixed, then unchanged; each by severity (critical first), analyzer id, file, line. */
    async listChanges(reportId: number, filter: ChangesFilter, page: { limit: number; offset: number }) {
      return filteredChanges(db, reportId, filter)
        .select(['fingerprint', 'change', 'analyzer_id', 'analyzer_name', 'category', 'severity', 'message', 'file', 'line', 'column_number'])
        .orderBy('change_rank')
        .orderBy('severity_rank')
        .orderBy('analyzer_id')
        // Nulls last on both databases (SQLite puts them first, PostgreSQL last).
        .orderBy(sql`file is null`)
        .orderBy('file')
        .orderBy(sql`line is null`)
        .orderBy('line')
        .orderBy('id')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
    },

    /** The report with the caller's role in its project's team; undefined when the caller is no member (D15). */
    async findForMember(uuid: string, userId: number): Promise<(ReportRow & { role: TeamRole }) | undefined> {
      return db
        .selectFrom('reports as r')
        .innerJoin('projects as p', 'p.id', 'r.project_id')
        .innerJoin('team_members as m', (join) => join.onRef('m.team_id', '=', 'p.team_id').on('m.user_id', '=', userId))
        .leftJoin('reports as b', 'b.id', 'r.baseline_report_id')
        .selectAll('r')
        .select(baselineColumns)
        .select('m.role')
        .where('r.uuid', '=', uuid)
        .executeTakeFirst();
    },

    /** False when there was no such report (deleted meanwhile). */
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('reports').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
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
}

/** Report list rows with their baseline's uuid, time, branch and commit (E1.5), in one query. */
function selectListRows(db: Db) {
  return db
    .selectFrom('reports as r')
    .leftJoin('reports as b', 'b.id', 'r.baseline_report_id')
    .select(reportListColumns.map((column) => `r.${column}` as const))
    .select(baselineColumns);
}

function filteredChanges(db: Db, reportId: number, filter: ChangesFilter) {
  return db
    .selectFrom('report_issues')
    .where('report_id', '=', reportId)
    .$if(filter.kind !== undefined, (query) => query.where('change', '=', filter.kind!))
    .$if(filter.severity !== undefined, (query) => query.where('severity_rank', '=', SEVERITIES.indexOf(filter.severity!)));
}

export type ReportsRepository = ReturnType<typeof createReportsRepository>;
