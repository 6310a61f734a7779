import type { Db } from '../../db/database.js';
import { effectiveStatus, isDismissal, type IssueStatus } from '../../issues/issue-vocabulary.js';
import { statesOfProject } from '../../issues/state-reads.js';

/**
 * E8.7: what an export says of each issue's state (E8.1), as of the moment it starts: the project's
 * states are read once per export, and only what the export writes of each (its status and
 * comment) is kept while it streams; an issue without a state, or whose acceptance has expired,
 * is `open`.
 */
export interface ExportStates {
  /** The issue's status at export time. */
  statusOf(fingerprint: string): IssueStatus;
  /** The dismissal in force at export time (E8.1: accepted, false_positive, wont_fix), with its comment; else null. */
  dismissalOf(fingerprint: string): { status: IssueStatus; comment: string | null } | null;
}

export async function exportStatesOf(db: Db, projectId: string, now: string): Promise<ExportStates> {
  const decided = new Map<string, { status: IssueStatus; comment: string | null }>();
  for (const [fingerprint, row] of await statesOfProject(db, projectId)) {
    const status = effectiveStatus(row, now);
    if (status !== 'open') decided.set(fingerprint, { status, comment: row.comment });
  }
  return {
    statusOf: (fingerprint) => decided.get(fingerprint)?.status ?? 'open',
    dismissalOf: (fingerprint) => {
      const state = decided.get(fingerprint);
      return state !== undefined && isDismissal(state.status) ? state : null;
    },
  };
}
