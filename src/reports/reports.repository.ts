import { CompiledQuery, sql, type Compilable, type Insertable, type Selectable } from 'kysely';
import { inTransaction, type Db } from '../db/database.js';
import { countAll, isPostgres, lockForUpdate } from '../db/dialect.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { ReportIssuesTable, ReportsTable, TeamRole } from '../db/schema.js';
import { CHANGE_CODES, changeRank, type ChangeKind, type IssueMark, type IssueRecord, type IssueRow } from './changes.js';
import type { ChangeItem, ReportListItem, ReportSummary, StoredGate, TrendPoint } from './reports.schemas.js';
import { SEVERITIES, type Severity } from './vocabulary.js';
import type { PreparedIssues } from './upload-processing.js';
import type { ResultsColumns } from './stored-results.js';
import { timeSlices } from './time-slices.js';

export type NewReport = Omit<Selectable<ReportsTable>, 'id'>;

/** What retention deletes (report-retention.ts): reports stored before `cutoff`, and beyond a project's `keep` newest. */
export interface RetentionRule {
  readonly cutoff?: string;
  readonly keep?: number;
}

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

/**
 * A stored report with its baseline's uuid, time, branch and commit (E1.5); without its results,
 * which only building its answer and its SARIF rules read (`resultsOf`).
 */
export type ReportRow = Omit<Selectable<ReportsTable>, keyof ResultsColumns> & BaselineColumns;

/** Every column of `reports` but the results. */
const reportRowColumns = [
  ...reportSummaryColumns,
  'project_id',
  'pro_package_version',
  'metadata',
  'client_summary',
  'configuration',
  'git_branch',
  'git_commit',
  'pull_request',
  'base_branch',
  'baseline_report_id',
  'changes_new',
  'changes_fixed',
  'changes_unchanged',
  'gate',
  'fingerprinted_at',
] as const satisfies readonly (keyof ReportRow)[];

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

/** A row of the changes list as E1.6 shows it: the location rebuilt from its columns. */
export function toChangeItem(row: ChangeRow): ChangeItem {
  return {
    fingerprint: row.fingerprint,
    change: row.change,
    analyzer_id: row.analyzer_id,
    analyzer_name: row.analyzer_name,
    category: row.category,
    severity: row.severity,
    message: row.message,
    location:
      row.file === null
        ? null
        : {
            file: row.file,
            ...(row.line !== null && { line: row.line }),
            ...(row.column_number !== null && { column: row.column_number }),
          },
  };
}

type ChangeRow = Pick<
  Selectable<ReportIssuesTable>,
  'fingerprint' | 'change' | 'analyzer_id' | 'analyzer_name' | 'category' | 'severity' | 'message' | 'file' | 'line' | 'column_number'
>;

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

/** E2.1: a trend point's columns; no results, no baseline join. */
const trendColumns = [
  'uuid',
  'analyzed_at',
  'git_branch',
  'score',
  'total_issues',
  'issues_critical',
  'issues_high',
  'issues_medium',
  'issues_low',
  'issues_info',
  'changes_new',
  'changes_fixed',
  'gate',
] as const;

export type TrendRow = Pick<Selectable<ReportsTable>, (typeof trendColumns)[number]>;

/** E2.1: a trend point, from its row. */
export function toTrendPoint(row: TrendRow): TrendPoint {
  return {
    uuid: row.uuid,
    analyzed_at: row.analyzed_at,
    branch: row.git_branch,
    score: row.score,
    total_issues: row.total_issues,
    issues_by_severity: issuesBySeverityOf(row),
    new: row.changes_new,
    fixed: row.changes_fixed,
    gate_passed: row.gate === null ? null : (JSON.parse(row.gate) as StoredGate).passed,
  };
}

/** The report a new one is compared with (E1.3). */
export interface BaselineCandidate {
  id: number;
  uuid: string;
  analyzed_at: string;
  git_branch: string | null;
  git_commit: string | null;
}

/** Rows per insert statement: 14 parameters each stays well under SQLite's and PostgreSQL's limits. */
const ISSUE_ROWS_PER_INSERT = 500;

/** The change ranks a report's own issues have (new, unchanged, none): fixed rows are its baseline's. */
const OWN_CHANGE_RANKS = (['new', 'unchanged', null] as const).map(changeRank);

