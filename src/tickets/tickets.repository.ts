import type { Insertable } from 'kysely';
import type { Db } from '../db/database.js';
import type { IssueTicketsTable } from '../db/schema.js';
import type { IssueTicket, TicketProvider } from '../issues/issue-state.schemas.js';
import { UUID_PATTERN } from '../projects/permissions.js';

/**
 * E9.3 and E9.4's SQL: the only writer of `issue_tickets`. It reads a project's tracker link
 * (`projects.tracker_connection_id`, written by projects/), the connection it names (connections/)
 * and the report a ticket is made from (reports/), each with its own statement.
 */

interface TicketRow {
  fingerprint: string;
  provider: string;
  key: string;
  url: string;
  created_at: string;
  created_by_id: number | null;
  created_by_name: string | null;
  closed_at: string | null;
}

export function toTicket(row: TicketRow): IssueTicket {
  return {
    provider: row.provider as TicketProvider,
    key: row.key,
    url: row.url,
    created_at: row.created_at,
    created_by: row.created_by_id === null ? null : { id: row.created_by_id, name: row.created_by_name },
    closed_at: row.closed_at,
  };
}

export function createTicketsRepository(db: Db) {
  return {
    /** E9.3: the project's tracker connection, if it has one (its id, provider and name). */
    async trackerOf(projectId: string): Promise<{ id: string; provider: TicketProvider; name: string } | null> {
      // Linking checks the provider is a ticket provider (E9.3), and a connection's provider never changes.
      const row = await db
        .selectFrom('projects as p')
        .innerJoin('connections as c', 'c.id', 'p.tracker_connection_id')
        .select(['c.id', 'c.provider', 'c.name'])
        .where('p.id', '=', projectId)
        .executeTakeFirst();
      return row === undefined ? null : { ...row, provider: row.provider as TicketProvider };
    },

    /** A connection of the team, as the tracker's answer names it; undefined when the team has none with that id. */
    /** An id that is no UUID names no connection, and never reaches the database (a NUL byte would fail there). */
    async connectionOfTeam(teamId: number, id: string): Promise<{ id: string; provider: string; name: string } | undefined> {
      if (!UUID_PATTERN.test(id)) return undefined;
      return db
        .selectFrom('connections')
        .select(['id', 'provider', 'name'])
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** The project's tickets of `fingerprints`, by fingerprint. */
    async tickets(projectId: string, fingerprints: readonly string[]): Promise<Map<string, IssueTicket>> {
      if (fingerprints.length === 0) return new Map();
      const rows = await db
        .selectFrom('issue_tickets as t')
        .leftJoin('users as u', 'u.id', 't.created_by_id')
        .select([
          't.fingerprint',
          't.provider',
          't.key',
          't.url',
          't.created_at',
          't.created_by_id',
          'u.name as created_by_name',
          't.closed_at',
        ])
        .where('t.project_id', '=', projectId)
        .where('t.fingerprint', 'in', fingerprints)
        .execute();
      return new Map(rows.map((row) => [row.fingerprint, toTicket(row)]));
    },

    /** Stores a ticket; false when the issue has one already (one ticket per issue). */
    async insert(row: Insertable<IssueTicketsTable>): Promise<boolean> {
      const inserted = await db
        .insertInto('issue_tickets')
        .values(row)
        .onConflict((conflict) => conflict.columns(['project_id', 'fingerprint']).doNothing())
        .returning('fingerprint')
        .executeTakeFirst();
      return inserted !== undefined;
    },

    /**
     * E9.5: the tickets of the issues `reportId` lists as fixed, whose report was on `branch` or on
     * none (a ticket made from a report without a branch is closed by any branch's fix), and whose
     * connection still exists.
     */
    async fixedIn(projectId: string, reportId: number, branch: string | null) {
      return db
        .selectFrom('issue_tickets as t')
        .innerJoin('report_issues as ri', (join) =>
          join.onRef('ri.fingerprint', '=', 't.fingerprint').on('ri.report_id', '=', reportId).on('ri.change', '=', 'fixed'),
        )
        .innerJoin('connections as c', 'c.id', 't.connection_id')
        .select(['t.fingerprint', 't.provider', 't.key', 't.remote', 't.connection_id', 'c.team_id'])
        .where('t.project_id', '=', projectId)
        .where((eb) => (branch === null ? eb('t.branch', 'is', null) : eb.or([eb('t.branch', 'is', null), eb('t.branch', '=', branch)])))
        .orderBy('t.created_at')
        .orderBy('t.fingerprint')
        .execute();
    },

    /**
     * E9.5: a ticket closed at its provider (by its key: a later carry may have moved it to another
     * fingerprint). Whether it was open until now: the project's states then changed.
     */
    async markClosed(projectId: string, provider: string, key: string, at: string): Promise<boolean> {
      const result = await db
        .updateTable('issue_tickets')
        .set({ closed_at: at })
        .where('project_id', '=', projectId)
        .where('provider', '=', provider)
        .where('key', '=', key)
        .where('closed_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** The report a ticket is made from: its uuid, commit, branch and stored results. */
    async report(reportId: number) {
      return db
        .selectFrom('reports')
        .select(['id', 'uuid', 'git_commit', 'git_branch', 'results', 'results_br'])
        .where('id', '=', reportId)
        .executeTakeFirst();
    },
  };
}

/** E8.5 (features.ts hands it to the upload's decisions): a state moved to a new fingerprint takes its ticket along. */
export async function moveTicket(trx: Db, projectId: string, from: string, to: string): Promise<void> {
  await trx
    .updateTable('issue_tickets')
    .set({ fingerprint: to })
    .where('project_id', '=', projectId)
    .where('fingerprint', '=', from)
    .execute();
}
