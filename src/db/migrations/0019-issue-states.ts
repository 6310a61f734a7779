import { type Kysely, sql } from 'kysely';
import { addIdColumn, isPostgres } from '../dialect.js';

/**
 * E8: what people decided about a project's issues (issues/). A row per project and fingerprint
 * that someone changed; an issue without one is open. `issue_state_changes` counts each project's
 * changes, so that a report's stored answer (D28), which shows every issue's state, is known to be
 * out of date: `report_bodies` records the count it was built at (-1: by a release before E8, still
 * running during an upgrade, so it is built again at its next read) and, when an acceptance it shows
 * expires, the moment it stops being true; an answer replaced is kept a while (`superseded_at`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('issue_states')
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('comment', 'text')
    .addColumn('assignee_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('expires_at', 'text')
    .addColumn('updated_by_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('updated_at', 'text', (col) => col.notNull())
    // The issue as last seen (E8.1 `issue`): taken from the newest report holding it.
    .addColumn('analyzer_id', 'text', (col) => col.notNull())
    .addColumn('analyzer_name', 'text', (col) => col.notNull())
    .addColumn('category', 'text')
    .addColumn('severity', 'text', (col) => col.notNull())
    .addColumn('message', 'text', (col) => col.notNull())
    .addColumn('file', 'text')
    .addColumn('line', 'integer')
    .addColumn('column_number', 'integer')
    .addColumn('last_seen_report_id', 'integer', (col) => col.references('reports.id').onDelete('set null'))
    // JSON array of the fingerprints the state had before (E8.5), oldest first.
    .addColumn('previous_fingerprints', 'text', (col) => col.notNull().defaultTo('[]'))
    .addPrimaryKeyConstraint('issue_states_pk', ['project_id', 'fingerprint'])
    .execute();
  // "Assigned to me" (GET /user/issues) and the project list's assignee filter.
  await db.schema.createIndex('issue_states_assignee_idx').on('issue_states').columns(['assignee_id', 'updated_at']).execute();
  // A report deleted sets last_seen_report_id to null: without an index each delete scans the states.
  await db.schema.createIndex('issue_states_last_seen_idx').on('issue_states').column('last_seen_report_id').execute();

  // Whether any report of a project holds a fingerprint (E8.2's 404, E8.5), and a report's states:
  // a probe per report of the project instead of a scan of its issues. Ordered by report first, an
  // upload's rows land together at the index's end rather than across it, as a fingerprint-first
  // index's would.
  await db.schema.createIndex('report_issues_fingerprint_idx').on('report_issues').columns(['report_id', 'fingerprint']).execute();

  await db.schema
    .createTable('issue_state_changes')
    .addColumn('project_id', 'text', (col) => col.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('generation', 'integer', (col) => col.notNull())
    .execute();

  // A report's answer replaced because its states changed stays readable, under its own id, by a
  // client still reading it in pieces (D33): a report may have several rows for a while, the one
  // not `superseded_at` its answer. The unique report_id of migration 0008 goes. The answers stored
  // so far show no states: each would be built again at its report's next read anyway, so they go
  // now rather than being copied (SQLite cannot drop a constraint but by building the table again,
  // which would copy every answer for nothing).
  if (isPostgres(db)) {
    await sql`truncate table report_bodies`.execute(db);
    await sql`alter table report_bodies drop constraint report_bodies_report_id_key`.execute(db);
    await db.schema
      .alterTable('report_bodies')
      .addColumn('states_generation', 'integer', (col) => col.notNull().defaultTo(-1))
      .execute();
    await db.schema.alterTable('report_bodies').addColumn('fresh_until', 'text').execute();
    await db.schema.alterTable('report_bodies').addColumn('superseded_at', 'text').execute();
  } else {
    await db.schema.dropTable('report_bodies').execute();
    await addIdColumn(db, db.schema.createTable('report_bodies'))
      .addColumn('report_id', 'integer', (col) => col.notNull().references('reports.id').onDelete('cascade'))
      .addColumn('gzip', 'blob', (col) => col.notNull())
      .addColumn('states_generation', 'integer', (col) => col.notNull().defaultTo(-1))
      .addColumn('fresh_until', 'text')
      .addColumn('superseded_at', 'text')
      .execute();
  }
  await db.schema.createIndex('report_bodies_report_idx').on('report_bodies').columns(['report_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // The answers stored since show states, which the release before does not: built again there too.
  await db.deleteFrom('report_bodies').execute();
  await db.schema.dropIndex('report_bodies_report_idx').execute();
  await db.schema.alterTable('report_bodies').dropColumn('superseded_at').execute();
  await db.schema.alterTable('report_bodies').dropColumn('fresh_until').execute();
  await db.schema.alterTable('report_bodies').dropColumn('states_generation').execute();
  if (isPostgres(db)) {
    await sql`alter table report_bodies add constraint report_bodies_report_id_key unique (report_id)`.execute(db);
  } else {
    await db.schema.createIndex('report_bodies_report_id_unique').unique().on('report_bodies').column('report_id').execute();
  }
  await db.schema.dropTable('issue_state_changes').execute();
  await db.schema.dropIndex('report_issues_fingerprint_idx').execute();
  await db.schema.dropTable('issue_states').execute();
}
