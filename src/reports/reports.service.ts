import type { Db } from '../db/database.js';
import { createReportsRepository, type NewReport } from './reports.repository.js';

/**
 * Report storage. Uploads from the client package arrive in a later issue; the storage rules that
 * `latest_report` depends on (D19) live here already so every writer goes through them.
 */
export function createReportsService(deps: { db: Db }) {
  return {
    /** Stores one report and moves the project's latest-report pointer, all or nothing. */
    async storeReport(report: NewReport): Promise<number> {
      return deps.db.transaction().execute(async (trx) => {
        const reports = createReportsRepository(trx);
        const id = await reports.insert(report);
        await reports.refreshLatest(report.project_id);
        return id;
      });
    },

    /** Deleting the latest report makes the next one latest (D19). */
    async deleteReport(report: { id: number; project_id: string }): Promise<void> {
      await deps.db.transaction().execute(async (trx) => {
        const reports = createReportsRepository(trx);
        await reports.delete(report.id);
        await reports.refreshLatest(report.project_id);
      });
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
