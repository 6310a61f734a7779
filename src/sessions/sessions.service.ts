import { type AuditActor, OPERATOR, type RequestOrigin, USER_AGENT_MAX } from '../audit/audit-actor.js';
import { recordAudit } from '../audit/audit-log.js';
import type { Caller } from '../auth/caller.js';
import { hashToken } from '../auth/token-hash.js';
import { recheckActor } from '../audit/audit-actor.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../db/database.js';
import { invalidCredentials, invalidField, refused, unauthenticated } from '../wire/api-error.js';
import { storableText } from '../wire/storable-text.js';
import { normalizeEmail } from '../wire/email.js';
import { SESSION_LIFETIME_MS, sessionEndsAt } from './identify-session.js';
import { deriveOnLibuv, type PasswordHasher, passwordHasher, passwordProblem } from './password-hash.js';
import { csrfTokenFor, newSessionSecret } from './session-secret.js';
import { createSignInLockout } from './sign-in-lockout.js';
import { createSessionsRepository } from './sessions.repository.js';

/** What the dashboard learns of its session (`GET /api/v1/session`). */
export interface SessionView {
  user: { id: number; email: string; name: string | null };
  csrf_token: string;
  expires_at: string;
  idle_expires_at: string;
}

/**
 * E7: sign-in, sign-out and passwords. `passwords` is where hashes are computed: the app's own
 * lane (hashing-lane.ts, D30); the operator's commands, one at a time, use libuv's pool.
 */
export function createSessionsService(deps: { db: Db; clock: Clock; passwords?: PasswordHasher }) {
  const { db, clock } = deps;
  const passwords = deps.passwords ?? passwordHasher(deriveOnLibuv);
  const lockout = createSignInLockout(db, clock);

  /**
   * The new hash, the end of the user's sessions but `keepSessionId` (the one that made the change),
   * and the change's audit event (never the password): in the caller's transaction. How many ended.
   */
  async function replacePassword(trx: Db, actor: AuditActor, userId: number, hash: string, keepSessionId: number | null) {
    const sessions = createSessionsRepository(trx);
    await sessions.setPasswordHash(userId, hash);
    const ended = await sessions.deleteForUser(userId, keepSessionId);
    await recordAudit(trx, clock, actor, {
      action: 'user.updated',
      target: { type: 'user', id: userId },
      teamId: null,
      userId,
      details: { password: 'changed' },
    });
    return ended;
  }

  /**
   * D29: `judge` (which hashes the password) runs only for an attempt the lockout admits for `email`;
   * its verdict, what it found or undefined for a wrong password, is recorded against the email.
   */
  async function judgePassword<T>(email: string, judge: () => Promise<T | undefined>): Promise<T | undefined> {
    const attempt = await lockout.reserve(email);
    let found: T | undefined;
    try {
      found = await judge();
    } catch (error) {
      // Not judged: it does not count. Should the release fail too, it counts for 15 minutes, no more.
      await attempt.release().catch(() => {});
      throw error;
    }
    await (found === undefined ? attempt.failed() : attempt.succeeded());
    return found;
  }

  async function userOf(userId: number) {
    const user = await createSessionsRepository(db).findUser(userId);
    if (!user) throw unauthenticated();
    return user;
  }

  return {
    /**
     * Checks the email and password and opens a session: its secret (the cookie's value) and what
     * the page may know of it. The attempt is counted against the email before its password is
     * looked at, and refused (429) when five are already judged or the email is locked (D29); a
     * wrong email or password gets the same answer, after the same work (one scrypt derivation
     * either way, password-hash.ts).
     */
    async signIn(input: { email: string; password: string }, origin: RequestOrigin): Promise<{ secret: string; session: SessionView }> {
      const email = normalizeEmail(input.email);
      const user = await judgePassword(email, async () => {
        const found = await createSessionsRepository(db).findUserForSignIn(email);
        return (await passwords.verify(input.password, found?.password_hash ?? null)) ? found : undefined;
      });
      if (!user) throw invalidCredentials();

      const secret = newSessionSecret();
      const createdAt = clock.now();
      const expiresAt = new Date(createdAt.getTime() + SESSION_LIFETIME_MS);
      await inTransaction(db, async (trx) => {
        const sessions = createSessionsRepository(trx);
        const sessionId = await sessions.insert({
          user_id: user.id,
          token_hash: hashToken(secret),
          created_at: createdAt.toISOString(),
          expires_at: expiresAt.toISOString(),
          ip: origin.ip,
          user_agent: origin.userAgent ? storableText(origin.userAgent.slice(0, USER_AGENT_MAX)) : null,
        });
        const actor = { type: 'user' as const, id: user.id, email: user.email, tokenId: null, origin };
        await recordAudit(trx, clock, actor, {
          action: 'session.created',
          target: { type: 'session', id: sessionId },
          teamId: null,
          userId: user.id,
        });
      });
      const session = { last_seen_at: createdAt.toISOString(), expires_at: expiresAt.toISOString() };
      return { secret, session: viewOf(user, csrfTokenFor(secret), session.expires_at, sessionEndsAt(session)) };
    },

    /** The caller's session as the page sees it (the route guard lets only sessions in). */
    async describe(caller: Caller): Promise<SessionView> {
      if (caller.session === null) throw unauthenticated();
      const { csrfToken, expiresAt, idleExpiresAt } = caller.session;
      return viewOf(await userOf(caller.userId), csrfToken, expiresAt, idleExpiresAt);
    },

    /** Ends the caller's session. */
    async signOut(caller: Caller): Promise<void> {
      if (caller.session === null) throw unauthenticated();
      await createSessionsRepository(db).delete(caller.session.id);
    },

    /**
     * A user changes their own password: the current one must match. Every other session of the user
     * ends (E7); the one that made the change stays. In one transaction with its audit event, after
     * the credential is checked again (D22).
     */
    async changePassword(credential: WriteCredential, caller: Caller, input: { current_password: string; password: string }) {
      const user = await userOf(caller.userId);
      // D29: a wrong current password is a failed sign-in of the user's email (else a stolen session
      // could guess the password without limit), refused before hashing once five are judged.
      const matches = await judgePassword(user.email, async () =>
        (await passwords.verify(input.current_password, user.password_hash)) ? true : undefined,
      );
      if (!matches) throw invalidField('current_password', 'The current password is incorrect.');
      const hash = await passwords.hash(input.password);
      await inTransaction(db, async (trx) => {
        const { caller: current, actor } = await recheckActor(credential, trx);
        await replacePassword(trx, actor, current.userId, hash, current.session?.id ?? null);
      });
    },

    /** `scoreboard users:password` / `users:create --password-stdin`: the operator sets a password; every session of the user ends. */
    async setPassword(email: string, password: string): Promise<{ id: number; email: string; sessions_ended: number }> {
      const problem = passwordProblem(password);
      if (problem !== null) throw refused(problem);
      const hash = await passwords.hash(password);
      return inTransaction(db, async (trx) => {
        const user = await createSessionsRepository(trx).findUserForSignIn(normalizeEmail(email));
        if (!user) throw refused(`No user with email ${email}.`);
        const ended = await replacePassword(trx, OPERATOR, user.id, hash, null);
        return { id: user.id, email: user.email, sessions_ended: ended };
      });
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;

function viewOf(user: SessionView['user'], csrfToken: string, expiresAt: string, idleExpiresAt: string): SessionView {
  return {
    user: { id: user.id, email: user.email, name: user.name },
    csrf_token: csrfToken,
    expires_at: expiresAt,
    idle_expires_at: idleExpiresAt,
  };
}
