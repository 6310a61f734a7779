import type { Insertable } from 'kysely';
import type { Db } from '../db/database.js';
import { countAll } from '../db/dialect.js';
import type { IssueStatesTable, ReportIssuesTable } from '../db/schema.js';
import { selectStates, type StateRow } from './state-reads.js';

/**
 * E8's SQL: the only writer of `issue_states`. What it needs of the reports (which report holds an
 * issue) it reads with its own statements on `reports` and `report_issues`, so issues/ does not
 * depend on reports/.
 */

/** An issue as the newest report of the project holding it has it: what a state snapshots (E8.1 `issue`). */
export type HeldIssue = Pick<
  ReportIssuesTable,
  'fingerprint' | 'analyzer_id' | 'analyzer_name' | 'category' | 'severity' | 'message' | 'file' | 'line' | 'column_number'
> & { report_id: number };

/** A state as it is written: the decision, who made it when, and the issue as last seen. */
export type StateWrite = Omit<Insertable<IssueStatesTable>, 'previous_fingerprints'>;

/**
 * Reports probed per statement after the latest one: each statement looks every remaining
 * fingerprint up in each of these reports through the index on report_issues(report_id,
 * fingerprint), so it costs reports x fingerprints index probes.
 */
const REPORTS_PER_PROBE = 100;

