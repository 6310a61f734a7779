import type { FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller.js';
import { activePlanOf } from '../auth/identify-caller.js';
import { hashToken } from '../auth/token-hash.js';
import type { Clock } from '../clock.js';
import type { SessionAuthRow, SessionsRepository } from './sessions.repository.js';
import { csrfTokenFor } from './session-secret.js';

/** E7: a session ends 12 hours after it was last seen, and 7 days after sign-in whatever happens. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** Like a token's last_used_at (D9): written at most once a minute, so reads stay reads. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

/**
 * E7 / D4 step 1 for the dashboard: the caller a session cookie stands for, or null (no cookie, an
 * unknown, ended or idle session). Never rejects; the route guard answers 401 for a null caller.
 */
export function createSessionIdentifier(deps: {
  sessions: Pick<SessionsRepository, 'findForAuth' | 'touch'>;
  clock: Clock;
  secretOf: (request: FastifyRequest) => string | null;
}) {
  return async function identifySession(request: FastifyRequest): Promise<Caller | null> {
    const secret = deps.secretOf(request);
    if (secret === null) return null;
    const row = await deps.sessions.findForAuth(hashToken(secret));
    if (!row) return null;
    const now = deps.clock.now();
    if (Date.parse(sessionEndsAt(row)) <= now.getTime()) return null;
    let lastSeen = row.last_seen_at;
    if (now.getTime() - Date.parse(row.last_seen_at) >= LAST_SEEN_RESOLUTION_MS) {
      lastSeen = now.toISOString();
      await deps.sessions.touch(row.id, lastSeen);
    }
    return callerFromSessionRow({ ...row, last_seen_at: lastSeen }, now, csrfTokenFor(secret));
  };
}

/**
 * The caller a session row stands for at `now`, or null when the session has ended (absolute or
 * idle). A session acts with the user's full rights (E7): every ability, the user's own plan (D7).
 */
export function callerFromSessionRow(row: SessionAuthRow, now: Date, csrfToken: string): Caller | null {
  const endsAt = sessionEndsAt(row);
  if (Date.parse(endsAt) <= now.getTime()) return null;
  return {
    userId: row.user_id,
    email: row.email,
    tokenId: null,
    session: {
      id: row.id,
      csrfToken,
      expiresAt: row.expires_at,
      idleExpiresAt: endsAt,
    },
    abilities: ['admin'],
    currentTeamId: row.current_team_id,
    activePlan: activePlanOf(row, now),
  };
}

/** When a session ends unless it is used again: 12 hours after it was last seen, never after its absolute end. */
export function sessionEndsAt(session: { last_seen_at: string; expires_at: string }): string {
  const idleEnd = Date.parse(session.last_seen_at) + SESSION_IDLE_MS;
  return new Date(Math.min(idleEnd, Date.parse(session.expires_at))).toISOString();
}
