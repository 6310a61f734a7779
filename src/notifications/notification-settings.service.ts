import { changedFields, recordAudit } from '../audit/audit-log.js';
import { recheckActor } from '../audit/audit-actor.js';
import type { Caller } from '../auth/caller.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Clock } from '../clock.js';
import { type Config, emailConfigured } from '../config.js';
import { inTransaction, type Db } from '../db/database.js';
import { lockForUpdate } from '../db/dialect.js';
import { UUID_PATTERN } from '../projects/permissions.js';
import { invalidField } from '../wire/api-error.js';
import { createNotificationSettingsRepository, type NotificationSettings } from './notification-settings.repository.js';
import type { NotificationChoices } from './notification-vocabulary.js';
import type { NotificationSettingsView, UpdateNotificationSettingsBody } from './notifications.schemas.js';

const NOT_A_PROJECT = 'The selected muted projects are invalid: each must be a project of one of your teams.';

/**
 * E11.2: each user's notification choices. A read answers the defaults for a user who never chose;
 * a write changes only the fields it names (the muted projects as a whole list), in one transaction
 * that rechecks the credential (D22), serialises the user's writes, and records `user.updated` (E5)
 * when something changed.
 */
export function createNotificationSettingsService(deps: { db: Db; clock: Clock; config: Pick<Config, 'smtpUrl' | 'mailFrom'> }) {
  const { db, clock } = deps;
  const emailAvailable = emailConfigured(deps.config);
  const view = (settings: NotificationSettings): NotificationSettingsView => ({ ...settings, email_available: emailAvailable });

  /** The ids asked for, lowercased and counted once; 422 unless each is a project of the caller's teams or already muted. */
  async function mutedProjectsFor(trx: Db, userId: number, asked: readonly string[], before: readonly string[]): Promise<string[]> {
    const ids = [...new Set(asked.map((id) => id.toLowerCase()))];
    if (ids.some((id) => !UUID_PATTERN.test(id))) throw invalidField('muted_projects', NOT_A_PROJECT);
    // A project muted before the caller left its team stays (it never notifies them anyway): the
    // dashboard sends the whole list back, and it must not fail for it.
    const kept = new Set(before);
    const toCheck = ids.filter((id) => !kept.has(id));
    const found = await createNotificationSettingsRepository(trx).projectsOfMember(userId, toCheck);
    if (toCheck.some((id) => !found.has(id))) throw invalidField('muted_projects', NOT_A_PROJECT);
    return ids.sort();
  }

  return {
    async read(caller: Caller): Promise<NotificationSettingsView> {
      const settings = await createNotificationSettingsRepository(db).settingsOf([caller.userId]);
      return view(settings.get(caller.userId)!);
    },

    async update(credential: WriteCredential, body: UpdateNotificationSettingsBody): Promise<NotificationSettingsView> {
      return inTransaction(db, async (trx) => {
        const { caller, actor } = await recheckActor(credential, trx);
        const userId = caller.userId;
        // Two writes of one user's settings never interleave (SQLite's writes are serial already).
        await lockForUpdate(trx, 'users', userId);
        const repository = createNotificationSettingsRepository(trx);
        const before = (await repository.settingsOf([userId])).get(userId)!;
        const choices: NotificationChoices = {
          gate_failed: body.gate_failed ?? before.gate_failed,
          new_issues: body.new_issues ?? before.new_issues,
          weekly_digest: body.weekly_digest ?? before.weekly_digest,
          assigned: body.assigned ?? before.assigned,
        };
        const muted =
          body.muted_projects === undefined
            ? before.muted_projects
            : await mutedProjectsFor(trx, userId, body.muted_projects, before.muted_projects);
        const at = clock.now().toISOString();

        const { muted_projects: _muted, ...beforeChoices } = before;
        const details: Record<string, unknown> = changedFields(beforeChoices, { ...choices });
        if (Object.keys(details).length > 0) await repository.saveChoices(userId, choices, at);
        const added = muted.filter((id) => !before.muted_projects.includes(id));
        const removed = before.muted_projects.filter((id) => !muted.includes(id));
        if (added.length > 0) await repository.mute(userId, added, at);
        if (removed.length > 0) await repository.unmute(userId, removed);
        if (added.length > 0 || removed.length > 0) details.muted_projects = { added, removed };

        if (Object.keys(details).length > 0) {
          await recordAudit(trx, clock, actor, {
            action: 'user.updated',
            target: { type: 'user', id: userId },
            teamId: null,
            userId,
            details: { notifications: details },
          });
        }
        return view({ ...choices, muted_projects: muted });
      });
    },
  };
}

export type NotificationSettingsService = ReturnType<typeof createNotificationSettingsService>;
