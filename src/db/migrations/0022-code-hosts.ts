import type { Kysely } from 'kysely';

/**
 * E10: a project linked to a repository at a code host (code-host/), and what its feedback there
 * must remember between reports.
 *
 * - `project_code_hosts`: one per project. A connection deleted unlinks its projects (cascade): with
 *   no credentials left there is nothing to post with.
 * - `pull_request_comments`: the one comment per project, repository and pull request that later
 *   reports edit in place (E10.3), and which report it shows (`report_analyzed_at`, `report_id`:
 *   D19's order), so that an older report never overwrites a newer one. Kept when the report is
 *   deleted: the comment still shows it.
 * - `check_runs`: E10.5's check run of a report and how many of its annotations were sent, so an
 *   attempt made again after a failure goes on where the last one stopped rather than creating a
 *   second check run.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('project_code_hosts')
    .addColumn('project_id', 'text', (col) => col.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('connection_id', 'text', (col) => col.notNull().references('connections.id').onDelete('cascade'))
    .addColumn('repository', 'text', (col) => col.notNull())
    .addColumn('commit_status', 'integer', (col) => col.notNull())
    .addColumn('pull_request_comment', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('project_code_hosts_connection_idx').on('project_code_hosts').column('connection_id').execute();

  await db.schema
    .createTable('pull_request_comments')
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('repository', 'text', (col) => col.notNull())
    .addColumn('pull_request', 'text', (col) => col.notNull())
    .addColumn('comment_id', 'text', (col) => col.notNull())
    .addColumn('report_id', 'integer', (col) => col.notNull())
    .addColumn('report_analyzed_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('pull_request_comments_pk', ['project_id', 'repository', 'pull_request'])
    .execute();

  await db.schema
    .createTable('check_runs')
    .addColumn('report_id', 'integer', (col) => col.primaryKey().references('reports.id').onDelete('cascade'))
    .addColumn('check_run_id', 'text', (col) => col.notNull())
    .addColumn('annotations_sent', 'integer', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('check_runs').execute();
  await db.schema.dropTable('pull_request_comments').execute();
  await db.schema.dropTable('project_code_hosts').execute();
}
