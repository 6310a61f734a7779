import { sql, type Kysely } from 'kysely';

/**
 * The dashboard's pull-request view (`GET /api/v1/projects/{project}/pull-requests`): the latest
 * report of each of a project's pull requests. Partial, so it holds only the reports of pull
 * requests: the list reads those in the order it ranks them, not every report of a project whose
 * branch runs outnumber them, and projects without pull requests pay nothing for it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('reports_project_pull_request_idx')
    .on('reports')
    .columns(['project_id', 'pull_request', 'analyzed_at', 'id'])
    .where(sql.ref('pull_request'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('reports_project_pull_request_idx').execute();
}
