import { OPERATOR, type AuditActor } from '../audit/audit-actor.js';
import { recordAudit } from '../audit/audit-log.js';
import { recheckActor } from '../audit/audit-actor.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Clock } from '../clock.js';
import { isRowId, lockForUpdate } from '../db/dialect.js';
import { inTransaction, type Db } from '../db/database.js';
import { normalizeAbilities, parseStoredAbilities, type Ability } from '../auth/abilities.js';
import { generatePersonalAccessToken } from '../auth/personal-access-token.js';
import { hashToken } from '../auth/token-hash.js';
import { invalidField, notFound, tokenLimitReached } from '../wire/api-error.js';
import { parseExpiry } from './token-expiry.js';
import type { TokenRow } from './tokens.repository.js';
import type { TokenMetadata } from './tokens.schemas.js';
import { createTokensRepository } from './tokens.repository.js';

/** api-v1.md section 8 / D9: personal access tokens per user. */
export const MAX_TOKENS_PER_USER = 10;

export interface NewTokenInput {
  name: string;
  abilities: Ability[];
  expiresAt: Date | null;
}

export function createTokensService(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  const tokens = createTokensRepository(db);

  return {
    async listTokens(userId: number): Promise<TokenMetadata[]> {
      return (await tokens.listForUser(userId)).map(toMetadata);
    },

    /** D4 step 8: the limit is a 403 of state, answered before the body is validated. */
    async assertBelowTokenLimit(userId: number): Promise<void> {
      if ((await tokens.countForUser(userId)) >= MAX_TOKENS_PER_USER) throw tokenLimitReached(MAX_TOKENS_PER_USER);
    },

    /** D9: `expires_at` must parse and lie in the future; returns the instant or null for none. */
    parseRequestedExpiry(text: string | null | undefined): Date | null {
      if (text === undefined || text === null) return null;
      const expiresAt = parseExpiry(text);
      if (expiresAt === null) throw invalidField('expires_at', 'The expires at field must be a valid date.');
      if (expiresAt.getTime() <= clock.now().getTime()) {
        throw invalidField('expires_at', 'The expires at field must be a date after now.');
      }
      return expiresAt;
    },

    /**
     * Issues a token and returns its plain text, the only time it exists outside the caller's hands.
     * Through the API the caller's `credential` is checked again in the transaction (D22). The
     * operator CLI passes none and `enforceLimit: false`: D20 makes it the way in, whatever the count.
     */
    async createToken(
      userId: number,
      input: NewTokenInput,
      options: { enforceLimit: boolean; credential?: WriteCredential; actor?: AuditActor } = { enforceLimit: true },
    ): Promise<{ token: TokenMetadata; plainText: string }> {
      const plainText = generatePersonalAccessToken();
      // Count and insert in one transaction, so two concurrent requests cannot both take the 10th slot.
      const token = await inTransaction(db, async (trx) => {
        const repository = createTokensRepository(trx);
        const actor = options.credential ? (await recheckActor(options.credential, trx)).actor : (options.actor ?? OPERATOR);
        await lockForUpdate(trx, 'users', userId);
        if (options.enforceLimit && (await repository.countForUser(userId)) >= MAX_TOKENS_PER_USER) {
          throw tokenLimitReached(MAX_TOKENS_PER_USER);
        }
        const row = toMetadata(
          await repository.insert({
            user_id: userId,
            name: input.name,
            token_hash: hashToken(plainText),
            abilities: JSON.stringify(normalizeAbilities(input.abilities)),
            expires_at: input.expiresAt ? input.expiresAt.toISOString() : null,
            created_at: clock.now().toISOString(),
          }),
        );
        await recordAudit(trx, clock, actor, tokenEvent('token.created', userId, row));
        return row;
      });
      return { token, plainText };
    },

    /**
     * D9: `{token}` that is not a positive integer, or is another user's, is a 404. The caller's own
     * token is checked again in the same transaction (D22); a token may revoke itself.
     */
    async revokeToken(credential: WriteCredential, tokenParam: string): Promise<void> {
      const id = parseTokenId(tokenParam);
      await inTransaction(db, async (trx) => {
        const { caller, actor } = await recheckActor(credential, trx);
        const repository = createTokensRepository(trx);
        const token = id === null ? undefined : await repository.findForUser(caller.userId, id);
        if (!token || !(await repository.deleteForUser(caller.userId, token.id))) throw notFound();
        await recordAudit(trx, clock, actor, tokenEvent('token.revoked', caller.userId, toMetadata(token)));
      });
    },

    /** The operator's `tokens:revoke` (D20): any user's token; null when there is none with that id. */
    async revokeTokenAsOperator(id: number): Promise<{ userId: number } | null> {
      return inTransaction(db, async (trx) => {
        const repository = createTokensRepository(trx);
        const token = await repository.findById(id);
        if (!token || !(await repository.deleteForUser(token.user_id, id))) return null;
        await recordAudit(trx, clock, OPERATOR, tokenEvent('token.revoked', token.user_id, toMetadata(token)));
        return { userId: token.user_id };
      });
    },
  };
}

export type TokensService = ReturnType<typeof createTokensService>;

function parseTokenId(param: string): number | null {
  if (!/^[1-9][0-9]{0,9}$/.test(param)) return null;
  const id = Number(param);
  return isRowId(id) ? id : null;
}

/** E5: a token's event shows its owner and what it could do; never its plain text or hash. */
function tokenEvent(action: 'token.created' | 'token.revoked', userId: number, token: TokenMetadata) {
  return {
    action,
    target: { type: 'token' as const, id: token.id },
    teamId: null,
    userId,
    details: { name: token.name, abilities: token.abilities, expires_at: token.expires_at },
  };
}

function toMetadata(row: TokenRow): TokenMetadata {
  return {
    id: row.id,
    name: row.name,
    abilities: parseStoredAbilities(row.abilities),
    last_used_at: row.last_used_at,
    expires_at: row.expires_at,
    created_at: row.created_at,
  };
}
