import { changedFields, recordAudit } from '../audit/audit-log.js';
import type { RequestOrigin } from '../audit/audit-actor.js';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../db/database.js';
import { lockForUpdate } from '../db/dialect.js';
import type { UnsubscribeKind } from './email-kinds.js';
import { createNotificationSettingsRepository } from './notification-settings.repository.js';
import type { NotificationChoices } from './notification-vocabulary.js';
import { type UnsubscribeClaim, verifyUnsubscribe } from './unsubscribe-token.js';

/** What each kind's link turns off, in the words of the page. */
export const UNSUBSCRIBE_WORDS: Record<UnsubscribeKind, string> = {
  gate_failed: 'emails when a quality gate fails or recovers',
  new_issues: 'emails about new issues',
  assigned: 'emails when someone assigns you an issue',
  weekly_digest: 'the weekly digest',
  invitations: 'invitations to Scoreboard teams',
};

/** A user's choice with the kind turned off. */
function turnedOff(choices: NotificationChoices, kind: Exclude<UnsubscribeKind, 'invitations'>): NotificationChoices {
  return kind === 'new_issues' ? { ...choices, new_issues: 'none' } : { ...choices, [kind]: false };
}

/**
 * E11.3: one-click unsubscribe (RFC 8058). The signed token is the only credential; a token for a
 * user who no longer exists is as unknown as a forged one. Turning a kind off is a change of the
 * user's choices like a PUT of them: in one transaction, recorded as `user.updated` (E5) when it
 * changed something; doing it again changes nothing and still succeeds.
 */
export function createUnsubscribeService(deps: { db: Db; clock: Clock; signingKey: () => Promise<Buffer> }) {
  const { db, clock } = deps;

  return {
    /** The claim of a valid link (GET shows it), or null. */
    async check(token: string): Promise<UnsubscribeClaim | null> {
      const claim = verifyUnsubscribe(await deps.signingKey(), token);
      if (claim === null || !('userId' in claim.who)) return claim;
      const user = await db.selectFrom('users').select('id').where('id', '=', claim.who.userId).executeTakeFirst();
      return user === undefined ? null : claim;
    },

    /** Turns the link's kind off; null for a link that is not valid (its user is looked up in the change's transaction). */
    async unsubscribe(token: string, origin: RequestOrigin): Promise<UnsubscribeClaim | null> {
      const claim = verifyUnsubscribe(await deps.signingKey(), token);
      if (claim === null) return null;
      const at = clock.now().toISOString();
      const { who, kind } = claim;
      // An invitation's link names an address (verifyUnsubscribe holds the two together).
      if ('email' in who) {
        await db
          .insertInto('email_opt_outs')
          .values({ email: who.email, created_at: at })
          .onConflict((conflict) => conflict.column('email').doNothing())
          .execute();
        return claim;
      }
      if (kind === 'invitations') return null;
      return inTransaction(db, async (trx) => {
        await lockForUpdate(trx, 'users', who.userId);
        const user = await trx.selectFrom('users').select(['id', 'email']).where('id', '=', who.userId).executeTakeFirst();
        if (user === undefined) return null;
        const repository = createNotificationSettingsRepository(trx);
        const { muted_projects: _muted, ...before } = (await repository.settingsOf([user.id])).get(user.id)!;
        const after = turnedOff(before, kind);
        const changed = changedFields({ ...before }, { ...after });
        if (Object.keys(changed).length > 0) {
          await repository.saveChoices(user.id, after, at);
          await recordAudit(
            trx,
            clock,
            { type: 'user', id: user.id, email: user.email, tokenId: null, origin },
            {
              action: 'user.updated',
              target: { type: 'user', id: user.id },
              teamId: null,
              userId: user.id,
              details: { notifications: changed, via: 'unsubscribe link' },
            },
          );
        }
        return claim;
      });
    },
  };
}

export type UnsubscribeService = ReturnType<typeof createUnsubscribeService>;
