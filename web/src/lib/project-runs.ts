import { pageUrl } from '../../../src/dashboard/dashboard-pages.js';
import type { FAILURE_REASONS } from '../../../src/failures/failure-upload.schemas.js';

type FailureReason = (typeof FAILURE_REASONS)[number];

/**
 * The project page's pull requests and failed runs (issue 31 item 4), kept free of Preact so that
 * they are unit-tested: where a pull request's new issues are, what a failed run is called and
 * which git context it carried.
 */

/** The report page's New section (`?tab=new`, the report page's sections in lib/report-tabs.ts): the report's new issues only. */
export function newIssuesUrl(report: string): string {
  return `${pageUrl('report', { report })}?tab=new`;
}

/** The client's failure reasons in words, for a failed run that sent no label of its own. */
const REASONS: Record<FailureReason, string> = {
  invalid_options: 'Invalid options',
  all_categories_disabled: 'Every category was disabled',
  no_analyzers_ran: 'No analyzer ran',
  uncaught_exception: 'Uncaught exception during analysis',
};

/** A failed run's headline: the label the client sent, else its reason in words, else that it failed. */
export function failureHeadline(failure: { failure_label: string | null; failure_reason: string | null }): string {
  const label = failure.failure_label?.trim();
  if (label) return label;
  const reason = failure.failure_reason;
  if (reason !== null && Object.hasOwn(REASONS, reason)) return REASONS[reason as FailureReason];
  return reason ? `Failed: ${reason}` : 'The run failed';
}

/** The git context a failed run's metadata carried (CLIENT-WIRE.md's names), each a non-empty string or null. */
export interface RunContext {
  branch: string | null;
  commit: string | null;
  pullRequest: string | null;
  baseBranch: string | null;
}

/** Read from the metadata as sent: anything but a non-blank string (a number, an object, nothing) is unknown. */
export function runContext(metadata: Record<string, unknown>): RunContext {
  const text = (key: string) => {
    const value = metadata[key];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
  };
  return { branch: text('git_branch'), commit: text('git_commit'), pullRequest: text('pr_number'), baseBranch: text('base_branch') };
}

/** A commit as people read it: its first seven characters. */
export function shortCommit(sha: string): string {
  return sha.slice(0, 7);
}
