import type { AuditEntry } from '../audit/audit-log.js';
import { recordAudits } from '../audit/audit-log.js';
import type { Caller } from '../auth/caller.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../db/database.js';
import { isRowId } from '../db/dialect.js';
import type { ProjectForWrite } from '../projects/project-write-access.js';
import { parseExpiry } from '../tokens/token-expiry.js';
import { ApiError, type FieldErrors, validationFailed } from '../wire/api-error.js';
import { PAGE_SIZE, pageOffset, paginationEnvelope } from '../wire/pagination.js';
import type { WebhookEvent } from '../webhooks/webhook-event-names.js';
import type { TrackedIssue } from './issue-state.schemas.js';
import { EXPIRY_MAX_DAYS, effectiveStatus, type IssueStatus, isDismissal } from './issue-vocabulary.js';
import { createIssuesRepository, type HeldIssue, type StateWrite } from './issues.repository.js';
import type { AssignedIssue, BulkIssuesBody, UpdateIssueBody } from './issues.schemas.js';
import { countStatesChange, type StateRow, toTrackedIssue } from './state-reads.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const FINGERPRINT = /^[0-9a-f]{32}$/;

/** E8.2: the 404 of a fingerprint no report of the project holds (or that is not one). */
export const issueNotFound = () => new ApiError(404, 'Not Found', 'Issue not found.');

/** The outbox (E6), given by features.ts: the events of one change, each with its own data. */
export type RecordEvents = (
  trx: Db,
  clock: Clock,
  projectId: string,
  events: readonly { event: WebhookEvent; data: Record<string, unknown> }[],
) => Promise<void>;

/** A decision as validated: what every issue it applies to is set to. */
interface Decision {
  status: IssueStatus;
  comment: string | null;
  assigneeId: number | null;
  expiresAt: string | null;
}

/**
 * E11.3: told, in the change's transaction, of issues newly assigned to someone (notifications/
 * emails them, features.ts wires it).
 */
export type IssuesAssigned = (
  trx: Db,
  change: { projectId: string; teamId: number; assigneeId: number; actorId: number; fingerprints: readonly string[] },
) => Promise<void>;

/**
 * E8.2 and E8.8: deciding about a project's issues, one or up to 500 at once, and the issues
 * assigned to a user. Every change runs in one transaction that checks the caller's credential
 * and role again and locks the project (D22, `projectForWrite`: an upload, which locks it too, comes
 * wholly before or wholly after), writes the states, counts the change for the stored report
 * answers, and writes an audit event and a webhook event per issue.
 */
