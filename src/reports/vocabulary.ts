/**
 * The words a report is made of, each listed once: the schemas, the summary, the gate and the
 * stored form all read them from here.
 */

/** An issue's severity, most severe first: the gate's scale (D14 `fail_on`) and the summary's keys. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** What an analyzer's run came to (CLIENT-WIRE.md); the summary counts each. */
export const RESULT_STATUSES = ['passed', 'failed', 'warning', 'skipped', 'error'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

/** `threshold` and every severity above it. */
export function severitiesAtOrAbove(threshold: Severity): Set<Severity> {
  return new Set(SEVERITIES.slice(0, SEVERITIES.indexOf(threshold) + 1));
}
