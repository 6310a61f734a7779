/**
 * The report page's sections (issue 31): which one the URL names, how many each holds, and the
 * score in one sentence. Kept free of Preact so it is unit-tested.
 */
import { formatNumber } from './format.js';

export const REPORT_TABS = ['overview', 'new', 'fixed', 'issues', 'suppressed', 'failed'] as const;
export type ReportTab = (typeof REPORT_TABS)[number];

export const TAB_LABELS: Record<ReportTab, string> = {
  overview: 'Overview',
  new: 'New',
  fixed: 'Fixed',
  issues: 'All issues',
  suppressed: 'Suppressed in code',
  failed: 'Failed analyzers',
};

/** The section a `?tab=` value names; the overview for none or an unknown one (an old or hand-edited URL). */
export function tabParam(value: string | undefined): ReportTab {
  return REPORT_TABS.find((tab) => tab === value) ?? 'overview';
}

/** The statuses that cost the score: an analyzer that failed, warned or errored did not pass (README, "What the score means"). */
export const NOT_PASSED = ['failed', 'error', 'warning'] as const;

export function didNotPass(status: string): boolean {
  return (NOT_PASSED as readonly string[]).includes(status);
}

export interface TabCountsInput {
  total_issues: number;
  changes: { new: number | null; fixed: number | null };
  suppressed_issues: { total: number };
  results: readonly { status: string }[];
}

/** Each section's count; null where the report cannot know (no baseline: nothing is new or fixed). */
export function tabCounts(report: TabCountsInput): Record<ReportTab, number | null> {
  return {
    overview: null,
    new: report.changes.new,
    fixed: report.changes.fixed,
    issues: report.total_issues,
    suppressed: report.suppressed_issues.total,
    failed: report.results.filter((result) => didNotPass(result.status)).length,
  };
}

/**
 * Why the report scores what it does, in one sentence: passed ÷ (total − skipped), the README's
 * formula, with the figures of this report.
 */
export function scoreSentence(report: { score: number; total: number; passed: number; skipped: number }): string {
  const ran = report.total - report.skipped;
  if (ran <= 0) return `Score ${report.score}: every analyzer was skipped, so none failed.`;
  const skipped = report.skipped === 0 ? '' : `, ${formatNumber(report.skipped)} skipped`;
  return `Score ${report.score}: ${formatNumber(report.passed)} of the ${formatNumber(ran)} analyzers that ran passed (${formatNumber(report.total)} in all${skipped}).`;
}
