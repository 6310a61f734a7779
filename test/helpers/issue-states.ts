/**
 * E8.1 states for tests that read them (exports, lists), written straight into `issue_states` as
 * `PUT /projects/{project}/issues/{fingerprint}` (E8.2) writes them: the issue as the project's
 * newest report holding it shows it, and the project's states generation counted. Tests of the
 * endpoint itself go through HTTP.
 */
import type { Db } from '../../src/db/database.js';
import type { IssueStatus } from '../../src/issues/issue-vocabulary.js';
import { countStatesChange } from '../../src/issues/state-reads.js';

export async function givenIssueState(
  db: Db,
  at: string,
  projectId: string,
  fingerprint: string,
  state: { status: IssueStatus; comment?: string | null; expires_at?: string | null; updated_by_id?: number | null },
): Promise<void> {
  const seen = await db
    .selectFrom('report_issues as i')
    .innerJoin('reports as r', 'r.id', 'i.report_id')
    .select([
      'r.id as report_id',
      'i.analyzer_id',
      'i.analyzer_name',
      'i.category',
      'i.severity',
      'i.message',
      'i.file',
      'i.line',
      'i.column_number',
    ])
    .where('r.project_id', '=', projectId)
    .where('i.fingerprint', '=', fingerprint)
    .where((eb) => eb.or([eb('i.change', 'is', null), eb('i.change', '!=', 'fixed')]))
    .orderBy('r.analyzed_at', 'desc')
    .orderBy('r.id', 'desc')
    .executeTakeFirstOrThrow();
  const { report_id, ...issue } = seen;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('issue_states')
      .values({
        project_id: projectId,
        fingerprint,
        status: state.status,
        comment: state.comment ?? null,
        assignee_id: null,
        expires_at: state.expires_at ?? null,
        updated_by_id: state.updated_by_id ?? null,
        updated_at: at,
        ...issue,
        last_seen_report_id: report_id,
        previous_fingerprints: '[]',
      })
      .execute();
    await countStatesChange(trx, projectId);
  });
}
