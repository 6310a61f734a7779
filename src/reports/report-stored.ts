import type { Db } from '../db/database.js';

/**
 * What other features do when an upload is stored, in the upload's transaction, given to the
 * reports feature in features.ts (E9.5: telling the tickets of fixed issues; E10: a commit's status
 * and a pull request's comment). Each writes what it must to the outbox (outbox/), so that a call
 * to another service is made only once the report is stored, and never lost.
 */
export interface StoredReport {
  projectId: string;
  reportId: number;
  uuid: string;
  branch: string | null;
  commit: string | null;
  pullRequest: string | null;
  /** D19's order among the project's reports is (analyzedAt, reportId). */
  analyzedAt: string;
  /** Where the dashboard is, as the upload's request saw it (PUBLIC_URL, else its scheme and host: D16). */
  dashboardBase: string;
}

export type ReportStoredHook = (trx: Db, report: StoredReport) => Promise<void>;
