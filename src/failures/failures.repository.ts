import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { countRows } from '../db/dialect.js';
import type { RunFailuresTable } from '../db/schema.js';

export type RunFailureRow = Selectable<RunFailuresTable>;

export function createFailuresRepository(db: Db) {
  return {
    async insert(failure: Insertable<RunFailuresTable>): Promise<number> {
      const row = await db.insertInto('run_failures').values(failure).returning('id').executeTakeFirstOrThrow();
      return row.id;
    },

    async countForProject(projectId: string): Promise<number> {
      return countRows(db.selectFrom('run_failures').where('project_id', '=', projectId));
    },

    /** Newest first by the time the run failed, ties highest id. */
    async listForProject(projectId: string, page: { limit: number; offset: number }): Promise<RunFailureRow[]> {
      return db
        .selectFrom('run_failures')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('occurred_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
    },

    async deleteForProject(projectId: string): Promise<void> {
      await db.deleteFrom('run_failures').where('project_id', '=', projectId).execute();
    },
  };
}
