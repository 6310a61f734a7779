import type { Kysely } from 'kysely';

/**
 * Issue 15: REPORT_RETENTION_DAYS finds the projects with reports stored before its cut without
 * reading every report: the hourly job reads this index from its oldest end (reports/report-retention.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('reports_created_idx').on('reports').columns(['created_at', 'project_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('reports_created_idx').execute();
}
