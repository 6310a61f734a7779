import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { countAll } from '../db/dialect.js';
import type { ProjectsTable, TeamRole } from '../db/schema.js';
import { reportSummaryColumns, toReportSummary, type ReportSummaryRow } from '../reports/reports.repository.js';
import type { ReportSummary } from '../reports/reports.schemas.js';

export type ProjectRow = Omit<Selectable<ProjectsTable>, 'api_token_hash'>;
export type ProjectWithLatestReport = ProjectRow & { latest_report: ReportSummary | null };

// The token hash is only ever written and compared, never selected (D10).
const projectColumns = [
  'p.id',
  'p.team_id',
  'p.name',
  'p.description',
  'p.repository_url',
  'p.framework_version',
  'p.settings',
  'p.latest_report_id',
  'p.archived_at',
  'p.created_at',
  'p.updated_at',
] as const;

// D19: the latest report is one LEFT JOIN through projects.latest_report_id, never a scan of reports.
const latestReportColumns = reportSummaryColumns.map((column) => `r.${column} as latest_${column}` as const);

type JoinedRow = ProjectRow & { [K in keyof ReportSummaryRow as `latest_${K}`]: ReportSummaryRow[K] | null };

function splitLatestReport(row: JoinedRow): ProjectWithLatestReport {
  const project: Record<string, unknown> = {};
  const report: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith('latest_') && key !== 'latest_report_id') report[key.slice('latest_'.length)] = value;
    else project[key] = value;
  }
  const latest_report = report.id === null || report.id === undefined ? null : toReportSummary(report as unknown as ReportSummaryRow);
  return { ...(project as ProjectRow), latest_report };
}

export function createProjectsRepository(db: Db) {
  const selectWithLatestReport = () =>
    db
      .selectFrom('projects as p')
      .leftJoin('reports as r', 'r.id', 'p.latest_report_id')
      .select(projectColumns)
      .select(latestReportColumns);

  return {
    async countForTeam(teamId: number): Promise<number> {
      const row = await db
        .selectFrom('projects')
        .select(countAll.as('count'))
        .where('team_id', '=', teamId)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** D16: newest first by created_at, ties broken by newest id. */
    async listForTeam(teamId: number, page: { limit: number; offset: number }): Promise<ProjectWithLatestReport[]> {
      const rows = await selectWithLatestReport()
        .where('p.team_id', '=', teamId)
        .orderBy('p.created_at', 'desc')
        .orderBy('p.id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      return rows.map((row) => splitLatestReport(row as unknown as JoinedRow));
    },

    /** The project with the caller's role in its team; not found when the caller is no member (D15). */
    async findForMember(
      projectId: string,
      userId: number,
    ): Promise<(ProjectWithLatestReport & { role: TeamRole }) | undefined> {
      const row = await selectWithLatestReport()
        .innerJoin('team_members as m', (join) => join.onRef('m.team_id', '=', 'p.team_id').on('m.user_id', '=', userId))
        .select('m.role')
        .where('p.id', '=', projectId)
        .executeTakeFirst();
      if (!row) return undefined;
      const { role, ...rest } = row;
      return { ...splitLatestReport(rest as unknown as JoinedRow), role };
    },

    /** The project a client package authenticates as (D10); the token is compared through its hash. */
    async findByApiTokenHash(hash: string): Promise<ProjectWithLatestReport | undefined> {
      const row = await selectWithLatestReport().where('p.api_token_hash', '=', hash).executeTakeFirst();
      return row ? splitLatestReport(row as unknown as JoinedRow) : undefined;
    },

    async insert(project: Selectable<ProjectsTable>): Promise<void> {
      await db.insertInto('projects').values(project).execute();
    },

    async update(
      projectId: string,
      changes: Partial<Omit<Selectable<ProjectsTable>, 'id' | 'team_id' | 'created_at'>>,
    ): Promise<void> {
      await db.updateTable('projects').set(changes).where('id', '=', projectId).execute();
    },

    async delete(projectId: string): Promise<void> {
      await db.deleteFrom('projects').where('id', '=', projectId).execute();
    },
  };
}

export type ProjectsRepository = ReturnType<typeof createProjectsRepository>;
