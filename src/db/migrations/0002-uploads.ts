import type { Kysely } from 'kysely';
import { addIdColumn } from '../dialect.js';

/**
 * Report uploads from the client package (CLIENT-WIRE.md): what the client sent beside the results
 * is kept as sent, and failed runs get their own table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // SQLite adds one column per ALTER TABLE statement.
  await db.schema.alterTable('reports').addColumn('pro_package_version', 'text').execute();
  // The client's own summary, kept only as sent: the summary columns are recomputed from the results.
  await db.schema.alterTable('reports').addColumn('client_summary', 'text').execute();
  await db.schema.alterTable('reports').addColumn('configuration', 'text').execute();

  await addIdColumn(db, db.schema.createTable('run_failures'))
    .addColumn('uuid', 'text', (col) => col.notNull().unique())
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('failure_reason', 'text')
    .addColumn('failure_label', 'text')
    .addColumn('error_message', 'text')
    .addColumn('triggered_by', 'text')
    .addColumn('framework_version', 'text')
    .addColumn('package_version', 'text')
    .addColumn('occurred_at', 'text', (col) => col.notNull())
    .addColumn('metadata', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  // The failure list: a project's failed runs, newest first.
  await db.schema
    .createIndex('run_failures_project_occurred_idx')
    .on('run_failures')
    .columns(['project_id', 'occurred_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('run_failures').execute();
  for (const column of ['configuration', 'client_summary', 'pro_package_version']) {
    await db.schema.alterTable('reports').dropColumn(column).execute();
  }
}
