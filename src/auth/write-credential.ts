import type { FastifyRequest } from 'fastify';
import { userActor, type AuditActor, type RequestOrigin } from '../audit/audit-actor.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { unauthenticated } from '../wire/api-error.js';
import { callerFromSessionRow } from '../sessions/identify-session.js';
import type { SessionsRepository } from '../sessions/sessions.repository.js';
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
  /** Where the request came from, for the audit events of what it changes (E5). */
  readonly origin: RequestOrigin;
}

/** D22 then E5: the caller as they are now, and the actor their changes' audit events name. */
export async function recheckActor(credential: WriteCredential, trx: Db): Promise<{ caller: Caller; actor: AuditActor }> {
  const caller = await credential.recheck(trx);
  return { caller, actor: userActor(caller, credential.origin) };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's credential for writes (D22), set with `caller`; null without a caller. */
    credential: WriteCredential | null;
  }
}

/** Where the credential is read again: the tokens and sessions repositories on the write's transaction. */
export interface CredentialStores {
  tokensOn: (trx: Db) => Pick<TokensRepository, 'findForAuthInTransaction'>;
  sessionsOn: (trx: Db) => Pick<SessionsRepository, 'findForAuthInTransaction'>;
  clock: Clock;
}

/**
 * The credential of the caller's personal access token or dashboard session (E7), with the route's
 * requirement (D6, D7) to hold again: a revoked token, a signed-out or ended session, a lapsed
 * subscription answer as D4 would.
 */
export function callerCredential(
  caller: Caller,
  requirement: AccessRequirement,
  deps: CredentialStores,
  origin: RequestOrigin,
): WriteCredential {
  const { ability, subscription } = requirement;
  const readAgain = async (trx: Db): Promise<Caller | null> => {
    const now = deps.clock.now();
    if (caller.session !== null) {
      const row = await deps.sessionsOn(trx).findForAuthInTransaction(caller.session.id);
      return row ? callerFromSessionRow(row, now, caller.session.csrfToken) : null;
    }
    const row = await deps.tokensOn(trx).findForAuthInTransaction(caller.tokenId!);
    return row ? callerFromAuthRow(row, now) : null;
  };
  return {
    origin,
    async recheck(trx) {
      const current = await readAgain(trx);
      if (current === null) throw unauthenticated();
      assertAccess(current, { ability, subscription });
      return current;
    },
  };
}

/** E5: the request's client IP (D8: the peer, unless TRUST_PROXY) and User-Agent. */
export function originOf(request: FastifyRequest): RequestOrigin {
  return { ip: request.ip ?? null, userAgent: request.headers['user-agent'] ?? null };
}

/** The credential of a route that declares an ability; the route guard has already answered 401 otherwise. */
export function credentialOf(request: FastifyRequest): WriteCredential {
  if (request.credential === null) throw unauthenticated();
  return request.credential;
}
