import type { Caller } from '../auth/caller.js';

/** Where a request came from, for its audit events (E5): the client IP (D8's) and its User-Agent. */
export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
}

/** Who made a change (E5): a user through a personal access token, or the operator at the server's shell. */
export type AuditActor = { type: 'user'; id: number; email: string; tokenId: number | null; origin: RequestOrigin } | { type: 'operator' };

export const OPERATOR: AuditActor = { type: 'operator' };

/** The caller as their credential was rechecked inside the write's transaction (D22). */
export function userActor(caller: Caller, origin: RequestOrigin): AuditActor {
  return { type: 'user', id: caller.userId, email: caller.email, tokenId: caller.tokenId, origin };
}

/** A User-Agent is the client's text: kept to a bounded length. */
export const USER_AGENT_MAX = 512;