export function createIssuesService(deps: {
  db: Db;
  clock: Clock;
  projectForWrite: ProjectForWrite;
  recordEvents: RecordEvents;
  issuesAssigned?: IssuesAssigned;
}) {
  const { db, clock } = deps;
  const now = () => clock.now().toISOString();

  /**
   * The body's rules beyond its schema (E8.2, D12): a dismissal needs a comment, an expiry goes only
   * with `accepted`, in the future and at most 365 days ahead, and an assignee is a member of the
   * project's team. Every failing field is reported at once.
   */
  async function decided(trx: Db, teamId: number, body: UpdateIssueBody, at: Date): Promise<Decision> {
    const errors: FieldErrors = {};
    const comment = body.comment ?? null;
    if (isDismissal(body.status) && comment === null) {
      errors.comment = [`The comment field is required when status is ${body.status}.`];
    }
    let expiresAt: string | null = null;
    if (body.expires_at !== undefined && body.expires_at !== null) {
      const parsed = parseExpiry(body.expires_at);
      if (body.status !== 'accepted') errors.expires_at = ['The expires at field is only allowed when status is accepted.'];
      else if (parsed === null) errors.expires_at = ['The expires at field must be a valid date.'];
      else if (parsed.getTime() <= at.getTime()) errors.expires_at = ['The expires at field must be a date after now.'];
      else if (parsed.getTime() > at.getTime() + EXPIRY_MAX_DAYS * DAY_MS) {
        errors.expires_at = [`The expires at field must be a date at most ${EXPIRY_MAX_DAYS} days from now.`];
      } else expiresAt = parsed.toISOString();
    }
    const assigneeId = body.assignee_id ?? null;
    if (assigneeId !== null && !(isRowId(assigneeId) && (await createIssuesRepository(trx).isMember(teamId, assigneeId)))) {
      errors.assignee_id = ["The selected assignee id is invalid: it must be a member of the project's team."];
    }
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    return { status: body.status, comment, assigneeId, expiresAt };
  }

  /**
   * Writes `decision` to each issue (each held by a report of the project: `held`) and counts the
   * change; answers the new states in the order of `fingerprints`, and the audit event of each.
   */
  async function write(
    trx: Db,
    context: { projectId: string; teamId: number; actorId: number; at: string },
    fingerprints: readonly string[],
    held: Map<string, HeldIssue>,
    decision: Decision,
  ): Promise<{ states: TrackedIssue[]; entries: AuditEntry[]; newlyAssigned: string[] }> {
    const repository = createIssuesRepository(trx);
    const before = await repository.states(context.projectId, fingerprints);
    const newlyAssigned =
      decision.assigneeId === null
        ? []
        : fingerprints.filter((fingerprint) => before.get(fingerprint)?.assignee_id !== decision.assigneeId);
    const rows: StateWrite[] = fingerprints.map((fingerprint) => {
      const { report_id: lastSeen, fingerprint: _fingerprint, ...issue } = held.get(fingerprint)!;
      return {
        project_id: context.projectId,
        fingerprint,
        status: decision.status,
        comment: decision.comment,
        assignee_id: decision.assigneeId,
        expires_at: decision.expiresAt,
        updated_by_id: context.actorId,
        updated_at: context.at,
        ...issue,
        last_seen_report_id: lastSeen,
      };
    });
    await repository.upsert(rows);
    await countStatesChange(trx, context.projectId);
    const after = await repository.states(context.projectId, fingerprints);
    const states = fingerprints.map((fingerprint) => toTrackedIssue(after.get(fingerprint)!, context.at));
    const entries: AuditEntry[] = fingerprints.map((fingerprint) => ({
      action: 'issue.updated',
      target: { type: 'issue', id: fingerprint },
      teamId: context.teamId,
      details: { project_id: context.projectId, ...auditedChange(before.get(fingerprint), decision, context.at) },
    }));
    return { states, entries, newlyAssigned };
  }

  return {
    /**
     * D4 step 7 for `{fingerprint}` (after the project's): 32 lowercase hex characters that a report
     * of the project holds, else 404 `Issue not found.`; checked again when writing.
     */
    async assertHeld(projectId: string, fingerprint: string): Promise<void> {
      if (!FINGERPRINT.test(fingerprint)) throw issueNotFound();
      const held = await createIssuesRepository(db).newestHolders(projectId, [fingerprint]);
      if (!held.has(fingerprint)) throw issueNotFound();
    },

    /** For each of `fingerprints` a report of the project holds, the issue as the newest such report has it (E9.4's ticket). */
    heldIssues(trx: Db, projectId: string, fingerprints: readonly string[]): Promise<Map<string, HeldIssue>> {
      return createIssuesRepository(trx).newestHolders(projectId, fingerprints);
    },

    /**
     * E9.4, in the ticket's transaction: the issues that have no state yet get one, `open`, changed by
     * the ticket's creator (every answer shows a ticket beside its issue's state); the change is
     * counted, so the stored report answers (D28) show the ticket.
     */
    async recordTicketed(trx: Db, projectId: string, held: readonly HeldIssue[], actorId: number, at: string): Promise<void> {
      await createIssuesRepository(trx).insertOpen(
        held.map(({ report_id: lastSeen, ...issue }) => ({
          project_id: projectId,
          status: 'open',
          comment: null,
          assignee_id: null,
          expires_at: null,
          updated_by_id: actorId,
          updated_at: at,
          ...issue,
          last_seen_report_id: lastSeen,
        })),
      );
      await countStatesChange(trx, projectId);
    },

    /** PUT: the issue's state replaced by the body (fields left out are cleared). */
    async update(credential: WriteCredential, projectId: string, fingerprint: string, body: UpdateIssueBody): Promise<TrackedIssue> {
      const [state] = await change(credential, projectId, [fingerprint], body, 'path');
      return state!;
    },

    /** POST bulk: one decision for up to 500 issues, all or nothing. */
    async updateMany(credential: WriteCredential, projectId: string, body: BulkIssuesBody): Promise<TrackedIssue[]> {
      const { fingerprints, ...decision } = body;
      return change(credential, projectId, fingerprints, decision, 'body');
    },

    /** GET /user/issues: the states assigned to the caller in the projects of their teams (D16). */
    async assignedTo(caller: Caller, page: number, path: string) {
      const repository = createIssuesRepository(db);
      const total = await repository.countAssigned(caller.userId);
      const offset = pageOffset(page);
      const rows = offset >= total ? [] : await repository.listAssigned(caller.userId, { limit: PAGE_SIZE, offset });
      const at = now();
      const data: AssignedIssue[] = rows.map((row) => ({
        ...toTrackedIssue(row, at),
        project: { id: row.project_id, name: row.project_name },
      }));
      return { data, ...paginationEnvelope({ path, page, total, count: data.length }) };
    },
  };

  /**
   * The change itself. `fingerprints` come from the path (one; not held: 404) or from the body (not
   * held: 422 naming each, D4 step 9).
   */
  async function change(
    credential: WriteCredential,
    projectId: string,
    fingerprints: readonly string[],
    body: UpdateIssueBody,
    from: 'path' | 'body',
  ): Promise<TrackedIssue[]> {
    if (from === 'path' && !fingerprints.every((fingerprint) => FINGERPRINT.test(fingerprint))) throw issueNotFound();
    return inTransaction(db, async (trx) => {
      const { project, actor } = await deps.projectForWrite(trx, credential, projectId, 'update');
      const at = clock.now();
      const held = await createIssuesRepository(trx).newestHolders(project.id, fingerprints);
      const missing = fingerprints.flatMap((fingerprint, index) => (held.has(fingerprint) ? [] : [[fingerprint, index] as const]));
      if (missing.length > 0) {
        if (from === 'path') throw issueNotFound();
        throw validationFailed(
          Object.fromEntries(
            missing.map(([fingerprint, index]) => [
              `fingerprints.${index}`,
              [`The selected fingerprints.${index} is invalid: no report of the project holds the issue ${fingerprint}.`],
            ]),
          ),
        );
      }
      const decision = await decided(trx, project.team_id, body, at);
      if (actor.type !== 'user') throw new Error('an issue is changed by a user');
      const { states, entries, newlyAssigned } = await write(
        trx,
        { projectId: project.id, teamId: project.team_id, actorId: actor.id, at: at.toISOString() },
        fingerprints,
        held,
        decision,
      );
      await recordAudits(trx, clock, actor, entries);
      await deps.recordEvents(
        trx,
        clock,
        project.id,
        states.map((state) => ({ event: 'issue.updated', data: { state } })),
      );
      if (decision.assigneeId !== null && newlyAssigned.length > 0) {
        await deps.issuesAssigned?.(trx, {
          projectId: project.id,
          teamId: project.team_id,
          assigneeId: decision.assigneeId,
          actorId: actor.id,
          fingerprints: newlyAssigned,
        });
      }
      return states;
    });
  }
}

export type IssuesService = ReturnType<typeof createIssuesService>;
export type { HeldIssue };

/**
 * E8.8's details of `issue.updated`: the status, assignee (id), comment and expiry, each as `{old,
 * new}`. The old status is the one the issue had at the change (an expired acceptance was `open`;
 * an issue nobody decided about too).
 */
function auditedChange(before: StateRow | undefined, decision: Decision, at: string) {
  return {
    status: { old: before === undefined ? 'open' : effectiveStatus(before, at), new: decision.status },
    assignee_id: { old: before?.assignee_id ?? null, new: decision.assigneeId },
    comment: { old: before?.comment ?? null, new: decision.comment },
    expires_at: { old: before?.expires_at ?? null, new: decision.expiresAt },
  };
}
