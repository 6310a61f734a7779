import { sql, type ColumnDataType, type Expression, type Kysely } from 'kysely';
import { addIdColumn, isPostgres } from '../dialect.js';

/**
 * E1: what changed between runs. Each report records its git context (E1.1), its baseline and the
 * new/fixed/unchanged counts against it (E1.3, E1.4) and the gate it got at upload (E1.8); each
 * issue is a row of `report_issues` with its fingerprint (E1.2), for the changes list (E1.6) and the
 * next report's comparison. Reports stored before get the same from the data step that runs after
 * the migrations (changes-backfill.ts: in batches, each its own transaction, which a migration cannot
 * have on PostgreSQL where Kysely runs them all in one); their gate stays null, as the settings of
 * that time are unknown.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // SQLite adds one column per ALTER TABLE statement.
  for (const column of ['git_branch', 'git_commit', 'pull_request', 'base_branch', 'gate', 'fingerprinted_at']) {
    await db.schema.alterTable('reports').addColumn(column, 'text').execute();
  }
  await db.schema
    .alterTable('reports')
    .addColumn('baseline_report_id', 'integer', (col) => col.references('reports.id').onDelete('set null'))
    .execute();
  for (const column of ['changes_new', 'changes_fixed', 'changes_unchanged']) {
    await db.schema.alterTable('reports').addColumn(column, 'integer').execute();
  }
  // E1.3 and E1.6: a project's reports on one branch, newest analyzed_at first.
  await db.schema
    .createIndex('reports_project_branch_idx')
    .on('reports')
    .columns(['project_id', 'git_branch', 'analyzed_at', 'id'])
    .execute();
  // E1.4: a report whose baseline is deleted keeps its counts; the pointer is found fast.
  await db.schema.createIndex('reports_baseline_idx').on('reports').column('baseline_report_id').execute();

  // The changes list sorts by analyzer id and file: byte order on both databases, whatever the
  // PostgreSQL database's own collation says.
  const sortedText: ColumnDataType | Expression<unknown> = isPostgres(db) ? sql`text collate "C"` : 'text';
  await addIdColumn(db, db.schema.createTable('report_issues'))
    .addColumn('report_id', 'integer', (col) => col.notNull().references('reports.id').onDelete('cascade'))
    // new, unchanged, fixed (a baseline issue the report no longer has), or null without a baseline.
    .addColumn('change', 'text')
    // The list's order (E1.6): new 0, fixed 1, unchanged 2, none 3; critical 0 .. info 4.
    .addColumn('change_rank', 'integer', (col) => col.notNull())
    .addColumn('severity_rank', 'integer', (col) => col.notNull())
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('analyzer_id', sortedText, (col) => col.notNull())
    .addColumn('analyzer_name', 'text', (col) => col.notNull())
    .addColumn('category', 'text')
    .addColumn('severity', 'text', (col) => col.notNull())
    .addColumn('message', 'text', (col) => col.notNull())
    .addColumn('file', sortedText)
    .addColumn('line', 'integer')
    .addColumn('column_number', 'integer')
    // The place among the report's issues as uploaded, for the detail's fingerprint and
    // change of each (E1.5); null on fixed rows, which are the baseline's.
    .addColumn('position', 'integer')
    .execute();
  await db.schema
    .createIndex('report_issues_report_idx')
    .on('report_issues')
    .columns(['report_id', 'change_rank', 'severity_rank'])
    .execute();

  // What the data step still has to do, found without reading every report at each start.
  await db.schema
    .createIndex('reports_unfingerprinted_idx')
    .on('reports')
    .columns(['project_id', 'analyzed_at', 'id'])
    .where(sql.ref('fingerprinted_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('report_issues').execute();
  await db.schema.dropIndex('reports_unfingerprinted_idx').execute();
  await db.schema.dropIndex('reports_baseline_idx').execute();
  await db.schema.dropIndex('reports_project_branch_idx').execute();
  for (const column of [
    'changes_unchanged',
    'changes_fixed',
    'changes_new',
    'baseline_report_id',
    'fingerprinted_at',
    'gate',
    'base_branch',
    'pull_request',
    'git_commit',
    'git_branch',
  ]) {
    await db.schema.alterTable('reports').dropColumn(column).execute();
  }
}