/** Fingerprints per `in (...)` list when reading a baseline's fixed issues. */
const FINGERPRINTS_PER_SELECT = 500;

/** The columns of `report_issues` an upload writes, in the order of insertIssues' parameters. */
const ISSUE_COLUMNS = [
  'report_id',
  'change',
  'change_rank',
  'severity_rank',
  'fingerprint',
  'analyzer_id',
  'analyzer_name',
  'category',
  'severity',
  'message',
  'file',
  'line',
  'column_number',
  'position',
] as const satisfies readonly (keyof Insertable<ReportIssuesTable>)[];

/** An issue's columns (`IssueRecord`): what the next report's comparison (E1.4), the changes list and the exports read. */
export const ISSUE_RECORD_COLUMNS = [
  'fingerprint',
  'analyzer_id',
  'analyzer_name',
  'category',
  'severity',
  'message',
  'file',
  'line',
  'column_number',
] as const;

/**
 * The rows of the report's own issues: those with a place in its upload. The `fixed` rows it
 * carries from its baseline have none (they are issues it no longer has).
 */
export function ownIssueRows(db: Db, reportId: number) {
  return db.selectFrom('report_issues').where('report_id', '=', reportId).where('position', 'is not', null);
}

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
    issues_by_severity: issuesBySeverityOf(row),
    framework_version: row.framework_version,
    package_version: row.package_version,
    total_execution_time: row.total_execution_time === null ? null : Number(row.total_execution_time),
    triggered_by: row.triggered_by,
    analyzed_at: row.analyzed_at,
    created_at: row.created_at,
  };
}

/** The summary's `issues_by_severity`, from the per-severity columns. */
function issuesBySeverityOf(
  row: Pick<Selectable<ReportsTable>, 'issues_critical' | 'issues_high' | 'issues_medium' | 'issues_low' | 'issues_info'>,
): ReportSummary['issues_by_severity'] {
  return { critical: row.issues_critical, high: row.issues_high, medium: row.issues_medium, low: row.issues_low, info: row.issues_info };
}

/*
 * The reads of every report route and report list, compiled once (prepared-query.ts) and, on
 * PostgreSQL, parsed and planned once per connection (named-statements.ts). A branch filter changes
 * the statement's shape, so each list has three: all reports, one branch's, the reports without one.
 */

/** The report with the caller's role in its project's team; none when the caller is no member (D15). */
const findReportForMember = preparedQuery((db: Db, uuid: string, userId: number) =>
  db
    .selectFrom('reports as r')
    .innerJoin('projects as p', 'p.id', 'r.project_id')
    .innerJoin('team_members as m', (join) => join.onRef('m.team_id', '=', 'p.team_id').on('m.user_id', '=', userId))
    .leftJoin('reports as b', 'b.id', 'r.baseline_report_id')
    .select(reportRowColumns.map((column) => `r.${column}` as const))
    .select(baselineColumns)
    .select('m.role')
    .where('r.uuid', '=', uuid),
);

const bodyOfReport = preparedQuery((db: Db, reportId: number) =>
  db
    .selectFrom('report_bodies')
    .select(['id', (isPostgres(db) ? sql<number>`octet_length(gzip)` : sql<number>`length(gzip)`).as('length')])
    .where('report_id', '=', reportId),
);

/** `from`: 1-based, as SQL's substring counts. */
const bodyPieceOf = preparedQuery((db: Db, bodyId: number, from: number, size: number) =>
  db
    .selectFrom('report_bodies')
    .select(
      (isPostgres(db) ? sql<Buffer>`substring(gzip from ${from} for ${size})` : sql<Buffer>`substr(gzip, ${from}, ${size})`).as('piece'),
    )
    .where('id', '=', bodyId),
);

type ProjectReports = ReturnType<typeof projectReports>;
const projectReports = (db: Db, projectId: string) => db.selectFrom('reports').where('project_id', '=', projectId);

/**
 * A read of a project's reports (E1.6: all, one branch's, or with `null` the reports without one) as
 * three prepared queries, one per shape of the filter; `build` adds the rest to the filtered reports.
 */
