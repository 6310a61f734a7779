/**
 * E11.2's words, shared with the dashboard (web/): imports nothing.
 */

/** The lowest severity of new issues that sends an email, or `none` for never. */
export const NEW_ISSUES_LEVELS = ['critical', 'high', 'medium', 'low', 'none'] as const;
export type NewIssuesLevel = (typeof NEW_ISSUES_LEVELS)[number];

/** How many projects one user may mute. */
export const MUTED_PROJECTS_MAX = 1000;

/** A user's choices, without the muted projects. */
export interface NotificationChoices {
  gate_failed: boolean;
  new_issues: NewIssuesLevel;
  weekly_digest: boolean;
  assigned: boolean;
}

/** What a user who never changed anything gets. */
export const DEFAULT_CHOICES: Readonly<NotificationChoices> = Object.freeze({
  gate_failed: true,
  new_issues: 'critical',
  weekly_digest: false,
  assigned: true,
});
