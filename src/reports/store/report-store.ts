import type { Db } from '../../db/database.js';
import { createReportReads } from './report-reads.js';
import { createReportWrites } from './report-writes.js';

/** The report store on `db` (the database, or a transaction that does several of these together). */
export function createReportStore(db: Db) {
  return { ...createReportReads(db), ...createReportWrites(db) };
}

export type ReportStore = ReturnType<typeof createReportStore>;
