import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { unauthenticated } from '../http/api-error.js';
import type { TokensRepository } from '../tokens/tokens.repository.js';
import type { Caller } from './caller.js';
import { callerFromAuthRow } from './identify-caller.js';
import { assertAccess, type AccessRequirement } from './route-guard.js';

/**
 * D22: a request is identified when its headers arrive, but a change it asks for is made only if
 * its credential still holds when the change is written. Every service that writes on behalf of a
 * caller takes one of these and calls `recheck` first inside its transaction; what it returns is
 * who the caller is now (a revoked or expired token, a lapsed subscription answer as D4 would).
 */
export interface WriteCredential {
  recheck(trx: Db): Promise<Caller>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's credential for writes (D22), set with `caller`; null without a caller. */
    credential: WriteCredential | null;
  }
}

/** Where the token is read again: the tokens repository on the write's transaction. */
export type TokensOn = (trx: Db) => Pick<TokensRepository, 'findForAuthInTransaction'>;

/** The credential of a personal access token, with the route's requirement (D6, D7) to hold again. */
export function personalTokenCredential(
  caller: Caller,
  requirement: AccessRequirement,
  deps: { tokensOn: TokensOn; clock: Clock },
): WriteCredential {
  const { ability, subscription } = requirement;
  return {
    async recheck(trx) {
      const row = await deps.tokensOn(trx).findForAuthInTransaction(caller.tokenId);
      const current = row ? callerFromAuthRow(row, deps.clock.now()) : null;
      if (current === null) throw unauthenticated();
      assertAccess(current, { ability, subscription });
      return current;
    },
  };
}

/** The credential of a route that declares an ability; the route guard has already answered 401 otherwise. */
export function credentialOf(request: FastifyRequest): WriteCredential {
  if (request.credential === null) throw unauthenticated();
  return request.credential;
}
