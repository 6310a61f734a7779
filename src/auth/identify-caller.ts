import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Plan } from '../db/schema.js';
import type { TokenAuthRow, TokensRepository } from '../tokens/tokens.repository.js';
import { parseStoredAbilities } from './abilities.js';
import type { Caller } from './caller.js';
import { isWellFormedPersonalAccessToken } from './personal-access-token.js';
import { hashToken } from './token-hash.js';

/** D9: last_used_at is written at most once a minute per token, so reads stay reads. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The value after `Bearer `, or null when the header is missing or not a bearer credential. */
export function bearerValue(header: string | undefined): string | null {
  const match = header ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
  return match ? match[1]! : null;
}

/**
 * D4 step 1: identify the caller from the bearer token without rejecting anything. A value of the
 * wrong shape or with a wrong checksum is dismissed before any database lookup (D9).
 */
export function createCallerIdentifier(deps: { tokens: Pick<TokensRepository, 'findForAuth' | 'touchLastUsed'>; clock: Clock }) {
  return async function identifyCaller(request: FastifyRequest): Promise<Caller | null> {
    const plainText = bearerValue(request.headers.authorization);
    if (plainText === null || !isWellFormedPersonalAccessToken(plainText)) return null;

    const row = await deps.tokens.findForAuth(hashToken(plainText));
    if (!row) return null;
    const now = deps.clock.now();
    const caller = callerFromAuthRow(row, now);
    if (caller === null) return null;

    if (row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      await deps.tokens.touchLastUsed(row.id, now.toISOString());
    }
    return caller;
  };
}

/** The caller a token's auth row stands for at `now`, or null when the token has expired (D9). */
export function callerFromAuthRow(row: TokenAuthRow, now: Date): Caller | null {
  if (row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime()) return null;

  // D7: active means status active and an end date, if any, in the future.
  const isSubscriptionActive =
    row.subscription_status === 'active' && (row.subscription_ends_at === null || Date.parse(row.subscription_ends_at) > now.getTime());

  return {
    userId: row.user_id,
    email: row.email,
    tokenId: row.id,
    abilities: parseStoredAbilities(row.abilities),
    currentTeamId: row.current_team_id,
    activePlan: isSubscriptionActive ? (row.plan as Plan) : null,
  };
}
