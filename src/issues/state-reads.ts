import type { Db } from '../db/database.js';
import type { IssueState, IssueTicket, TicketProvider, TrackedIssue } from './issue-state.schemas.js';
import { effectiveStatus, type IssueStatus } from './issue-vocabulary.js';

/**
 * E8.1: reading a project's issue states, for every answer that shows them. A state row with the
 * names and the report it points to, joined once; `toIssueState` turns it into the answer's shape
 * at a given time (an expired acceptance reads `open`).
 */

/** A state row as the answers read it. */
export interface StateRow extends Partial<TicketColumns> {
  fingerprint: string;
  status: IssueStatus;
  comment: string | null;
  assignee_id: number | null;
  assignee_name: string | null;
  expires_at: string | null;
  updated_by_id: number | null;
  updated_by_name: string | null;
  updated_at: string;
  last_seen_uuid: string | null;
  last_seen_analyzed_at: string | null;
  previous_fingerprints: string;
  analyzer_id: string;
  analyzer_name: string;
  category: string | null;
  severity: 'critical' | 'high' | 'medium' | 'low' | 'info';
  message: string;
  file: string | null;
  line: number | null;
  column_number: number | null;
}

/** The ticket's columns beside a state (tickets/ writes them; null without a ticket): TicketColumns. */
export interface TicketColumns {
  ticket_provider: string | null;
  ticket_key: string | null;
  ticket_url: string | null;
  ticket_created_at: string | null;
  ticket_created_by_id: number | null;
  ticket_created_by_name: string | null;
  ticket_closed_at: string | null;
}

/** The ticket of TicketColumns; null without one. */
export function ticketOf(row: Partial<TicketColumns>): IssueTicket | null {
  if (row.ticket_provider == null || row.ticket_key == null || row.ticket_url == null || row.ticket_created_at == null) return null;
  return {
    provider: row.ticket_provider as TicketProvider,
    key: row.ticket_key,
    url: row.ticket_url,
    created_at: row.ticket_created_at,
    created_by: row.ticket_created_by_id == null ? null : { id: row.ticket_created_by_id, name: row.ticket_created_by_name ?? null },
    closed_at: row.ticket_closed_at ?? null,
  };
}

/**
 * E9.4: a state's ticket and its creator, left-joined onto a query of states `s` (every ticket has a
 * state: tickets/ records the issue's `open` state with it), in the same statement as the states.
 */
export const TICKET_COLUMNS = [
  't.provider as ticket_provider',
  't.key as ticket_key',
  't.url as ticket_url',
  't.created_at as ticket_created_at',
  't.created_by_id as ticket_created_by_id',
  'ticket_creator.name as ticket_created_by_name',
  't.closed_at as ticket_closed_at',
] as const;

/** The states query, joined with what the answer names; filter it further (`where`) before running it. */
export function selectStates(db: Db) {
  return db
    .selectFrom('issue_states as s')
    .leftJoin('users as assignee', 'assignee.id', 's.assignee_id')
    .leftJoin('users as updater', 'updater.id', 's.updated_by_id')
    .leftJoin('reports as seen', 'seen.id', 's.last_seen_report_id')
    .leftJoin('issue_tickets as t', (join) => join.onRef('t.project_id', '=', 's.project_id').onRef('t.fingerprint', '=', 's.fingerprint'))
    .leftJoin('users as ticket_creator', 'ticket_creator.id', 't.created_by_id')
    .select(TICKET_COLUMNS)
    .select([
      's.project_id',
      's.fingerprint',
      's.status',
      's.comment',
      's.assignee_id',
      'assignee.name as assignee_name',
      's.expires_at',
      's.updated_by_id',
      'updater.name as updated_by_name',
      's.updated_at',
      'seen.uuid as last_seen_uuid',
      'seen.analyzed_at as last_seen_analyzed_at',
      's.previous_fingerprints',
      's.analyzer_id',
      's.analyzer_name',
      's.category',
      's.severity',
      's.message',
      's.file',
      's.line',
      's.column_number',
    ]);
}

