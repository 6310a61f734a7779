import type { Kysely } from 'kysely';
import { addIdColumn } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  await addIdColumn(db, db.schema.createTable('users'))
    .addColumn('email', 'text', (col) => col.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('current_team_id', 'integer')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();

  await addIdColumn(db, db.schema.createTable('teams'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('team_members')
    .addColumn('team_id', 'integer', (col) => col.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('team_members_user_idx').on('team_members').column('user_id').execute();

  // One subscription row per user: the CLI changes its plan and status in place (D7).
  await addIdColumn(db, db.schema.createTable('subscriptions'))
    .addColumn('user_id', 'integer', (col) => col.notNull().unique().references('users.id').onDelete('cascade'))
    .addColumn('plan', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('ends_at', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  await addIdColumn(db, db.schema.createTable('personal_access_tokens'))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('abilities', 'text', (col) => col.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('personal_access_tokens_user_idx').on('personal_access_tokens').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('team_id', 'integer', (col) => col.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('repository_url', 'text')
    .addColumn('framework_version', 'text', (col) => col.notNull())
    .addColumn('settings', 'text', (col) => col.notNull())
    .addColumn('api_token_hash', 'text', (col) => col.notNull().unique())
    // No foreign key: projects and reports would reference each other; the service keeps it exact.
    .addColumn('latest_report_id', 'integer')
    .addColumn('archived_at', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  // D16: the list is ordered by created_at then id, newest first, within one team.
  await db.schema.createIndex('projects_team_created_idx').on('projects').columns(['team_id', 'created_at', 'id']).execute();

  await addIdColumn(db, db.schema.createTable('reports'))
    .addColumn('uuid', 'text', (col) => col.notNull().unique())
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('score', 'integer', (col) => col.notNull())
    .addColumn('total', 'integer', (col) => col.notNull())
    .addColumn('passed', 'integer', (col) => col.notNull())
    .addColumn('failed', 'integer', (col) => col.notNull())
    .addColumn('warnings', 'integer', (col) => col.notNull())
    .addColumn('skipped', 'integer', (col) => col.notNull())
    .addColumn('errors', 'integer', (col) => col.notNull())
    .addColumn('total_issues', 'integer', (col) => col.notNull())
    .addColumn('issues_critical', 'integer', (col) => col.notNull())
    .addColumn('issues_high', 'integer', (col) => col.notNull())
    .addColumn('issues_medium', 'integer', (col) => col.notNull())
    .addColumn('issues_low', 'integer', (col) => col.notNull())
    .addColumn('issues_info', 'integer', (col) => col.notNull())
    .addColumn('framework_version', 'text')
    .addColumn('package_version', 'text')
    .addColumn('total_execution_time', 'double precision')
    .addColumn('triggered_by', 'text')
    .addColumn('analyzed_at', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('results', 'text', (col) => col.notNull())
    .addColumn('metadata', 'text', (col) => col.notNull())
    .execute();
  // D19: a project's reports newest analyzed_at first (ties: highest id) come straight off this index.
  await db.schema.createIndex('reports_project_latest_idx').on('reports').columns(['project_id', 'analyzed_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['reports', 'projects', 'personal_access_tokens', 'subscriptions', 'team_members', 'teams', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}
