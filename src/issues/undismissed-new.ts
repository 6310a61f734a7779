import type { Db } from '../db/database.js';
import { DISMISSALS } from './issue-vocabulary.js';

/**
 * A report's new issues that no dismissal in force hides at `now` (E8.1: an acceptance that expired
 * hides nothing): what E10's feedback lists and what E11's emails count, read when they are sent so
 * that an issue dismissed since the upload is left out, as the dashboard leaves it out.
 */
export function undismissedNew(db: Db, projectId: string, reportId: number, now: string) {
  return db
    .selectFrom('report_issues as i')
    .leftJoin('issue_states as s', (join) => join.on('s.project_id', '=', projectId).onRef('s.fingerprint', '=', 'i.fingerprint'))
    .where('i.report_id', '=', reportId)
    .where('i.change', '=', 'new')
    .where((eb) =>
      eb.or([
        eb('s.status', 'is', null),
        eb('s.status', 'not in', [...DISMISSALS]),
        eb.and([eb('s.status', '=', 'accepted'), eb('s.expires_at', 'is not', null), eb('s.expires_at', '<=', now)]),
      ]),
    );
}
