import type { Db } from '../db/database.js';
import { notFound } from '../wire/api-error.js';
import { pageOffset, paginationEnvelope, PAGE_SIZE } from '../wire/pagination.js';
import { createReportStore } from './store/report-store.js';
import type { HeavyWork } from './threads/heavy-work.js';
import type { SuppressionType } from './vocabulary.js';

/**
 * E8.6: the issues the client package suppressed in a report (CLIENT-WIRE.md's
 * `results[].suppressed_issues`), in upload order, result by result, paginated like D16. They live
 * only in the report's stored results, which are decoded for each page (results/suppressed-issues.ts
 * says what that costs), on a heavy-work thread when the report is large (D28).
 */
export function createSuppressedIssuesService(deps: { db: Db; heavyWork: HeavyWork }) {
  const reports = createReportStore(deps.db);
  return {
    async list(report: { id: number }, type: SuppressionType | undefined, page: number, path: string) {
      const results = await reports.resultsOf(report.id);
      // Deleted since it was resolved (D11's 404).
      if (!results) throw notFound();
      const { total, items } = await deps.heavyWork.suppressedPage(results, { type, offset: pageOffset(page), limit: PAGE_SIZE });
      return { data: items, ...paginationEnvelope({ path, page, total, count: items.length, filters: { type } }) };
    },
  };
}

export type SuppressedIssuesService = ReturnType<typeof createSuppressedIssuesService>;
