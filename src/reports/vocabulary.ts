/**
 * The words a report is made of, each listed once: the schemas, the summary, the gate and the
 * stored form all read them from here, and so does the dashboard (web/): this file imports nothing.
 */

/** An issue's severity, most severe first: the gate's scale (D14 `fail_on`) and the summary's keys. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** What an analyzer's run came to (CLIENT-WIRE.md); the summary counts each. */
export const RESULT_STATUSES = ['passed', 'failed', 'warning', 'skipped', 'error'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

/** D14: `never`, or a severity (all but `info`) at or above which the gate fails. */
export const FAIL_ON_LEVELS = ['never', 'critical', 'high', 'medium', 'low'] as const satisfies readonly ('never' | Severity)[];

/** The kinds the changes endpoint lists (E1.6), in its order: new, then fixed, then unchanged. */
export const CHANGE_KINDS = ['new', 'fixed', 'unchanged'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** `threshold` and every severity above it. */
export function severitiesAtOrAbove(threshold: Severity): Set<Severity> {
  return new Set(SEVERITIES.slice(0, SEVERITIES.indexOf(threshold) + 1));
}

/**
 * How the client package suppressed an issue (CLIENT-WIRE.md `suppression.type`): an inline comment,
 * its configuration, its baseline. E8.6's `?type=` filter takes these.
 */
export const SUPPRESSION_TYPES = ['inline', 'config', 'baseline'] as const;
export type SuppressionType = (typeof SUPPRESSION_TYPES)[number];