/**
 * The project's states, by fingerprint; all of them, or those of `fingerprints` (a project's states
 * are few beside a report's issues: reading them all and matching in memory is one indexed range).
 */
export async function statesOfProject(db: Db, projectId: string, fingerprints?: readonly string[]): Promise<Map<string, StateRow>> {
  const rows = (await selectStates(db).where('s.project_id', '=', projectId).execute()) as StateRow[];
  const wanted = fingerprints === undefined ? null : new Set(fingerprints);
  const states = new Map<string, StateRow>();
  for (const row of rows) if (wanted === null || wanted.has(row.fingerprint)) states.set(row.fingerprint, row);
  return states;
}

/** E8.1: an issue nobody decided about. */
export function openState(fingerprint: string): IssueState {
  return {
    fingerprint,
    status: 'open',
    comment: null,
    assignee: null,
    expires_at: null,
    updated_by: null,
    updated_at: null,
    last_seen_report: null,
    previous_fingerprints: [],
    ticket: null,
  };
}

/** E8.1 without `issue`, as of `now`; `row` undefined: nobody decided about it. */
export function toIssueState(fingerprint: string, row: StateRow | undefined, now: string): IssueState {
  if (row === undefined) return openState(fingerprint);
  return {
    fingerprint,
    status: effectiveStatus(row, now),
    comment: row.comment,
    assignee: row.assignee_id === null ? null : { id: row.assignee_id, name: row.assignee_name },
    expires_at: row.expires_at,
    updated_by: row.updated_by_id === null ? null : { id: row.updated_by_id, name: row.updated_by_name },
    updated_at: row.updated_at,
    last_seen_report:
      row.last_seen_uuid === null || row.last_seen_analyzed_at === null
        ? null
        : { uuid: row.last_seen_uuid, analyzed_at: row.last_seen_analyzed_at },
    previous_fingerprints: JSON.parse(row.previous_fingerprints) as string[],
    ticket: ticketOf(row),
  };
}

/** E8.1 whole: the state with the issue as last seen. */
export function toTrackedIssue(row: StateRow, now: string): TrackedIssue {
  return {
    ...toIssueState(row.fingerprint, row, now),
    issue: {
      analyzer_id: row.analyzer_id,
      analyzer_name: row.analyzer_name,
      category: row.category,
      severity: row.severity,
      message: row.message,
      location: locationOf(row),
    },
  };
}

/** An issue's location rebuilt from its row's columns (issue_states, report_issues): none without a file. */
export function locationOf(row: { file: string | null; line: number | null; column_number: number | null }) {
  if (row.file === null) return null;
  return {
    file: row.file,
    ...(row.line !== null && { line: row.line }),
    ...(row.column_number !== null && { column: row.column_number }),
  };
}

/**
 * A stored answer showing `states` is true until the first of their acceptances still in force
 * expires (E8.1); null: as long as nobody changes a state.
 */
export function freshUntil(states: Iterable<Pick<StateRow, 'status' | 'expires_at'>>, now: string): string | null {
  let first: string | null = null;
  for (const state of states) {
    if (state.status !== 'accepted' || state.expires_at === null || state.expires_at <= now) continue;
    if (first === null || state.expires_at < first) first = state.expires_at;
  }
  return first;
}

/** How many times the project's states changed: what a stored report answer records (migration 0019). */
export async function statesGeneration(db: Db, projectId: string): Promise<number> {
  const row = await db.selectFrom('issue_state_changes').select('generation').where('project_id', '=', projectId).executeTakeFirst();
  return row?.generation ?? 0;
}

/**
 * Every write to a project's states counts itself here, in its own transaction: the project's
 * stored report answers (D28) are then built again at their next read, with the new states.
 */
export async function countStatesChange(trx: Db, projectId: string): Promise<void> {
  await trx
    .insertInto('issue_state_changes')
    .values({ project_id: projectId, generation: 1 })
    .onConflict((conflict) =>
      conflict.column('project_id').doUpdateSet((eb) => ({ generation: eb('issue_state_changes.generation', '+', 1) })),
    )
    .execute();
}