/** Rows per insert: 19 columns each, well under SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const UPSERT_CHUNK = 500;

export function createIssuesRepository(db: Db) {
  /** The issues of `reportIds` among `fingerprints`, the fixed rows (a baseline's issue a report lacks) left out. */
  const heldIn = (reportIds: readonly number[], fingerprints: readonly string[]) =>
    db
      .selectFrom('report_issues')
      .select([
        'report_id',
        'fingerprint',
        'analyzer_id',
        'analyzer_name',
        'category',
        'severity',
        'message',
        'file',
        'line',
        'column_number',
      ])
      .where('report_id', 'in', reportIds)
      .where('fingerprint', 'in', fingerprints)
      .where((eb) => eb.or([eb('change', 'is', null), eb('change', '!=', 'fixed')]))
      .execute() as Promise<HeldIssue[]>;

  return {
    /**
     * E8.2: for each of `fingerprints` that a report of the project holds, the issue as the newest
     * such report (D19: `analyzed_at`, then id) has it. The reports are walked newest first: the
     * latest report alone (where the issues people decide about usually come from), then pages of
     * the others, and only the fingerprints not found yet are looked for further. A fingerprint no
     * report holds is absent from the answer (after every report was probed for it).
     */
    async newestHolders(projectId: string, fingerprints: readonly string[]): Promise<Map<string, HeldIssue>> {
      const found = new Map<string, HeldIssue>();
      let remaining = [...new Set(fingerprints)];
      let after: { analyzed_at: string; id: number } | null = null;
      let pageSize = 1;
      while (remaining.length > 0) {
        const cursor: { analyzed_at: string; id: number } | null = after;
        const reports: { id: number; analyzed_at: string }[] = await db
          .selectFrom('reports')
          .select(['id', 'analyzed_at'])
          .where('project_id', '=', projectId)
          .$if(cursor !== null, (query) =>
            query.where((eb) =>
              eb.or([
                eb('analyzed_at', '<', cursor!.analyzed_at),
                eb.and([eb('analyzed_at', '=', cursor!.analyzed_at), eb('id', '<', cursor!.id)]),
              ]),
            ),
          )
          .orderBy('analyzed_at', 'desc')
          .orderBy('id', 'desc')
          .limit(pageSize)
          .execute();
        if (reports.length === 0) break;
        const rank = new Map(reports.map((report, index) => [report.id, index]));
        for (const issue of await heldIn([...rank.keys()], remaining)) {
          const current = found.get(issue.fingerprint);
          if (current === undefined || rank.get(issue.report_id)! < rank.get(current.report_id)!) found.set(issue.fingerprint, issue);
        }
        remaining = remaining.filter((fingerprint) => !found.has(fingerprint));
        after = reports.at(-1)!;
        if (reports.length < pageSize) break;
        pageSize = REPORTS_PER_PROBE;
      }
      return found;
    },

    /**
     * Writes each state whole (PUT replaces): inserted, or every column but the fingerprints it had
     * before (E8.5) replaced. One statement per UPSERT_CHUNK states.
     */
    async upsert(states: readonly StateWrite[]): Promise<void> {
      for (let start = 0; start < states.length; start += UPSERT_CHUNK) {
        await db
          .insertInto('issue_states')
          .values(states.slice(start, start + UPSERT_CHUNK))
          .onConflict((conflict) =>
            conflict.columns(['project_id', 'fingerprint']).doUpdateSet((eb) => ({
              status: eb.ref('excluded.status'),
              comment: eb.ref('excluded.comment'),
              assignee_id: eb.ref('excluded.assignee_id'),
              expires_at: eb.ref('excluded.expires_at'),
              updated_by_id: eb.ref('excluded.updated_by_id'),
              updated_at: eb.ref('excluded.updated_at'),
              analyzer_id: eb.ref('excluded.analyzer_id'),
              analyzer_name: eb.ref('excluded.analyzer_name'),
              category: eb.ref('excluded.category'),
              severity: eb.ref('excluded.severity'),
              message: eb.ref('excluded.message'),
              file: eb.ref('excluded.file'),
              line: eb.ref('excluded.line'),
              column_number: eb.ref('excluded.column_number'),
              last_seen_report_id: eb.ref('excluded.last_seen_report_id'),
            })),
          )
          .execute();
      }
    },

    /**
     * E9.4: the state of each issue that has none yet, as `open` (a ticket is shown beside its
     * issue's state); an issue someone decided about keeps its state.
     */
    async insertOpen(states: readonly StateWrite[]): Promise<void> {
      for (let start = 0; start < states.length; start += UPSERT_CHUNK) {
        await db
          .insertInto('issue_states')
          .values(states.slice(start, start + UPSERT_CHUNK))
          .onConflict((conflict) => conflict.columns(['project_id', 'fingerprint']).doNothing())
          .execute();
      }
    },

    /** The project's states of `fingerprints`, as the answers read them, by fingerprint. */
    async states(projectId: string, fingerprints: readonly string[]): Promise<Map<string, StateRow>> {
      const states = new Map<string, StateRow>();
      for (let start = 0; start < fingerprints.length; start += UPSERT_CHUNK) {
        const rows = (await selectStates(db)
          .where('s.project_id', '=', projectId)
          .where('s.fingerprint', 'in', fingerprints.slice(start, start + UPSERT_CHUNK))
          .execute()) as StateRow[];
        for (const row of rows) states.set(row.fingerprint, row);
      }
      return states;
    },

    /** Whether `userId` belongs to the team (any role). */
    async isMember(teamId: number, userId: number): Promise<boolean> {
      const row = await db
        .selectFrom('team_members')
        .select('user_id')
        .where('team_id', '=', teamId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** "Assigned to me": how many states are assigned to `userId` in projects of teams they belong to. */
    async countAssigned(userId: number): Promise<number> {
      const row = await assignedTo(db, userId).select(countAll.as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** A page of them: latest change first, then by project (newest id first) and fingerprint. */
    async listAssigned(userId: number, page: { limit: number; offset: number }) {
      return (await selectStates(db)
        .innerJoin('projects as p', 'p.id', 's.project_id')
        .innerJoin('team_members as m', (join) => join.onRef('m.team_id', '=', 'p.team_id').on('m.user_id', '=', userId))
        .where('s.assignee_id', '=', userId)
        .select(['p.name as project_name'])
        .orderBy('s.updated_at', 'desc')
        .orderBy('s.project_id', 'desc')
        .orderBy('s.fingerprint', 'asc')
        .limit(page.limit)
        .offset(page.offset)
        .execute()) as (StateRow & { project_id: string; project_name: string })[];
    },
  };
}

/** The states assigned to `userId` that they may still see: their project's team has them as a member. */
function assignedTo(db: Db, userId: number) {
  return db
    .selectFrom('issue_states as s')
    .innerJoin('projects as p', 'p.id', 's.project_id')
    .innerJoin('team_members as m', (join) => join.onRef('m.team_id', '=', 'p.team_id').on('m.user_id', '=', userId))
    .where('s.assignee_id', '=', userId);
}

export type IssuesRepository = ReturnType<typeof createIssuesRepository>;
