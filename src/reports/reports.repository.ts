import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { countAll } from '../db/dialect.js';
import type { ReportsTable, TeamRole } from '../db/schema.js';
import type { ReportSummary } from './reports.schemas.js';

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

export type ReportRow = Selectable<ReportsTable>;

export type ReportSummaryRow = Pick<Selectable<ReportsTable>, (typeof reportSummaryColumns)[number]>;

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

    async countForProject(projectId: string): Promise<number> {
      const row = await db
        .selectFrom('reports')
        .select(countAll.as('count'))
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** D19's order: newest analyzed_at first, ties highest id; the first entry is latest_report. */
    async listForProject(projectId: string, page: { limit: number; offset: number }): Promise<ReportSummaryRow[]> {
      return db
        .selectFrom('reports')
        .select(reportSummaryColumns)
        .where('project_id', '=', projectId)
        .orderBy('analyzed_at', 'desc')
        .orderBy('id', 'desc')
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
        .selectAll('r')
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
