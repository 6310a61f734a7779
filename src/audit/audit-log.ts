import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { storableText } from '../wire/storable-text.js';
import type { AuditAction, AuditTargetType } from './audit-actions.js';
import { USER_AGENT_MAX, type AuditActor } from './audit-actor.js';
import { createAuditRepository, type NewAuditEvent } from './audit.repository.js';

export interface AuditEntry {
  action: AuditAction;
  target: { type: AuditTargetType; id: string | number | null };
  /** The team the change belongs to (its audit list shows it), or null. */
  teamId: number | null;
  /** The user the change concerns, when that is not the actor (GET /user/audit-events shows it them). */
  userId?: number | null;
  /** What changed: old and new values of changed fields, or the created thing's fields. Never a secret. */
  details?: Record<string, unknown>;
}

/**
 * E5: writes one audit event. Call it with the transaction of the change it describes, so the event
 * exists exactly when the change does: a rolled-back change leaves no event.
 */
export async function recordAudit(trx: Db, clock: Clock, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await createAuditRepository(trx).insert([auditRow(clock, actor, entry)]);
}

/**
 * E5: writes several audit events of one change at once (a bulk change writes one per thing it
 * changed), in as few statements as the database takes; the same rules as `recordAudit`.
 */
export async function recordAudits(trx: Db, clock: Clock, actor: AuditActor, entries: readonly AuditEntry[]): Promise<void> {
  await createAuditRepository(trx).insert(entries.map((entry) => auditRow(clock, actor, entry)));
}

function auditRow(clock: Clock, actor: AuditActor, entry: AuditEntry): NewAuditEvent {
  const user = actor.type === 'user' ? actor : null;
  const userAgent = user?.origin.userAgent;
  return {
    action: entry.action,
    actor_type: actor.type,
    actor_id: user?.id ?? null,
    actor_email: user?.email ?? null,
    actor_token_id: user?.tokenId ?? null,
    target_type: entry.target.type,
    target_id: entry.target.id === null ? null : String(entry.target.id),
    team_id: entry.teamId,
    user_id: entry.userId ?? null,
    ip: user?.origin.ip ?? null,
    user_agent: userAgent ? storableText(userAgent.slice(0, USER_AGENT_MAX)) : null,
    details: JSON.stringify(entry.details ?? {}),
    created_at: clock.now().toISOString(),
  };
}

/**
 * The fields of `after` whose value differs from `before`, as `{field: {old, new}}` (E5's details of
 * an update). Values are compared as JSON, so objects (a project's settings) compare by content.
 */
export function changedFields(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, { old: unknown; new: unknown }> {
  const changes: Record<string, { old: unknown; new: unknown }> = {};
  for (const [field, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const old = before[field] ?? null;
    if (JSON.stringify(old) !== JSON.stringify(value)) changes[field] = { old, new: value };
  }
  return changes;
}
