import type { Kysely } from 'kysely';

/**
 * E9: a team's connections to the services where its tickets live (connections/), a project's
 * tracker among them, and the ticket each issue was turned into (tickets/).
 *
 * - `connections.credentials` is sealed (secrets/secret-box.ts, context `connection:<id>`): JSON of
 *   the provider's credentials, never stored in plain text; `credentials_hint` is their last four
 *   characters, the only part an answer shows. `base_url` is stored resolved (the provider's
 *   default when none was given).
 * - `projects.tracker_connection_id`: E9.3's link; a connection deleted unlinks its projects.
 * - `issue_tickets`: one per project and fingerprint (E9.4's "one ticket per issue"). `remote` is
 *   JSON naming the ticket at its provider as later calls address it (a comment, and closing it, once its issue is fixed);
 *   `branch` is that of the report the ticket was made from (null: any branch closes it).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('connections')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('team_id', 'integer', (col) => col.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('provider', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('base_url', 'text', (col) => col.notNull())
    .addColumn('credentials', 'text', (col) => col.notNull())
    .addColumn('credentials_hint', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('connections_team_idx').on('connections').columns(['team_id', 'created_at', 'id']).execute();

  await db.schema
    .alterTable('projects')
    .addColumn('tracker_connection_id', 'text', (col) => col.references('connections.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('projects_tracker_connection_idx').on('projects').column('tracker_connection_id').execute();

  await db.schema
    .createTable('issue_tickets')
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('connection_id', 'text', (col) => col.references('connections.id').onDelete('set null'))
    .addColumn('provider', 'text', (col) => col.notNull())
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('remote', 'text', (col) => col.notNull())
    .addColumn('report_id', 'integer', (col) => col.references('reports.id').onDelete('set null'))
    .addColumn('branch', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('created_by_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('closed_at', 'text')
    .addPrimaryKeyConstraint('issue_tickets_pk', ['project_id', 'fingerprint'])
    .execute();
  // A connection, report or user deleted sets its column to null: without an index each delete scans the tickets.
  await db.schema.createIndex('issue_tickets_connection_idx').on('issue_tickets').column('connection_id').execute();
  await db.schema.createIndex('issue_tickets_report_idx').on('issue_tickets').column('report_id').execute();
  await db.schema.createIndex('issue_tickets_created_by_idx').on('issue_tickets').column('created_by_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('issue_tickets').execute();
  await db.schema.dropIndex('projects_tracker_connection_idx').execute();
  await db.schema.alterTable('projects').dropColumn('tracker_connection_id').execute();
  await db.schema.dropTable('connections').execute();
}
