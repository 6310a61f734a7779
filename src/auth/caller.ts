import type { FastifyRequest } from 'fastify';
import type { Plan } from '../db/schema.js';
import { unauthenticated } from '../wire/api-error.js';
import type { Ability } from './abilities.js';

/** Who is calling, as established from a valid personal access token or dashboard session (D4 step 1). */
export interface Caller {
  userId: number;
  /** As stored when the credential was read (for audit events, E5). */
  email: string;
  /** The personal access token, or null when the caller is a dashboard session. */
  tokenId: number | null;
  /** The dashboard session (E7), or null when the caller is a token. */
  session: CallerSession | null;
  abilities: Ability[];
  currentTeamId: number | null;
  /** The plan of the user's active subscription (D7), or null when there is none. */
  activePlan: Plan | null;
}

/** E7: a signed-in dashboard user's session; it acts with the user's full rights. */
export interface CallerSession {
  id: number;
  /** What every non-GET request of the session must send in `X-CSRF-Token`. */
  csrfToken: string;
  /** The absolute end (7 days after sign-in) and the idle end (12 hours after it was last seen). */
  expiresAt: string;
  idleExpiresAt: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

/** The caller of a route that declares an ability; the route guard has already answered 401 otherwise. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw unauthenticated();
  return request.caller;
}
