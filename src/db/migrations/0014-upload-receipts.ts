import type { Kysely } from 'kysely';

/**
 * D40: what each project received in the last 24 hours, by the digest of the body, so that a client
 * retrying an upload whose answer it lost is answered with the report already stored instead of
 * storing it twice. The primary key makes two identical uploads racing store one report: the second
 * waits for the first's row and finds it. The gate is kept as it was answered, since it depends on
 * the settings of that moment. A deleted report takes its receipt with it, so the upload is new again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('upload_receipts')
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('body_digest', 'text', (col) => col.notNull())
    // Null only inside the transaction that claims the receipt and stores the report.
    .addColumn('report_id', 'integer', (col) => col.references('reports.id').onDelete('cascade'))
    .addColumn('gate', 'text')
    .addColumn('received_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('upload_receipts_pk', ['project_id', 'body_digest'])
    .execute();
  await db.schema.createIndex('upload_receipts_received_idx').on('upload_receipts').column('received_at').execute();
  await db.schema.createIndex('upload_receipts_report_idx').on('upload_receipts').column('report_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('upload_receipts').execute();
}
