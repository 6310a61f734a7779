import { sql, type Kysely } from 'kysely';

/**
 * D16's `meta.total` is the team's number of projects. Counting 10,000 index entries on every list
 * request was most of its cost in the benchmark, so the count is kept on the team, changed in the
 * same transaction as every project insert and delete.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('teams')
    .addColumn('projects_count', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`update teams set projects_count = (select count(*) from projects where projects.team_id = teams.id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('teams').dropColumn('projects_count').execute();
}
