import type { Kysely } from 'kysely';
import { addIdColumn, isPostgres } from '../dialect.js';

/**
 * D28: each report's detail answer, serialised once and gzip-compressed (reports/answer/detail-body.ts),
 * in a table of its own so that no other read of `reports` carries it. A report without a row here
 * (stored before this migration, or whose answer changed, e.g. its baseline was deleted) gets one
 * at its next read.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Its own id: an answer is read in pieces (the client's pace), and a piece is read by this id, so
  // that a body replaced meanwhile (its baseline deleted, then read again) is never mixed with the new.
  await addIdColumn(db, db.schema.createTable('report_bodies'))
    .addColumn('report_id', 'integer', (col) => col.notNull().unique().references('reports.id').onDelete('cascade'))
    .addColumn('gzip', isPostgres(db) ? 'bytea' : 'blob', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('report_bodies').execute();
}
