import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { countRows } from '../db/dialect.js';
import { pageDescending } from '../db/page-query.js';
import type { RunFailuresTable } from '../db/schema.js';

export type RunFailureRow = Selectable<RunFailuresTable>;

export function createFailuresRepository(db: Db) {
  const ofProject = (projectId: string) => db.selectFrom('run_failures').where('project_id', '=', projectId);
  return {
    async insert(failure: Insertable<RunFailuresTable>): Promise<number> {
      const row = await db.insertInto('run_failures').values(failure).returning('id').executeTakeFirstOrThrow();
      return row.id;
    },

    async countForProject(projectId: string): Promise<number> {
      return countRows(ofProject(projectId));
    },

    /** Newest first by the time the run failed, ties highest id. */
    async listForProject(projectId: string, page: { limit: number; offset: number }): Promise<RunFailureRow[]> {
      return pageDescending(ofProject(projectId).selectAll(), ['occurred_at', 'id'], page).execute();
    },

    async deleteForProject(projectId: string): Promise<void> {
      await db.deleteFrom('run_failures').where('project_id', '=', projectId).execute();
    },
  };
}
