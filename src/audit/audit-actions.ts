/**
 * E5: every action an audit event can name. Those of the API and the dashboard are E5's list; the
 * operator command's own changes (D20) follow the same `target.verb` form.
 */
export const AUDIT_ACTIONS = [
  'project.created',
  'project.updated',
  'project.deleted',
  'project.archived',
  'project.unarchived',
  'project.token_regenerated',
  'project.badge_regenerated',
  'report.deleted',
  'team.created',
  'team.updated',
  'team.deleted',
  'team.transferred',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.left',
  'invitation.cancelled',
  'invitation.declined',
  'token.created',
  'token.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  // E9.1: a team's connections to its ticket providers (never their credentials).
  'connection.created',
  'connection.updated',
  'connection.deleted',
  'issue.updated',
  // E8.8: a state the service moved to an issue's new fingerprint at an upload (E8.5; actor `operator`).
  'issue.state_carried',
  // E9.4: an issue turned into a ticket at the project's tracker.
  'ticket.created',
  'user.updated',
  'session.created',
  // The operator command's changes (actor `operator`).
  'user.created',
  'user.deleted',
  'user.plan_changed',
  'member.added',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an event is about: `target.type` in the API's shape. */
export type AuditTargetType =
  | 'project'
  | 'report'
  | 'team'
  | 'member'
  | 'invitation'
  | 'token'
  | 'webhook'
  | 'user'
  | 'session'
  | 'issue'
  | 'connection';
