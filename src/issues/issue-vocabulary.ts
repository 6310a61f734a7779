/**
 * E8's words, each listed once: the schemas, the gate, the lists' filters and the dashboard (web/)
 * read them from here; this file imports nothing.
 */

/** E8.1: what a person decided about an issue. An issue nobody decided about is `open`. */
export const ISSUE_STATUSES = ['open', 'confirmed', 'accepted', 'false_positive', 'wont_fix'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

/** E8.1: the statuses that take an issue out of the gate (E8.4) while in force; each needs a comment. */
export const DISMISSALS = ['accepted', 'false_positive', 'wont_fix'] as const satisfies readonly IssueStatus[];
export type Dismissal = (typeof DISMISSALS)[number];

export function isDismissal(status: IssueStatus): status is Dismissal {
  return (DISMISSALS as readonly IssueStatus[]).includes(status);
}

/** E8.3: the `state` filter of a report's changes: no dismissal in force, or one. */
export const STATE_FILTERS = ['open', 'dismissed'] as const;
export type StateFilter = (typeof STATE_FILTERS)[number];

/** E8.2: a comment's length in characters (D12 counts code points). */
export const COMMENT_MAX = 2000;

/** E8.2: how far ahead an acceptance may expire. */
export const EXPIRY_MAX_DAYS = 365;

/** E8.2: fingerprints one bulk change takes at most. */
export const BULK_MAX = 500;

/**
 * E8.1: the status an issue has at `now`. An acceptance whose expiry has passed is open again:
 * nothing is written when it expires; every read and every upload decides it from the time.
 */
export function effectiveStatus(state: { status: IssueStatus; expires_at: string | null }, now: string): IssueStatus {
  return state.status === 'accepted' && state.expires_at !== null && state.expires_at <= now ? 'open' : state.status;
}

/** E8.4: whether the state takes its issue out of the gate at `now`. */
export function dismissalInForce(state: { status: IssueStatus; expires_at: string | null }, now: string): boolean {
  return isDismissal(effectiveStatus(state, now));
}
