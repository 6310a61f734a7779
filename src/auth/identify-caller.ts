import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Plan } from '../db/schema.js';
import { parseStoredAbilities } from './abilities.js';
import type { Caller } from './caller.js';
import { isWellFormedPersonalAccessToken } from './personal-access-token.js';
import type { LookupCache } from './token-cache.js';
import { hashToken } from './token-hash.js';

/** What the auth lookup needs, in one query: the token, its user and the user's subscription. */
export interface TokenAuthRow {
  id: number;
  user_id: number;
  email: string;
  abilities: string;
  expires_at: string | null;
  last_used_at: string | null;
  current_team_id: number | null;
  plan: string | null;
  subscription_status: string | null;
  subscription_ends_at: string | null;
}

/** D9: last_used_at is written at most once a minute per token, so reads stay reads. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The value after `Bearer `, or null when the header is missing or not a bearer credential. */
export function bearerValue(header: string | undefined): string | null {
  const match = header ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  return match ? match[1]! : null;
}

/** The token store's reads and D9's write, as the identifier uses them. */
export interface TokenLookups {
  findForAuth(tokenHash: string): Promise<TokenAuthRow | undefined>;
  touchLastUsed(id: number, at: string, staleBefore: string): Promise<unknown>;
}

/**
 * D4 step 1: identify the caller from the bearer token, else from the dashboard session (E7), without
 * rejecting anything. A token of the wrong shape or with a wrong checksum is dismissed before any
 * database lookup (D9).
 */
export function createCallerIdentifier(deps: {
  tokens: TokenLookups;
  clock: Clock;
  /** E7: the dashboard session of a request without a bearer token (sessions/identify-session.ts). */
  identifySession?: (request: FastifyRequest) => Promise<Caller | null>;
  /** Issue 15: this instance's cache of token lookups (token-cache.ts: SQLite only); without it every lookup reads the database. */
  cache?: LookupCache<TokenAuthRow>;
}) {
  const { tokens, cache } = deps;
  return async function identifyCaller(request: FastifyRequest): Promise<Caller | null> {
    const plainText = bearerValue(request.headers.authorization);
    // E7: a bearer token, when present, wins over the session cookie (even when it is no good).
    if (plainText === null) return deps.identifySession ? deps.identifySession(request) : null;
    if (!isWellFormedPersonalAccessToken(plainText)) return null;

    const tokenHash = hashToken(plainText);
    const row = cache ? await cache.get(tokenHash, () => tokens.findForAuth(tokenHash)) : await tokens.findForAuth(tokenHash);
    if (!row) return null;
    const now = deps.clock.now();
    const caller = callerFromAuthRow(row, now);
    if (caller === null) return null;

    if (row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      await tokens.touchLastUsed(row.id, now.toISOString(), new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString());
      // The cached row (if it is one) remembers the write, so the next one waits its minute (D9).
      row.last_used_at = now.toISOString();
    }
    return caller;
  };
}

/** The caller a token's auth row stands for at `now`, or null when the token has expired (D9). */
export function callerFromAuthRow(row: TokenAuthRow, now: Date): Caller | null {
  if (row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime()) return null;

  return {
    userId: row.user_id,
    email: row.email,
    tokenId: row.id,
    session: null,
    abilities: parseStoredAbilities(row.abilities),
    currentTeamId: row.current_team_id,
    activePlan: activePlanOf(row, now),
  };
}

/** D7: the plan of a subscription whose status is active and whose end date, if any, is in the future; else null. */
export function activePlanOf(
  row: { plan: string | null; subscription_status: string | null; subscription_ends_at: string | null },
  now: Date,
): Plan | null {
  const active =
    row.subscription_status === 'active' && (row.subscription_ends_at === null || Date.parse(row.subscription_ends_at) > now.getTime());
  return active ? (row.plan as Plan) : null;
}
