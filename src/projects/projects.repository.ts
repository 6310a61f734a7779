import { type Insertable, sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { isPostgres } from '../db/dialect.js';
import { type JsonMember, jsonMember, jsonObjectText } from '../db/json-text.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { ProjectsTable, TeamRole } from '../db/schema.js';
import { SEVERITY_COLUMNS, SUMMARY_COLUMNS, toReportSummary, type ReportSummaryRow } from '../reports/report-summary.js';
import { ReportSummary } from '../reports/reports.schemas.js';
import { SEVERITIES } from '../reports/vocabulary.js';
import { Project } from './projects.schemas.js';
import { SETTINGS_KEYS } from './settings.js';

// The badge key is read only where its URLs are built or a badge is served (badges/), never with the project.
/** A project as answers show it: its secrets, and its tracker (tickets/ reads that), left out. */
export type ProjectRow = Omit<Selectable<ProjectsTable>, 'api_token_hash' | 'badge_key' | 'tracker_connection_id'>;
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
const latestReportColumns = SUMMARY_COLUMNS.map((column) => `r.${column} as latest_${column}` as const);

type JoinedRow = ProjectRow & { [K in keyof ReportSummaryRow as `latest_${K}`]: ReportSummaryRow[K] | null };

/** Each summary column and its alias in the joined row. */
const LATEST_REPORT_ALIASES = SUMMARY_COLUMNS.map((column) => [column, `latest_${column}`] as const);

/**
 * The joined row as the project and its latest report. The project's columns are written out and
 * the report's copied through a precomputed list: a generic walk over the row's keys was a sixth
 * of the list endpoint's CPU time in the benchmark's profile.
 */
function splitLatestReport(row: JoinedRow): ProjectWithLatestReport {
  let latest: ReportSummaryRow | null = null;
  if (row.latest_id !== null && row.latest_id !== undefined) {
    const columns: Record<string, unknown> = {};
    for (const [column, alias] of LATEST_REPORT_ALIASES) columns[column] = row[alias];
    latest = columns as ReportSummaryRow;
  }
  return {
    id: row.id,
    team_id: row.team_id,
    name: row.name,
    description: row.description,
    repository_url: row.repository_url,
    framework_version: row.framework_version,
    settings: row.settings,
    latest_report_id: row.latest_report_id,
    archived_at: row.archived_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    latest_report: latest === null ? null : toReportSummary(latest),
  };
}

const selectWithLatestReport = (db: Db) =>
  db.selectFrom('projects as p').leftJoin('reports as r', 'r.id', 'p.latest_report_id').select(projectColumns).select(latestReportColumns);

// The reads of the hot paths (show, list, client-package auth): compiled once (db/prepared-query.ts).
const countForTeam = preparedQuery((db: Db, teamId: number) =>
  db.selectFrom('teams').select('projects_count as count').where('id', '=', teamId),
);
// The page's ids come from the (team_id, created_at, id) index alone, so a deep OFFSET skips index
// entries instead of joining every skipped project to its latest report (page 500 of 10,000
// projects was 70 times slower than page 1 before).
function teamPage(db: Db, teamId: number, limit: number, offset: number) {
  return db
    .selectFrom((eb) =>
      eb
        .selectFrom('projects')
        .select('id')
        .where('team_id', '=', teamId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .as('page'),
    )
    .innerJoin('projects as p', 'p.id', 'page.id')
    .leftJoin('reports as r', 'r.id', 'p.latest_report_id')
    .orderBy('p.created_at', 'desc')
    .orderBy('p.id', 'desc');
}
const listForTeam = preparedQuery((db: Db, teamId: number, limit: number, offset: number) =>
  teamPage(db, teamId, limit, offset).select(projectColumns).select(latestReportColumns),
);

/**
 * A list page's projects as the JSON the route's response schema writes (projects.schemas.ts:
 * `Project`, its keys in that order), written by the database in pieces: building 20 row objects of
 * 32 columns, then the answer objects, then serialising them was most of the list endpoint's time
 * in the benchmark's profile. The one floating-point column, the latest report's
 * `total_execution_time`, comes back as a value and is written in JavaScript (db/json-text.ts).
 * test/projects/list-json.test.ts compares these bytes with the serialiser's on both databases.
 */
type ProjectJsonRow = { head: string; report_head: string | null; execution_time: number | null; report_tail: string; settings: string };

/** The schema's property names after `after` and before `before` (either end open), in its order. */
function keysBetween(schema: { properties: object }, after: string | undefined, before: string | undefined): string[] {
  const keys = Object.keys(schema.properties);
  const from = after === undefined ? 0 : keys.indexOf(after) + 1;
  return keys.slice(from, before === undefined ? keys.length : keys.indexOf(before));
}

function projectJsonPieces(db: Db) {
  const project = (name: string): JsonMember => [name, sql.ref(`p.${name}`)];
  const report = (name: string, columnName = name): JsonMember => [name, sql.ref(`r.${columnName}`)];
  const head = jsonObjectText(db, keysBetween(Project, undefined, 'latest_report').map(project), { after: ',"latest_report":' });
  const bySeverity = jsonObjectText(
    db,
    SEVERITIES.map((severity, i) => report(severity, SEVERITY_COLUMNS[i])),
  );
  const reportHead = jsonObjectText(
    db,
    [
      ...keysBetween(ReportSummary, undefined, 'issues_by_severity').map((name) => report(name)),
      ['issues_by_severity', bySeverity, 'json'],
      ...keysBetween(ReportSummary, 'issues_by_severity', 'total_execution_time').map((name) => report(name)),
    ],
    { after: ',"total_execution_time":' },
  );
  const reportTail = jsonObjectText(
    db,
    keysBetween(ReportSummary, 'total_execution_time', undefined).map((name) => report(name)),
    { before: ',' },
  );
  const settings = jsonObjectText(
    db,
    SETTINGS_KEYS.map((key): JsonMember => [key, jsonMember(db, sql.ref('p.settings'), key), 'json']),
    { before: ',"settings":{', after: '}}' },
  );
  return [
    head.as('head'),
    sql<string | null>`case when r.id is null then null else ${reportHead} end`.as('report_head'),
    sql.ref<number | null>('r.total_execution_time').as('execution_time'),
    reportTail.as('report_tail'),
    settings.as('settings'),
  ] as const;
}

const listJsonForTeam = preparedQuery((db: Db, teamId: number, limit: number, offset: number) =>
  teamPage(db, teamId, limit, offset).select(projectJsonPieces(db)),
);

/** fast-json-stringify's spelling of a `number` (JSON.stringify's for finite values). */
const numberJson = (value: number | string | null) => {
  if (value === null) return 'null';
  const number = Number(value);
  return Number.isFinite(number) ? String(number) : 'null';
};

function projectJsonOf(row: ProjectJsonRow): string {
  const latest = row.report_head === null ? 'null' : row.report_head + numberJson(row.execution_time) + row.report_tail;
  return row.head + latest + row.settings;
}

const findForMember = preparedQuery((db: Db, projectId: string, userId: number) =>
  selectWithLatestReport(db)
    .innerJoin('team_members as m', (join) => join.onRef('m.team_id', '=', 'p.team_id').on('m.user_id', '=', userId))
    .select('m.role')
    .where('p.id', '=', projectId),
);
const findByApiTokenHash = preparedQuery((db: Db, hash: string) => selectWithLatestReport(db).where('p.api_token_hash', '=', hash));

export function createProjectsRepository(db: Db) {
  return {
    /** The team's projects_count, kept with every insert and delete (migration 0003). */
    async countForTeam(teamId: number): Promise<number> {
      const [row] = await countForTeam(db, teamId);
      return Number(row?.count ?? 0);
    },

    /** D16: newest first by created_at, ties broken by newest id. */
    async listForTeam(teamId: number, page: { limit: number; offset: number }): Promise<ProjectWithLatestReport[]> {
      const rows = await listForTeam(db, teamId, page.limit, page.offset);
      return rows.map((row) => splitLatestReport(row as unknown as JoinedRow));
    },

    /** `listForTeam`'s page, each project as the JSON text of the `Project` schema. */
    async listJsonForTeam(teamId: number, page: { limit: number; offset: number }): Promise<string[]> {
      const rows = (await listJsonForTeam(db, teamId, page.limit, page.offset)) as ProjectJsonRow[];
      return rows.map(projectJsonOf);
    },

    /** The project with the caller's role in its team; not found when the caller is no member (D15). */
    async findForMember(projectId: string, userId: number): Promise<(ProjectWithLatestReport & { role: TeamRole }) | undefined> {
      const [row] = await findForMember(db, projectId, userId);
      if (!row) return undefined;
      const { role, ...rest } = row;
      return { ...splitLatestReport(rest as unknown as JoinedRow), role };
    },

    /**
     * D22: `findForMember` inside a write's transaction. On PostgreSQL the project row is locked for
     * the update to come and the membership share-locked, so a rotation, archive, deletion or role
     * change either commits before this read (and is seen) or waits for the write.
     */
    async findForMemberInTransaction(
      projectId: string,
      userId: number,
    ): Promise<(ProjectWithLatestReport & { role: TeamRole }) | undefined> {
      const row = await selectWithLatestReport(db)
        .innerJoin('team_members as m', (join) => join.onRef('m.team_id', '=', 'p.team_id').on('m.user_id', '=', userId))
        .select('m.role')
        .where('p.id', '=', projectId)
        .$if(isPostgres(db), (query) => query.forUpdate(['p']).forShare(['m']))
        .executeTakeFirst();
      if (!row) return undefined;
      const { role, ...rest } = row;
      return { ...splitLatestReport(rest as unknown as JoinedRow), role };
    },

    /** D22: `findByApiTokenHash` inside an upload's transaction, the project row locked on PostgreSQL. */
    async findByApiTokenHashInTransaction(hash: string): Promise<ProjectWithLatestReport | undefined> {
      const row = await selectWithLatestReport(db)
        .where('p.api_token_hash', '=', hash)
        .$if(isPostgres(db), (query) => query.forUpdate(['p']))
        .executeTakeFirst();
      return row ? splitLatestReport(row as unknown as JoinedRow) : undefined;
    },

    /** The project a client package authenticates as (D10); the token is compared through its hash. */
    async findByApiTokenHash(hash: string): Promise<ProjectWithLatestReport | undefined> {
      const [row] = await findByApiTokenHash(db, hash);
      return row ? splitLatestReport(row as unknown as JoinedRow) : undefined;
    },

    /** Inserts the project and counts it on its team; callers pass a transaction. */
    async insert(project: Insertable<ProjectsTable>): Promise<void> {
      await db.insertInto('projects').values(project).execute();
      await db
        .updateTable('teams')
        .set((eb) => ({ projects_count: eb('projects_count', '+', 1) }))
        .where('id', '=', project.team_id)
        .execute();
    },

    async update(projectId: string, changes: Partial<Omit<Selectable<ProjectsTable>, 'id' | 'team_id' | 'created_at'>>): Promise<void> {
      await db.updateTable('projects').set(changes).where('id', '=', projectId).execute();
    },

    /** Deletes the project and uncounts it on its team; callers pass a transaction. */
    /** E9.3: the connection the project's tracker is linked to (null: none). */
    async trackerConnectionOf(projectId: string): Promise<string | null> {
      const row = await db.selectFrom('projects').select('tracker_connection_id').where('id', '=', projectId).executeTakeFirst();
      return row?.tracker_connection_id ?? null;
    },

    async delete(project: { id: string; team_id: number }): Promise<void> {
      const deleted = await db.deleteFrom('projects').where('id', '=', project.id).executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return;
      await db
        .updateTable('teams')
        .set((eb) => ({ projects_count: eb('projects_count', '-', 1) }))
        .where('id', '=', project.team_id)
        .execute();
    },
  };
}

export type ProjectsRepository = ReturnType<typeof createProjectsRepository>;
