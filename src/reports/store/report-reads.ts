import { sql, type Compilable } from 'kysely';
import type { Db } from '../../db/database.js';
import { countAll, countRows, isPostgres } from '../../db/dialect.js';
import { preparedQuery } from '../../db/prepared-query.js';
import type { TeamRole } from '../../db/schema.js';
import { changeRank, type IssueMark, type IssueRecord } from '../changes/issue-changes.js';
import type { ResultsColumns } from '../results/results-encoding.js';
import { SEVERITIES } from '../vocabulary.js';
import {
  type BaselineCandidate,
  baselineColumns,
  type ChangesFilter,
  IDS_PER_LIST,
  ISSUE_RECORD_COLUMNS,
  type ReportListRow,
  type ReportRow,
  reportListColumns,
  reportRowColumns,
  type RetentionRule,
  type TrendRow,
  trendColumns,
} from './report-rows.js';
import { timeSlices } from './time-slices.js';

/** The change ranks a report's own issues have (new, unchanged, none): fixed rows are its baseline's. */
const OWN_CHANGE_RANKS = (['new', 'unchanged', null] as const).map(changeRank);

/**
 * The rows of the report's own issues: those with a place in its upload. The `fixed` rows it
 * carries from its baseline have none (they are issues it no longer has).
 */
export function ownIssueRows(db: Db, reportId: number) {
  return db.selectFrom('report_issues').where('report_id', '=', reportId).where('position', 'is not', null);
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

/** A project's reports that belong to a pull request: reports_project_pull_request_idx holds exactly these. */
const pullRequestReports = (db: Db, projectId: string) =>
  db.selectFrom('reports').where('project_id', '=', projectId).where('pull_request', 'is not', null);

const countPullRequests = preparedQuery((db: Db, projectId: string) =>
  pullRequestReports(db, projectId).select(sql<number | string>`count(distinct pull_request)`.as('count')),
);

/**
 * The latest report (D19's order) of each pull request of the project, newest first, a page at a
 * time. The ranking and the page read the partial index alone (its columns are all they need);
 * only the page's reports are then read and joined to their baselines, as in `listReports`.
 */
const latestPerPullRequest = preparedQuery((db: Db, projectId: string, limit: number, offset: number) => {
  const ranked = pullRequestReports(db, projectId)
    .select([
      'id',
      'analyzed_at',
      sql<number>`row_number() over (partition by pull_request order by analyzed_at desc, id desc)`.as('place'),
    ])
    .as('ranked');
  const page = db
    .selectFrom(ranked)
    .select('ranked.id')
    .where('ranked.place', '=', 1)
    .orderBy('ranked.analyzed_at', 'desc')
    .orderBy('ranked.id', 'desc')
    .limit(limit)
    .offset(offset)
    .as('page');
  return db
    .selectFrom(page)
    .innerJoin('reports as r', 'r.id', 'page.id')
    .leftJoin('reports as b', 'b.id', 'r.baseline_report_id')
    .select(reportListColumns.map((column) => `r.${column}` as const))
    .select(baselineColumns)
    .orderBy('r.analyzed_at', 'desc')
    .orderBy('r.id', 'desc');
});

/** The report store's reads: lists, trends, baselines, issues, stored answers, retention's candidates. */
export function createReportReads(db: Db) {
  return {
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

    /**
     * E1.6: the latest report (D19's order) of each of the project's branches, newest first, with
     * the branch's number of reports (the dashboard opens on the branch with the most), counted by
     * the same window pass that ranks them.
     */
    async latestPerBranch(projectId: string): Promise<(ReportListRow & { report_count: number })[]> {
      const ranked = db
        .selectFrom('reports')
        .select([
          'id',
          sql<number>`row_number() over (partition by git_branch order by analyzed_at desc, id desc)`.as('place'),
          sql<number | string>`count(*) over (partition by git_branch)`.as('report_count'),
        ])
        .where('project_id', '=', projectId)
        .as('ranked');
      const rows = await selectListRows(db)
        .innerJoin(ranked, 'ranked.id', 'r.id')
        .select('ranked.report_count')
        .where('ranked.place', '=', 1)
        .orderBy('r.analyzed_at', 'desc')
        .orderBy('r.id', 'desc')
        .execute();
      // PostgreSQL's count is a bigint, which its driver hands over as a string.
      return rows.map((row) => ({ ...row, report_count: Number(row.report_count) }));
    },

    /** How many pull requests (distinct `pull_request` values) the project's reports name. */
    async countPullRequests(projectId: string): Promise<number> {
      return Number((await countPullRequests(db, projectId))[0]!.count);
    },

    /** A page of the project's pull requests, each as its latest report, newest first (`latestPerPullRequest`). */
    async latestPerPullRequest(projectId: string, page: { limit: number; offset: number }): Promise<ReportListRow[]> {
      return latestPerPullRequest(db, projectId, page.limit, page.offset);
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
      for (let start = 0; start < fingerprints.length; start += IDS_PER_LIST) {
        const rows = await ownIssueRows(db, reportId)
          .select(['id', ...ISSUE_RECORD_COLUMNS])
          .where('fingerprint', 'in', fingerprints.slice(start, start + IDS_PER_LIST))
          .execute();
        found.push(...rows);
      }
      return found.sort((a, b) => a.id - b.id);
    },

    /** The report's results as stored (results/results-encoding.ts); undefined once the report is gone. */
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

    /** E1.5: the fingerprint and change of each of the report's issues, in upload order. */
    async issueMarks(reportId: number): Promise<IssueMark[]> {
      return ownIssueRows(db, reportId).select(['fingerprint', 'change']).orderBy('position').execute() as Promise<IssueMark[]>;
    },

    /** E1.6: how many rows the changes list has, with these filters. */
    async countChanges(reportId: number, filter: ChangesFilter): Promise<number> {
      return countRows(filteredChanges(db, reportId, filter));
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
  };
}

export type ReportReads = ReturnType<typeof createReportReads>;

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
