import type { Caller } from '../auth/caller.js';
import type { Db } from '../db/database.js';
import type { RequestOrigin, WriteCredential } from '../auth/write-credential.js';

export type { RequestOrigin } from '../auth/write-credential.js';

/** Who made a change (E5): a user through a personal access token, or the operator at the server's shell. */
export type AuditActor = { type: 'user'; id: number; email: string; tokenId: number | null; origin: RequestOrigin } | { type: 'operator' };

export const OPERATOR: AuditActor = { type: 'operator' };

/** The caller as their credential was rechecked inside the write's transaction (D22). */
export function userActor(caller: Caller, origin: RequestOrigin): AuditActor {
  return { type: 'user', id: caller.userId, email: caller.email, tokenId: caller.tokenId, origin };
}

/** A User-Agent is the client's text: kept to a bounded length. */
export const USER_AGENT_MAX = 512;

/** D22 then E5: the caller as they are now, and the actor their changes' audit events name. */
export async function recheckActor(credential: WriteCredential, trx: Db): Promise<{ caller: Caller; actor: AuditActor }> {
  const caller = await credential.recheck(trx);
  return { caller, actor: userActor(caller, credential.origin) };
}
