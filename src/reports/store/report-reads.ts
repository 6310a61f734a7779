import { sql, type Compilable, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import { countAll, countRows, isPostgres } from '../../db/dialect.js';
import { preparedQuery } from '../../db/prepared-query.js';
import type { Database, TeamRole } from '../../db/schema.js';
import { changeRank, type IssueMark, type IssueRecord } from '../changes/issue-changes.js';
import type { ResultsColumns } from '../results/results-encoding.js';
import { SEVERITIES } from '../vocabulary.js';
import { DISMISSALS } from '../../issues/issue-vocabulary.js';
import { type StateRow, TICKET_COLUMNS, type TicketColumns } from '../../issues/state-reads.js';
import {
  type BaselineCandidate,
  baselineColumns,
  type ChangesFilter,
  type ChangeRow,
  IDS_PER_LIST,
  ISSUE_RECORD_COLUMNS,
  type ReportListRow,
  type ProjectIssuesFilter,
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
    .select([
      'id',
      (isPostgres(db) ? sql<number>`octet_length(gzip)` : sql<number>`length(gzip)`).as('length'),
      'states_generation',
      'fresh_until',
    ])
    .where('report_id', '=', reportId)
    .where('superseded_at', 'is', null),
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

    /**
     * D28: the report's stored answer (gzip-compressed), by its id and size, if it has one; with the
     * project's states generation it shows and until when its states are true (E8.3).
     */
    async bodyOf(reportId: number): Promise<StoredBodyRow | undefined> {
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

    /** E1.6: how many rows the changes list has, with these filters (E8.3's state as of `now`). */
    async countChanges(report: ReportRef, filter: ChangesFilter, now: string): Promise<number> {
      return countRows(filteredChanges(db, report, filter, now));
    },

    /** E1.6: new, then fixed, then unchanged; each by severity (critical first), analyzer id, file, line; each with its state. */
    async listChanges(report: ReportRef, filter: ChangesFilter, now: string, page: { limit: number; offset: number }) {
      return (
        withStateColumns(
          filteredChanges(db, report, filter, now).leftJoin('issue_states as s', (join) =>
            join.on('s.project_id', '=', report.project_id).onRef('s.fingerprint', '=', 'i.fingerprint'),
          ),
        )
          .select(['i.change', ...ISSUE_RECORD_COLUMNS.map((column) => `i.${column}` as const)])
          .orderBy('i.change_rank')
          .orderBy('i.severity_rank')
          .orderBy('i.analyzer_id')
          // Nulls last on both databases (SQLite puts them first, PostgreSQL last).
          .orderBy(sql`i.file is null`)
          .orderBy('i.file')
          .orderBy(sql`i.line is null`)
          .orderBy('i.line')
          .orderBy('i.id')
          .limit(page.limit)
          .offset(page.offset)
          .execute()
      );
    },

    /**
     * D19: the project's latest report, or the latest of one branch (`null`: of the reports without
     * one); undefined when there is none.
     */
    async latestReportId(projectId: string, branch: string | null | undefined): Promise<number | undefined> {
      if (branch === undefined) {
        const project = await db.selectFrom('projects').select('latest_report_id').where('id', '=', projectId).executeTakeFirst();
        return project?.latest_report_id ?? undefined;
      }
      return (await this.findBaseline(projectId, { branch, before: null }))?.id;
    },

    /** E8.2: how many of the report's own issues the project's issue list has, with these filters. */
    async countProjectIssues(report: ReportRef, filter: ProjectIssuesFilter, now: string): Promise<number> {
      return countRows(filteredProjectIssues(db, report, filter, now));
    },

    /** E8.2: a page of the report's own issues, most severe first, then analyzer id, file, line (the changes list's order). */
    async listProjectIssues(
      report: ReportRef,
      filter: ProjectIssuesFilter,
      now: string,
      page: { limit: number; offset: number },
    ): Promise<(ChangeRow & StateColumns)[]> {
      return withStateColumns(filteredProjectIssues(db, report, filter, now))
        .select(['i.change', ...ISSUE_RECORD_COLUMNS.map((column) => `i.${column}` as const)])
        .orderBy('i.severity_rank')
        .orderBy('i.analyzer_id')
        .orderBy(sql`i.file is null`)
        .orderBy('i.file')
        .orderBy(sql`i.line is null`)
        .orderBy('i.line')
        .orderBy('i.id')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
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

export interface StoredBodyRow {
  id: number;
  length: number;
  states_generation: number;
  fresh_until: string | null;
}

/** Report list rows with their baseline's uuid, time, branch and commit (E1.5), in one query. */
function selectListRows(db: Db) {
  return db
    .selectFrom('reports as r')
    .leftJoin('reports as b', 'b.id', 'r.baseline_report_id')
    .select(reportListColumns.map((column) => `r.${column}` as const))
    .select(baselineColumns);
}

/** A report as its issue lists read it: its rows, and its project's states (E8.3). */
export interface ReportRef {
  id: number;
  project_id: string;
}

/** E8.1: the dismissals of `s` (issue_states) in force at `now`: an acceptance only until it expires. */
function dismissalInForce(eb: ExpressionBuilder<Database & { s: Database['issue_states'] }, 's'>, now: string) {
  return eb.or([
    eb(
      's.status',
      'in',
      DISMISSALS.filter((status) => status !== 'accepted'),
    ),
    eb.and([eb('s.status', '=', 'accepted'), eb.or([eb('s.expires_at', 'is', null), eb('s.expires_at', '>', now)])]),
  ]);
}

function filteredChanges(db: Db, report: ReportRef, filter: ChangesFilter, now: string) {
  return db
    .selectFrom('report_issues as i')
    .where('i.report_id', '=', report.id)
    .$if(filter.kind !== undefined, (query) => query.where('i.change', '=', filter.kind!))
    .$if(filter.severity !== undefined, (query) => query.where('i.severity_rank', '=', SEVERITIES.indexOf(filter.severity!)))
    .$if(filter.state !== undefined, (query) =>
      query.where((eb) => {
        // The project's state of the row's fingerprint, if it is a dismissal in force (primary key).
        const dismissed = eb.exists(
          eb
            .selectFrom('issue_states as s')
            .select(sql`1`.as('one'))
            .where('s.project_id', '=', report.project_id)
            .whereRef('s.fingerprint', '=', 'i.fingerprint')
            .where((inner) => dismissalInForce(inner, now)),
        );
        return filter.state === 'dismissed' ? dismissed : eb.not(dismissed);
      }),
    );
}

/** A state's columns as an issue list reads them beside the issue (issues/state-reads.ts' StateRow, prefixed); all null without a state. */
export interface StateColumns extends TicketColumns {
  state_status: StateRow['status'] | null;
  state_comment: string | null;
  state_assignee_id: number | null;
  state_assignee_name: string | null;
  state_expires_at: string | null;
  state_updated_by_id: number | null;
  state_updated_by_name: string | null;
  state_updated_at: string | null;
  state_last_seen_uuid: string | null;
  state_last_seen_analyzed_at: string | null;
  state_previous_fingerprints: string | null;
}

/**
 * The issues of `query` with their state (`s`, joined by the caller) and what it names: in the same
 * statement as the page, so that a list costs the same statements whatever it holds.
 */
function withStateColumns<O>(
  query: SelectQueryBuilder<Database & { i: Database['report_issues']; s: Database['issue_states'] }, 'i' | 's', O>,
) {
  return query
    .leftJoin('users as assignee', 'assignee.id', 's.assignee_id')
    .leftJoin('users as updater', 'updater.id', 's.updated_by_id')
    .leftJoin('reports as seen', 'seen.id', 's.last_seen_report_id')
    .leftJoin('issue_tickets as t', (join) => join.onRef('t.project_id', '=', 's.project_id').onRef('t.fingerprint', '=', 's.fingerprint'))
    .leftJoin('users as ticket_creator', 'ticket_creator.id', 't.created_by_id')
    .select(TICKET_COLUMNS)
    .select([
      's.status as state_status',
      's.comment as state_comment',
      's.assignee_id as state_assignee_id',
      'assignee.name as state_assignee_name',
      's.expires_at as state_expires_at',
      's.updated_by_id as state_updated_by_id',
      'updater.name as state_updated_by_name',
      's.updated_at as state_updated_at',
      'seen.uuid as state_last_seen_uuid',
      'seen.analyzed_at as state_last_seen_analyzed_at',
      's.previous_fingerprints as state_previous_fingerprints',
    ])
    .$castTo<O & StateColumns>();
}

/** E8.2: the report's own issues (not the fixed rows of its baseline) with the project's state of each, filtered. */
function filteredProjectIssues(db: Db, report: ReportRef, filter: ProjectIssuesFilter, now: string) {
  const { status, severity, assignee } = filter;
  return db
    .selectFrom('report_issues as i')
    .leftJoin('issue_states as s', (join) => join.on('s.project_id', '=', report.project_id).onRef('s.fingerprint', '=', 'i.fingerprint'))
    .where('i.report_id', '=', report.id)
    .where('i.position', 'is not', null)
    .$if(severity !== undefined, (query) => query.where('i.severity_rank', '=', SEVERITIES.indexOf(severity!)))
    .$if(assignee !== undefined, (query) => query.where('s.assignee_id', assignee === null ? 'is' : '=', assignee!))
    .$if(status !== undefined, (query) =>
      query.where((eb) => {
        if (status === 'open') {
          // No state, a state `open`, or an acceptance that has expired (E8.1).
          return eb.or([
            eb('s.status', 'is', null),
            eb('s.status', '=', 'open'),
            eb.and([eb('s.status', '=', 'accepted'), eb('s.expires_at', 'is not', null), eb('s.expires_at', '<=', now)]),
          ]);
        }
        if (status === 'accepted') {
          return eb.and([eb('s.status', '=', 'accepted'), eb.or([eb('s.expires_at', 'is', null), eb('s.expires_at', '>', now)])]);
        }
        return eb('s.status', '=', status!);
      }),
    );
}
