import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import { OPERATOR } from '../audit/audit-actor.js';
import { recordAudit } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { dismissalInForce, type IssueStatus } from './issue-vocabulary.js';
import { countStatesChange } from './state-reads.js';

/**
 * E8.4 and E8.5 at upload: what a project's issue states do to a report being stored, in the
 * upload's transaction (the caller holds the project's lock). The reports feature calls it through
 * `UploadDecisions`, given to it in src/features.ts; this folder reads nothing of reports/ but
 * what that interface hands over and its own SQL.
 *
 * The common case, a project without states, costs one small query and nothing per issue.
 */

/** The length of a fingerprint (E1.2): 32 hexadecimal digits. */
const FINGERPRINT_LENGTH = 32;

/** What decides whether two issues are the same one reformatted (E8.5). */
export interface IssueIdentity {
  analyzer_id: string;
  file: string | null;
  message: string;
}

/** A report's issues in upload order, as the reports feature prepared them. */
export interface UploadedIssues {
  count: number;
  /** Their fingerprints (E1.2), 32 hexadecimal digits each, one after another in upload order. */
  fingerprints: string;
  /** Whether the issue at `index` is new against the report's baseline (E1.4); every issue is without one. */
  isNew(index: number): boolean;
  /** The analyzer, file and message of the issues at `indexes` (ascending), as their rows store them. */
  identities(indexes: readonly number[]): Promise<IssueIdentity[]>;
}

export interface UploadToDecide {
  projectId: string;
  /** The report being stored: its uuid (the audit event names it) and when it was analysed. */
  report: { uuid: string; analyzed_at: string };
  issues: UploadedIssues;
  /** The service clock at receipt: which dismissals are in force (E8.4). */
  now: string;
}

export interface UploadStates {
  /** The indexes of the issues under a dismissal in force (E8.4), ascending. */
  dismissed: readonly number[];
  /** Once the report's row and issue rows are written: the states it holds see it last (E8.1's `last_seen_report`). */
  recordSeen(trx: Db, reportId: number): Promise<void>;
}

/** The reports feature's view of this: called with the upload's transaction before the report's row is written. */
export type UploadDecisions = (trx: Db, upload: UploadToDecide) => Promise<UploadStates>;

const NO_STATES: UploadStates = { dismissed: [], recordSeen: async () => {} };

interface StateAtUpload extends IssueIdentity {
  fingerprint: string;
  status: IssueStatus;
  expires_at: string | null;
  previous_fingerprints: string;
}

/**
 * What else follows a state to its issue's new fingerprint, in the upload's transaction (E9.4: the
 * issue's ticket, tickets/ moves it), given by features.ts.
 */
export type FollowCarriedState = (trx: Db, projectId: string, from: string, to: string) => Promise<void>;

export function createUploadDecisions(deps: { clock: Clock; followers?: readonly FollowCarriedState[] }): UploadDecisions {
  return async (trx, upload) => {
    const { projectId, issues } = upload;
    const rows = (await trx
      .selectFrom('issue_states')
      .select(['fingerprint', 'status', 'expires_at', 'analyzer_id', 'file', 'message', 'previous_fingerprints'])
      .where('project_id', '=', projectId)
      .execute()) as StateAtUpload[];
    if (rows.length === 0) return NO_STATES;

    const states = new Map(rows.map((row) => [row.fingerprint, row]));
    // The report's issues that have a state: fingerprint -> index, and a flag per issue.
    const held = new Map<string, number>();
    const hasState = new Uint8Array(issues.count);
    await inSlices(issues.count, (i) => {
      const fingerprint = issues.fingerprints.slice(i * FINGERPRINT_LENGTH, (i + 1) * FINGERPRINT_LENGTH);
      if (states.has(fingerprint)) {
        held.set(fingerprint, i);
        hasState[i] = 1;
      }
    });

    const carried = await carryStates(trx, deps, upload, states, held, hasState);
    if (carried > 0) await countStatesChange(trx, projectId);

    const dismissed: number[] = [];
    for (const [fingerprint, index] of held) if (dismissalInForce(states.get(fingerprint)!, upload.now)) dismissed.push(index);
    dismissed.sort((a, b) => a - b);

    return {
      dismissed,
      async recordSeen(on, reportId) {
        if (held.size === 0) return;
        if ((await moveLastSeen(on, projectId, reportId, upload.report.analyzed_at)) > 0) await countStatesChange(on, projectId);
      },
    };
  };
}

/**
 * E8.5: each state whose fingerprint the report lacks moves to the report's one new issue without a
 * state with the same analyzer, file and message, when exactly one such issue exists and no other
 * such state wants it; otherwise nothing moves. All states sharing the three want the same issues,
 * so a state moves exactly when it is alone with its three and they have one candidate. `states`
 * (by fingerprint), `held` and `hasState` are updated. Returns how many states moved.
 */