function preparedPerBranch<P extends unknown[], Row>(build: (db: Db, reports: ProjectReports, ...params: P) => Compilable<Row>) {
  const all = preparedQuery((db: Db, projectId: string, ...params: P) => build(db, projectReports(db, projectId), ...params));
  const withoutBranch = preparedQuery((db: Db, projectId: string, ...params: P) =>
    build(db, projectReports(db, projectId).where('git_branch', 'is', null), ...params),
  );
  const onBranch = preparedQuery((db: Db, projectId: string, branch: string, ...params: P) =>
    build(db, projectReports(db, projectId).where('git_branch', '=', branch), ...params),
  );
  return (db: Db, projectId: string, branch: string | null | undefined, ...params: P): Promise<Row[]> => {
    if (branch === undefined) return all(db, projectId, ...params);
    if (branch === null) return withoutBranch(db, projectId, ...params);
    return onBranch(db, projectId, branch, ...params);
  };
}

const countReports = preparedPerBranch((_db: Db, reports: ProjectReports) => reports.select(countAll.as('count')));

/**
 * D19's order: newest analyzed_at first, ties highest id; the first entry is latest_report. The
 * page's ids come from the project's index alone ((project_id, analyzed_at, id), or with a branch
 * (project_id, git_branch, analyzed_at, id)), then its rows are read and joined to their
 * baselines: a deep OFFSET skips index entries instead of reading every skipped report and its
 * baseline (page 500 of a 10,000-report project: 78 ms to 0.3 ms on SQLite, issue 15).
 */
