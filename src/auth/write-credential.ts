import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { unauthenticated } from '../wire/api-error.js';
import type { Caller } from './caller.js';
import { callerFromAuthRow, type TokenAuthRow } from './identify-caller.js';
import { assertAccess, type AccessRequirement } from './route-guard.js';

/** Where a request came from, for its audit events (E5): the client IP (D8's) and its User-Agent. */
export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
}

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

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's credential for writes (D22), set with `caller`; null without a caller. */
    credential: WriteCredential | null;
  }
}

/** Where the credential is read again, on the write's transaction: the token store, and the sessions (E7). */
export interface CredentialStores {
  tokenOn: (trx: Db) => (tokenId: number) => Promise<TokenAuthRow | undefined>;
  /** The caller the session stands for now, or null when it has ended (sessions/identify-session.ts). */
  sessionCallerOn: (trx: Db) => (session: NonNullable<Caller['session']>, now: Date) => Promise<Caller | null>;
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
    if (caller.session !== null) return deps.sessionCallerOn(trx)(caller.session, now);
    const row = await deps.tokenOn(trx)(caller.tokenId!);
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
