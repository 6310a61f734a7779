import type { Kysely } from 'kysely';

/**
 * D38: /readyz answers 503 while the database cannot write, so it writes: one row, which every
 * instance's readiness check updates and commits (db/readiness.ts). One row, not one per instance:
 * the table never grows, whatever the number of restarts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('readiness_probe')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    // When an instance last found the database writable (an ISO 8601 UTC timestamp).
    .addColumn('checked_at', 'text', (col) => col.notNull())
    .execute();
  await db
    .insertInto('readiness_probe')
    .values({ id: 1, checked_at: new Date(0).toISOString() })
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('readiness_probe').execute();
}