async function carryStates(
  trx: Db,
  { clock, followers = [] }: { clock: Clock; followers?: readonly FollowCarriedState[] },
  upload: UploadToDecide,
  states: Map<string, StateAtUpload>,
  held: Map<string, number>,
  hasState: Uint8Array,
): Promise<number> {
  const { issues } = upload;
  const wanting = new Map<string, StateAtUpload[]>();
  for (const row of states.values()) {
    if (held.has(row.fingerprint)) continue;
    const key = identityKey(row);
    const list = wanting.get(key);
    if (list === undefined) wanting.set(key, [row]);
    else list.push(row);
  }
  if (wanting.size === 0) return 0;

  const open: number[] = [];
  for (let i = 0; i < issues.count; i++) if (hasState[i] === 0 && issues.isNew(i)) open.push(i);
  if (open.length === 0) return 0;
  const identities = await issues.identities(open);
  const candidates = new Map<string, number[]>();
  identities.forEach((identity, n) => {
    const key = identityKey(identity);
    if (!wanting.has(key)) return;
    const list = candidates.get(key);
    if (list === undefined) candidates.set(key, [open[n]!]);
    else list.push(open[n]!);
  });

  let moved = 0;
  let teamId: number | null | undefined;
  for (const [key, alike] of wanting) {
    const found = candidates.get(key);
    if (alike.length !== 1 || found === undefined || found.length !== 1) continue;
    const state = alike[0]!;
    const index = found[0]!;
    const from = state.fingerprint;
    const to = issues.fingerprints.slice(index * FINGERPRINT_LENGTH, (index + 1) * FINGERPRINT_LENGTH);
    const previous = [...(JSON.parse(state.previous_fingerprints) as string[]), from];
    await trx
      .updateTable('issue_states')
      // Its last-seen report held the old fingerprint: this report is where the new one was seen (recordSeen).
      .set({ fingerprint: to, previous_fingerprints: JSON.stringify(previous), last_seen_report_id: null })
      .where('project_id', '=', upload.projectId)
      .where('fingerprint', '=', from)
      .execute();
    for (const follow of followers) await follow(trx, upload.projectId, from, to);
    teamId ??= (await trx.selectFrom('projects').select('team_id').where('id', '=', upload.projectId).executeTakeFirst())?.team_id ?? null;
    // E8.8: the service moved it on its own, not a person: the operator's actor type, without id, email or token.
    await recordAudit(trx, clock, OPERATOR, {
      action: 'issue.state_carried',
      target: { type: 'issue', id: to },
      teamId,
      details: { project_id: upload.projectId, from, to, report: upload.report.uuid },
    });
    state.fingerprint = to;
    state.previous_fingerprints = JSON.stringify(previous);
    states.delete(from);
    states.set(to, state);
    held.set(to, index);
    hasState[index] = 1;
    moved++;
  }
  return moved;
}

function identityKey(identity: IssueIdentity): string {
  return JSON.stringify([identity.analyzer_id, identity.file, identity.message]);
}

/**
 * E8.1's `last_seen_report` and `issue`: the states of the report's issues (not the baseline's
 * `fixed` rows it also holds) take the report and their issue's row, when the report comes after
 * the one they last saw in D19's order (`analyzed_at`, then id), or they saw none. One statement,
 * a probe of report_issues(report_id, fingerprint) per state of the project. Returns how many moved.
 */
async function moveLastSeen(trx: Db, projectId: string, reportId: number, analyzedAt: string): Promise<number> {
  const result = await sql`
    update issue_states set
      last_seen_report_id = ri.report_id,
      analyzer_id = ri.analyzer_id,
      analyzer_name = ri.analyzer_name,
      category = ri.category,
      severity = ri.severity,
      message = ri.message,
      file = ri.file,
      line = ri.line,
      column_number = ri.column_number
    from report_issues ri
    where issue_states.project_id = ${projectId}
      and ri.report_id = ${reportId}
      and ri.fingerprint = issue_states.fingerprint
      and (ri.change is null or ri.change <> 'fixed')
      and (
        issue_states.last_seen_report_id is null
        or not exists (
          select 1 from reports seen
          where seen.id = issue_states.last_seen_report_id
            and (seen.analyzed_at > ${analyzedAt} or (seen.analyzed_at = ${analyzedAt} and seen.id > ${reportId}))
        )
      )`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * Whether any of the project's states last saw one of `reportIds`: deleting those reports sets their
 * `last_seen_report` to null, a change of the states the project's stored answers show.
 */
export async function statesSeenIn(db: Db, reportIds: readonly number[]): Promise<boolean> {
  if (reportIds.length === 0) return false;
  const row = await db
    .selectFrom('issue_states')
    .select('project_id')
    .where('last_seen_report_id', 'in', reportIds)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Steps between two looks at the clock in a pass over a large report's issues. */
const STEP = 2_000;
/** D28: the event loop is given back once a slice of this many ms is used (as reports/store/time-slices.ts does). */
const SLICE_MS = 10;

async function inSlices(count: number, work: (i: number) => void): Promise<void> {
  let since = performance.now();
  for (let start = 0; start < count; start += STEP) {
    if (performance.now() - since >= SLICE_MS) {
      await nextTurn();
      since = performance.now();
    }
    for (let i = start; i < Math.min(count, start + STEP); i++) work(i);
  }
}