const listReports = preparedPerBranch((db: Db, reports: ProjectReports, limit: number, offset: number) =>
  db
    .selectFrom(reports.select('id').orderBy('analyzed_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).as('page'))
    .innerJoin('reports as r', 'r.id', 'page.id')
    .leftJoin('reports as b', 'b.id', 'r.baseline_report_id')
    .select(reportListColumns.map((column) => `r.${column}` as const))
    .select(baselineColumns)
    .orderBy('r.analyzed_at', 'desc')
    .orderBy('r.id', 'desc'),
);

/** E2.1: the newest `limit` in D19's order (served by the project's analyzed_at and branch indexes). */
const trendReports = preparedPerBranch((_db: Db, reports: ProjectReports, limit: number) =>
  reports.select(trendColumns).orderBy('analyzed_at', 'desc').orderBy('id', 'desc').limit(limit),
);

/** Callers pass a transaction: a report write and its latest-report pointer change together. */
export function createReportsRepository(db: Db) {
  const repository = {
    async insert(report: NewReport): Promise<number> {
      const row = await db.insertInto('reports').values(report).returning('id').executeTakeFirstOrThrow();
      return row.id;
    },

    /** All of the project's reports, or (E1.6) one branch's; `null` names the reports without one. */
    async countForProject(projectId: string, branch?: string | null): Promise<number> {
      return Number((await countReports(db, projectId, branch))[0]!.count);
    },

    /** A page of the project's reports (or one branch's) in D19's order (`listReports`). */
    async listForProject(projectId: string, page: { limit: number; offset: number }, branch?: string | null): Promise<ReportListRow[]> {
      return listReports(db, projectId, branch, page.limit, page.offset);
    },

    /**
     * E2.1: the project's last `limit` reports (or one branch's, `null` for the reports without one),
     * oldest first. One statement: the newest `limit` in D19's order (served by the project's
     * analyzed_at and branch indexes), turned around here.
     */
    async trend(projectId: string, branch: string | null | undefined, limit: number): Promise<TrendRow[]> {
      return (await trendReports(db, projectId, branch, limit)).reverse();
    },

    /** E1.6: the latest report (D19's order) of each of the project's branches, newest first. */
    async latestPerBranch(projectId: string): Promise<ReportListRow[]> {
      const ranked = db
        .selectFrom('reports')
        .select(['id', sql<number>`row_number() over (partition by git_branch order by analyzed_at desc, id desc)`.as('place')])
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
     * E1.3: the project's latest report on `branch` (null matching null), in D19's order; when
     * `before` is given, among those that come before it in D19's order (a report not stored yet,
     * id null, comes after every stored one with its analyzed_at).
     */
    async findBaseline(
      projectId: string,
      on: { branch: string | null; before: { analyzed_at: string; id: number | null } | null },
    ): Promise<BaselineCandidate | undefined> {
      const { branch, before } = on;
      return db
        .selectFrom('reports')
        .select(['id', 'uuid', 'analyzed_at', 'git_branch', 'git_commit'])
        .where('project_id', '=', projectId)
        .where('git_branch', branch === null ? 'is' : '=', branch)
        .$if(before !== null, (query) =>
          query.where((eb) =>
            eb.or([
              eb('analyzed_at', '<', before!.analyzed_at),
              before!.id === null
                ? eb('analyzed_at', '=', before!.analyzed_at)
                : eb.and([eb('analyzed_at', '=', before!.analyzed_at), eb('id', '<', before!.id)]),
            ]),
          ),
        )
        .orderBy('analyzed_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
    },

    /** The fingerprints of the report's own issues (not the fixed ones it carries from its baseline), for the next comparison. */
    async fingerprintsOf(reportId: number): Promise<string[]> {
      const rows = await ownIssueRows(db, reportId).select('fingerprint').execute();
      return rows.map((row) => row.fingerprint);
    },

    /**
     * `fingerprintsOf` as one string, 32 hex digits per fingerprint, in no particular order: the
     * database concatenates them, so that a 75,000-issue baseline costs one string, not as many row
     * objects (an upload's comparison, D28).
     */
    async concatenatedFingerprintsOf(reportId: number): Promise<string> {
      const concatenated = isPostgres(db)
        ? sql<string | null>`string_agg(fingerprint, '')`
        : sql<string | null>`group_concat(fingerprint, '')`;
      // A part per (change rank, severity rank), each an index range of report_issues_report_idx,
      // with the event loop given back between them (time-slices.ts): one query over 75,000 rows
      // took 35 ms.
      let all = '';
      const pause = timeSlices();
      for (const changeRank of OWN_CHANGE_RANKS) {
        for (const severityRank of SEVERITIES.keys()) {
          const row = await ownIssueRows(db, reportId)
            .where('change_rank', '=', changeRank)
            .where('severity_rank', '=', severityRank)
            .select(concatenated.as('fingerprints'))
            .executeTakeFirst();
          all += row?.fingerprints ?? '';
          await pause();
        }
      }
      return all;
    },

    /** The report's own issues with these fingerprints, in the order they were stored (the next report's fixed ones). */
    async issuesWithFingerprints(reportId: number, fingerprints: readonly string[]): Promise<IssueRecord[]> {
      const found: (IssueRecord & { id: number })[] = [];
      for (let start = 0; start < fingerprints.length; start += FINGERPRINTS_PER_SELECT) {
        const rows = await ownIssueRows(db, reportId)
          .select(['id', ...ISSUE_RECORD_COLUMNS])
          .where('fingerprint', 'in', fingerprints.slice(start, start + FINGERPRINTS_PER_SELECT))
          .execute();
        found.push(...rows);
      }
      return found.sort((a, b) => a.id - b.id);
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
     * An upload's issues (prepared off the event loop, upload-processing.ts), each with its change
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
          // ISSUE_COLUMNS' order; `row` is upload-processing.ts's, from severity_rank to column_number.
          parameters.push(reportId, change, changeRank(change), ...row, position++);
        }
        await db.executeQuery(CompiledQuery.raw(issueInsertText(postgres, rows.length), parameters));
      }
    },

    /** The report's results as stored (stored-results.ts); undefined once the report is gone. */
    async resultsOf(reportId: number): Promise<ResultsColumns | undefined> {
      return db.selectFrom('reports').select(['results', 'results_br']).where('id', '=', reportId).executeTakeFirst();
    },

    /** D28: the report's stored answer (gzip-compressed), by its id and size, if it has one. */
    async bodyOf(reportId: number): Promise<{ id: number; length: number } | undefined> {
      return (await bodyOfReport(db, reportId))[0];
    },

    /** `size` bytes of the stored answer `bodyId` from `offset` (0-based); undefined once it is gone. */
    async bodyPiece(bodyId: number, offset: number, size: number): Promise<Buffer | undefined> {
      return (await bodyPieceOf(db, bodyId, offset + 1, size))[0]?.piece;
    },

    /**
     * Kept only while the report still has the baseline the body shows (`baselineId`), and once: a
     * body another read stored meanwhile is the same text. The report's row is locked (PostgreSQL),
     * so a deletion of its baseline (`dependentsOf`) comes wholly before or after.
     */
    async storeBody(reportId: number, baselineId: number | null, gzip: Buffer): Promise<void> {
      await inTransaction(db, async (trx) => {
        await lockForUpdate(trx, 'reports', reportId);
        const report = await trx.selectFrom('reports').select('baseline_report_id').where('id', '=', reportId).executeTakeFirst();
        if (!report || report.baseline_report_id !== baselineId) return;
        await trx
          .insertInto('report_bodies')
          .values({ report_id: reportId, gzip })
          .onConflict((conflict) => conflict.column('report_id').doNothing())
          .execute();
      });
    },

    async forgetBodies(reportIds: readonly number[]): Promise<void> {
      for (let start = 0; start < reportIds.length; start += FINGERPRINTS_PER_SELECT) {
        await db
          .deleteFrom('report_bodies')
          .where('report_id', 'in', reportIds.slice(start, start + FINGERPRINTS_PER_SELECT))
          .execute();
      }
    },

    /** E1.5: the fingerprint and change of each of the report's issues, in upload order. */
    async issueMarks(reportId: number): Promise<IssueMark[]> {
      return ownIssueRows(db, reportId).select(['fingerprint', 'change']).orderBy('position').execute() as Promise<IssueMark[]>;
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
      return (
        filteredChanges(db, reportId, filter)
          .select(['change', ...ISSUE_RECORD_COLUMNS])
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
          .execute()
      );
    },

    /** The report with the caller's role in its project's team; undefined when the caller is no member (D15). */
    async findForMember(uuid: string, userId: number): Promise<(ReportRow & { role: TeamRole }) | undefined> {
      return (await findReportForMember(db, uuid, userId))[0];
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
      const result = await db.deleteFrom('reports').where('id', 'in', ids).executeTakeFirst();
      await repository.forgetBodies(rows.map((row) => row.id));
      await repository.refreshLatest(projectId);
      return Number(result.numDeletedRows);
    },

    /** Retention (report-retention.ts): the projects with a report stored before `cutoff`, found through reports_created_idx. */
    async projectsStoredBefore(cutoff: string): Promise<string[]> {
      const rows = await db.selectFrom('reports').select('project_id').distinct().where('created_at', '<', cutoff).execute();
      return rows.map((row) => row.project_id);
    },

    /** Retention: the projects with more than `keep` reports. */
    async projectsWithMoreReportsThan(keep: number): Promise<string[]> {
      const rows = await db.selectFrom('reports').select('project_id').groupBy('project_id').having(countAll, '>', keep).execute();
      return rows.map((row) => row.project_id);
    },

    /**
     * Retention: up to `limit` of the project's reports past it (stored before `cutoff`, or older in
     * D19's order than its `keep` newest), oldest first, never one of `kept`.
     */
    async pastRetention(projectId: string, rule: RetentionRule, kept: readonly number[], limit: number): Promise<number[]> {
      // The `keep`-th newest report: every report after it in D19's order is past the count.
      const last =
        rule.keep === undefined
          ? undefined
          : await db
              .selectFrom('reports')
              .select(['analyzed_at', 'id'])
              .where('project_id', '=', projectId)
              .orderBy('analyzed_at', 'desc')
              .orderBy('id', 'desc')
              .limit(1)
              .offset(rule.keep - 1)
              .executeTakeFirst();
      if (rule.cutoff === undefined && last === undefined) return [];
      const rows = await db
        .selectFrom('reports')
        .select('id')
        .where('project_id', '=', projectId)
        .where((eb) => {
          const past = [];
          if (rule.cutoff !== undefined) past.push(eb('created_at', '<', rule.cutoff));
          if (last !== undefined)
            past.push(
              eb.or([eb('analyzed_at', '<', last.analyzed_at), eb.and([eb('analyzed_at', '=', last.analyzed_at), eb('id', '<', last.id)])]),
            );
          return eb.or(past);
        })
        .$if(kept.length > 0, (query) => query.where('id', 'not in', kept))
        .orderBy('analyzed_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },

    /**
     * Retention never deletes the project's latest report (D19), nor that report's baseline, whose
     * issues its changes list still shows as fixed (E1.6). Undefined when the project is gone.
     */
    async keptByRetention(projectId: string): Promise<number[] | undefined> {
      const row = await db
        .selectFrom('projects as p')
        .leftJoin('reports as r', 'r.id', 'p.latest_report_id')
        .select(['p.latest_report_id', 'r.baseline_report_id'])
        .where('p.id', '=', projectId)
        .executeTakeFirst();
      if (!row) return undefined;
      return [row.latest_report_id, row.baseline_report_id].filter((id): id is number => id !== null);
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
  return repository;
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
