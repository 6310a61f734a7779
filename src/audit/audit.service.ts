import type { Caller } from '../auth/caller.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { paginationEnvelope, pageOffset, PAGE_SIZE } from '../wire/pagination.js';
import type { AuditEventRow, AuditScope } from './audit.repository.js';
import type { AuditEvent } from './audit.schemas.js';
import { createAuditRepository } from './audit.repository.js';

/** E5: the two lists of audit events, newest first, in D16's envelope. */
export function createAuditService(deps: { db: Db; clock: Clock }) {
  const audit = createAuditRepository(deps.db);

  async function page(scope: AuditScope, query: { page: number; action?: string }, path: string) {
    const total = await audit.count(scope, query.action);
    const offset = pageOffset(query.page);
    // D16: a page past the end is empty and not queried (its offset may not even fit in SQL).
    const rows = offset >= total ? [] : await audit.list(scope, { limit: PAGE_SIZE, offset }, query.action);
    return {
      data: rows.map(toAuditEvent),
      ...paginationEnvelope({ path, page: query.page, total, count: rows.length, filters: { action: query.action } }),
    };
  }

  return {
    /** A team's events (the route has checked that the caller is its owner or an admin). */
    teamEvents: (teamId: number, query: { page: number; action?: string }, path: string) => page({ teamId }, query, path),

    /** The caller's own actions and the events about them (their tokens, their account). */
    userEvents: (caller: Caller, query: { page: number; action?: string }, path: string) => page({ userId: caller.userId }, query, path),
  };
}

export type AuditService = ReturnType<typeof createAuditService>;

function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: row.id,
    action: row.action,
    actor: { type: row.actor_type, id: row.actor_id, email: row.actor_email, token_id: row.actor_token_id },
    target: { type: row.target_type, id: row.target_id },
    team_id: row.team_id,
    ip: row.ip,
    user_agent: row.user_agent,
    details: JSON.parse(row.details) as Record<string, unknown>,
    created_at: row.created_at,
  };
}
