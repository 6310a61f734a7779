import type { Kysely } from 'kysely';

/**
 * E11.2: each user's notification choices (notifications/).
 *
 * - `user_notification_settings`: one row per user who changed a choice; a user without one has the
 *   defaults. Booleans are 0 or 1.
 * - `notification_mutes`: the projects a user muted. Both keys cascade, so a deleted project (or user)
 *   leaves the list by itself.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_notification_settings')
    .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('gate_failed', 'integer', (col) => col.notNull())
    .addColumn('new_issues', 'text', (col) => col.notNull())
    .addColumn('weekly_digest', 'integer', (col) => col.notNull())
    .addColumn('assigned', 'integer', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('notification_mutes')
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('notification_mutes_pk', ['user_id', 'project_id'])
    .execute();
  // Who muted a project: the read a notification of that project makes.
  await db.schema.createIndex('notification_mutes_project_idx').on('notification_mutes').column('project_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('notification_mutes').execute();
  await db.schema.dropTable('user_notification_settings').execute();
}
