import type { Db } from '../db/database.js';
import { DEFAULT_CHOICES, NEW_ISSUES_LEVELS, type NewIssuesLevel, type NotificationChoices } from './notification-vocabulary.js';

/** E11.2: a user's choices and the projects they muted (ids in text order). */
export interface NotificationSettings extends NotificationChoices {
  muted_projects: string[];
}

/** Ids per statement: well below both databases' limits on bound parameters. */
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

function levelOf(stored: string): NewIssuesLevel {
  return (NEW_ISSUES_LEVELS as readonly string[]).includes(stored) ? (stored as NewIssuesLevel) : DEFAULT_CHOICES.new_issues;
}

/** The SQL of E11.2's tables (migration 0024); the only place they are written. */
export function createNotificationSettingsRepository(db: Db) {
  return {
    /** Each of `userIds`' settings, the defaults for a user without a row (every id given has an entry). */
    async settingsOf(userIds: readonly number[]): Promise<Map<number, NotificationSettings>> {
      const result = new Map<number, NotificationSettings>();
      for (const id of userIds) result.set(id, { ...DEFAULT_CHOICES, muted_projects: [] });
      for (const ids of chunks([...new Set(userIds)])) {
        const rows = await db.selectFrom('user_notification_settings').selectAll().where('user_id', 'in', ids).execute();
        for (const row of rows) {
          const settings = result.get(row.user_id)!;
          settings.gate_failed = row.gate_failed === 1;
          settings.new_issues = levelOf(row.new_issues);
          settings.weekly_digest = row.weekly_digest === 1;
          settings.assigned = row.assigned === 1;
        }
        const mutes = await db
          .selectFrom('notification_mutes')
          .select(['user_id', 'project_id'])
          .where('user_id', 'in', ids)
          .orderBy('user_id')
          .orderBy('project_id')
          .execute();
        for (const mute of mutes) result.get(mute.user_id)!.muted_projects.push(mute.project_id);
      }
      // The same order on both databases, whatever their collation.
      for (const settings of result.values()) settings.muted_projects.sort();
      return result;
    },

    /** Which of `userIds` (every user when omitted) muted `projectId`. */
    async mutedBy(projectId: string, userIds?: readonly number[]): Promise<Set<number>> {
      const muted = new Set<number>();
      const base = db.selectFrom('notification_mutes').select('user_id').where('project_id', '=', projectId);
      if (userIds === undefined) {
        for (const row of await base.execute()) muted.add(row.user_id);
        return muted;
      }
      for (const ids of chunks([...new Set(userIds)])) {
        for (const row of await base.where('user_id', 'in', ids).execute()) muted.add(row.user_id);
      }
      return muted;
    },

    /** Which of `projectIds` belong to a team `userId` is a member of. */
    async projectsOfMember(userId: number, projectIds: readonly string[]): Promise<Set<string>> {
      const found = new Set<string>();
      for (const ids of chunks(projectIds)) {
        const rows = await db
          .selectFrom('projects as p')
          .innerJoin('team_members as m', (join) => join.onRef('m.team_id', '=', 'p.team_id').on('m.user_id', '=', userId))
          .select('p.id')
          .where('p.id', 'in', ids)
          .execute();
        for (const row of rows) found.add(row.id);
      }
      return found;
    },

    async saveChoices(userId: number, choices: NotificationChoices, at: string): Promise<void> {
      const values = {
        gate_failed: choices.gate_failed ? 1 : 0,
        new_issues: choices.new_issues,
        weekly_digest: choices.weekly_digest ? 1 : 0,
        assigned: choices.assigned ? 1 : 0,
        updated_at: at,
      };
      await db
        .insertInto('user_notification_settings')
        .values({ user_id: userId, ...values })
        .onConflict((conflict) => conflict.column('user_id').doUpdateSet(values))
        .execute();
    },

    async mute(userId: number, projectIds: readonly string[], at: string): Promise<void> {
      for (const ids of chunks(projectIds)) {
        await db
          .insertInto('notification_mutes')
          .values(ids.map((project_id) => ({ user_id: userId, project_id, created_at: at })))
          .onConflict((conflict) => conflict.columns(['user_id', 'project_id']).doNothing())
          .execute();
      }
    },

    async unmute(userId: number, projectIds: readonly string[]): Promise<void> {
      for (const ids of chunks(projectIds)) {
        await db.deleteFrom('notification_mutes').where('user_id', '=', userId).where('project_id', 'in', ids).execute();
      }
    },
  };
}

export type NotificationSettingsRepository = ReturnType<typeof createNotificationSettingsRepository>;

/**
 * E11.2, for the features that notify (emails to come): each user's settings, the defaults for a
 * user who never chose, and who muted a project. Reads only.
 */
export function settingsOf(db: Db, userIds: readonly number[]): Promise<Map<number, NotificationSettings>> {
  return createNotificationSettingsRepository(db).settingsOf(userIds);
}

export function mutedBy(db: Db, projectId: string, userIds?: readonly number[]): Promise<Set<number>> {
  return createNotificationSettingsRepository(db).mutedBy(projectId, userIds);
}
