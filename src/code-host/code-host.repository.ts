import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { ProjectCodeHostsTable } from '../db/schema.js';

export type CodeHostRow = Selectable<ProjectCodeHostsTable>;
export type LinkedCodeHost = CodeHostRow & { provider: string; name: string; base_url: string; team_id: number };

/** E10: a project's code host and what its feedback remembers. Only this module writes these tables. */
export function createCodeHostRepository(db: Db) {
  return {
    /** The project's link with its connection's provider, name and base_url; undefined when none. */
    async find(projectId: string): Promise<LinkedCodeHost | undefined> {
      return db
        .selectFrom('project_code_hosts as h')
        .innerJoin('connections as c', 'c.id', 'h.connection_id')
        .selectAll('h')
        .select(['c.provider', 'c.name', 'c.base_url', 'c.team_id'])
        .where('h.project_id', '=', projectId)
        .executeTakeFirst();
    },

    async upsert(row: CodeHostRow): Promise<void> {
      const { project_id, created_at, ...changes } = row;
      await db
        .insertInto('project_code_hosts')
        .values(row)
        .onConflict((conflict) => conflict.column('project_id').doUpdateSet(changes))
        .execute();
    },

    async delete(projectId: string): Promise<boolean> {
      const result = await db.deleteFrom('project_code_hosts').where('project_id', '=', projectId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The comment kept on a pull request, and the report it shows. */
    async comment(projectId: string, repository: string, pullRequest: string) {
      return db
        .selectFrom('pull_request_comments')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('repository', '=', repository)
        .where('pull_request', '=', pullRequest)
        .executeTakeFirst();
    },

    async saveComment(row: {
      project_id: string;
      repository: string;
      pull_request: string;
      comment_id: string;
      report_id: number;
      report_analyzed_at: string;
      updated_at: string;
    }): Promise<void> {
      const { project_id, repository, pull_request, ...changes } = row;
      await db
        .insertInto('pull_request_comments')
        .values(row)
        .onConflict((conflict) => conflict.columns(['project_id', 'repository', 'pull_request']).doUpdateSet(changes))
        .execute();
    },

    async checkRun(reportId: number) {
      return db.selectFrom('check_runs').selectAll().where('report_id', '=', reportId).executeTakeFirst();
    },

    async saveCheckRun(row: { report_id: number; check_run_id: string; annotations_sent: number; updated_at: string }): Promise<void> {
      const { report_id, ...changes } = row;
      await db
        .insertInto('check_runs')
        .values(row)
        .onConflict((conflict) => conflict.column('report_id').doUpdateSet(changes))
        .execute();
    },
  };
}
