import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { ReportsTable } from '../db/schema.js';
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

    async delete(id: number): Promise<void> {
      await db.deleteFrom('reports').where('id', '=', id).execute();
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
