import type { ColumnType, Generated } from 'kysely';

/**
 * Table types for Kysely. Timestamps are stored as UTC ISO 8601 text with milliseconds
 * (`2026-11-21T10:00:00.000Z`): they sort correctly as text on SQLite and PostgreSQL alike and
 * leave the database exactly as D2 writes them. JSON documents are stored as text for the same reason.
 */
export interface Database {
  users: UsersTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  subscriptions: SubscriptionsTable;
  personal_access_tokens: PersonalAccessTokensTable;
  projects: ProjectsTable;
  reports: ReportsTable;
  run_failures: RunFailuresTable;
  report_issues: ReportIssuesTable;
  report_bodies: ReportBodiesTable;
  team_invitations: TeamInvitationsTable;
  audit_events: AuditEventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  sessions: SessionsTable;
  sign_in_attempts: SignInAttemptsTable;
  upload_receipts: UploadReceiptsTable;
  /** E8 (migration 0019): what people decided about a project's issues (issues/). */
  issue_states: IssueStatesTable;
  issue_state_changes: IssueStateChangesTable;
  /** E9 (migration 0020): a team's connections (connections/) and the tickets made through them (tickets/). */
  connections: ConnectionsTable;
  issue_tickets: IssueTicketsTable;
  /** Migration 0021: calls to other services waiting to be made (outbox/). */
  outbox: OutboxTable;
  project_code_hosts: ProjectCodeHostsTable;
  pull_request_comments: PullRequestCommentsTable;
  check_runs: CheckRunsTable;
  /** E11.2 (migration 0024): each user's notification choices and muted projects (notifications/). */
  user_notification_settings: UserNotificationSettingsTable;
  notification_mutes: NotificationMutesTable;
  /** E11.3–E11.4 (migration 0025): events whose emails were written, the unsubscribe links' key, addresses that want no invitations. */
  notification_events: NotificationEventsTable;
  notification_signing_keys: NotificationSigningKeysTable;
  email_opt_outs: EmailOptOutsTable;
  /** D38 (migration 0016): one row, written by every readiness check (db/readiness.ts). */
  readiness_probe: ReadinessProbeTable;
  /** SQLite only (migration 0012): one row, counting the changes of what a token lookup reads (auth/token-cache.ts). */
  auth_changes: AuthChangesTable;
}

/** D40 (migration 0014): the uploads each project received in the last 24 hours, by body digest. */
export interface UploadReceiptsTable {
  project_id: string;
  body_digest: string;
  report_id: number | null;
  /** The gate as the upload's answer gave it (JSON), settings included. */
  gate: string | null;
  received_at: string;
}

export interface ReadinessProbeTable {
  id: number;
  checked_at: string;
}

export interface AuthChangesTable {
  id: number;
  generation: number;
}

export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: string | null;
  current_team_id: number | null;
  created_at: string;
  /** E7: the scrypt hash of the dashboard password (sessions/password-hash.ts); null until the operator sets one. */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
}

/** E7: a dashboard session (migration 0011). */
export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 of the cookie's value. */
  token_hash: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ip: string | null;
  user_agent: string | null;
}

/** E7, D29: the sign-in attempts of one email address within the last 15 minutes (judged or being judged), and its lock. */
export interface SignInAttemptsTable {
  email: string;
  /** JSON, sessions/sign-in-lockout.ts's `Attempt[]`. */
  attempts: string;
  updated_at: string;
  locked_until: string | null;
}

export interface TeamsTable {
  id: Generated<number>;
  name: string;
  /** Kept by every project insert and delete, in the same transaction (D16's `meta.total`). */
  projects_count: Generated<number>;
  /** E4: 1 for the team `users:create` makes with a user (never deleted; the fallback current team), else 0. */
  personal_team: ColumnType<number, number | undefined, number>;
  created_at: string;
}

/** E4: a pending invitation; accepting, declining or cancelling it deletes the row. */
export interface TeamInvitationsTable {
  id: Generated<number>;
  team_id: number;
  /** Normalised (trimmed, lower-cased) like users.email. */
  email: string;
  role: Exclude<TeamRole, 'owner'>;
  /** Null once the inviting user is deleted. */
  invited_by: number | null;
  created_at: string;
  expires_at: string;
}

/** E5: one change, who made it and what it changed; append-only, pruned by age only. */
export interface AuditEventsTable {
  id: Generated<number>;
  action: string;
  actor_type: 'user' | 'operator';
  actor_id: number | null;
  actor_email: string | null;
  actor_token_id: number | null;
  target_type: string;
  target_id: string | null;
  team_id: number | null;
  /** The user the event concerns when that is not the actor (a token the operator made for them). */
  user_id: number | null;
  ip: string | null;
  user_agent: string | null;
  /** JSON object: what changed (old and new values); never a secret. */
  details: string;
  created_at: string;
}

export type TeamRole = 'owner' | 'admin' | 'member' | 'readonly';

export interface TeamMembersTable {
  team_id: number;
  user_id: number;
  role: TeamRole;
  created_at: string;
}

export type Plan = 'solo' | 'business' | 'enterprise';

export interface SubscriptionsTable {
  id: Generated<number>;
  user_id: number;
  plan: Plan;
  status: 'active' | 'canceled';
  ends_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface PersonalAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** SHA-256 (hex) of the whole plain-text token; the plain text is never stored (D9). */
  token_hash: string;
  /** JSON array of abilities, e.g. `["read","write"]`. */
  abilities: string;
  last_used_at: string | null;
  expires_at: string | null;
  created_at: string;
}

export interface ProjectsTable {
  /** Lowercase UUID v7 (D11). */
  id: string;
  team_id: number;
  name: string;
  description: string | null;
  repository_url: string | null;
  framework_version: string;
  /** JSON object with the five D14 keys. */
  settings: string;
  /** SHA-256 (hex) of the project API token (D10). */
  api_token_hash: string;
  /** D19: pointer to the report with the latest analyzed_at, kept up to date on every report write. */
  latest_report_id: number | null;
  /**
   * E2.2: the secret of the project's public badge URLs (badges/badge-key.ts). Stored as is, unlike
   * the tokens: the API shows it back in the badge URLs, and it grants nothing but the badge data.
   */
  badge_key: string;
  /** E9.3: the team connection the project's tickets go to (migration 0020); none when a project is created. */
  tracker_connection_id: ColumnType<string | null, string | null | undefined, string | null>;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ReportsTable {
  id: Generated<number>;
  uuid: string;
  project_id: string;
  score: number;
  total: number;
  passed: number;
  failed: number;
  warnings: number;
  skipped: number;
  errors: number;
  total_issues: number;
  issues_critical: number;
  issues_high: number;
  issues_medium: number;
  issues_low: number;
  issues_info: number;
  framework_version: string | null;
  package_version: string | null;
  total_execution_time: ColumnType<number | null, number | null, number | null>;
  triggered_by: string | null;
  analyzed_at: string;
  created_at: string;
  /** JSON array: the full per-analyzer results; empty when `results_br` holds them (reports/results/results-encoding.ts). */
  results: string;
  /** Since migration 0006: the results' JSON, Brotli-compressed. */
  results_br: Buffer | null;
  /** JSON object: run context sent by the client (git, CI, environment). */
  metadata: string;
  pro_package_version: string | null;
  /** JSON: the client's own summary, as sent; never used for the summary columns. */
  client_summary: string | null;
  /** JSON object: the client's effective configuration, as sent. */
  configuration: string | null;
  /** E1.1: the run's git context, from its metadata; trimmed, or null. */
  git_branch: string | null;
  git_commit: string | null;
  pull_request: string | null;
  base_branch: string | null;
  /** E1.3: the report this one was compared with; null without one, or once it is deleted. */
  baseline_report_id: number | null;
  /** E1.4: counted once against the baseline; null without a baseline. */
  changes_new: number | null;
  changes_fixed: number | null;
  changes_unchanged: number | null;
  /** E1.8: JSON `{passed, reasons}` of the upload's gate; null for reports stored before gates were. */
  gate: string | null;
  /** When fingerprints and changes were computed (at upload, or by migration 0004 for older reports). */
  fingerprinted_at: string | null;
}

/** E1.2/E1.6: one issue of a report, or (change `fixed`) one of its baseline's that it no longer has. */
/** Since migration 0008 (D28): a report's detail answer, gzip-compressed (reports/answer/detail-body.ts). */
export interface ReportBodiesTable {
  id: Generated<number>;
  report_id: number;
  gzip: Buffer;
  /** E8: the project's `issue_state_changes.generation` the answer's states were read at; -1 for answers stored before E8. */
  states_generation: ColumnType<number, number | undefined, number>;
  /** E8: when an acceptance the answer shows expires (the answer is out of date from then); null: never. */
  fresh_until: ColumnType<string | null, string | null | undefined, string | null>;
  /** E8: when a newer answer replaced this one (kept a while for a client still reading it); null: the report's answer. */
  superseded_at: ColumnType<string | null, string | null | undefined, string | null>;
}

/** E8.1's statuses (issues/issue-vocabulary.ts lists them; infrastructure imports no feature). */
export type IssueStatusColumn = 'open' | 'confirmed' | 'accepted' | 'false_positive' | 'wont_fix';

/** E8.1: a project's issue that someone decided about (migration 0019). */
export interface IssueStatesTable {
  project_id: string;
  fingerprint: string;
  status: IssueStatusColumn;
  comment: string | null;
  assignee_id: number | null;
  /** Only with `accepted`: from then on the issue is open again. */
  expires_at: string | null;
  /** Null once that user is deleted. */
  updated_by_id: number | null;
  updated_at: string;
  /** The issue as last seen, from the newest report holding it. */
  analyzer_id: string;
  analyzer_name: string;
  category: string | null;
  severity: 'critical' | 'high' | 'medium' | 'low' | 'info';
  message: string;
  file: string | null;
  line: number | null;
  column_number: number | null;
  /** The newest report (D19's order) holding the fingerprint; null once it is deleted. */
  last_seen_report_id: number | null;
  /** JSON array of the fingerprints the state had before (E8.5), oldest first. */
  previous_fingerprints: ColumnType<string, string | undefined, string>;
}

/** E8: how many times a project's issue states changed; a stored report answer records the count it shows (report_bodies). */
export interface IssueStateChangesTable {
  project_id: string;
  generation: number;
}

export interface ReportIssuesTable {
  id: Generated<number>;
  report_id: number;
  change: 'new' | 'unchanged' | 'fixed' | null;
  change_rank: number;
  severity_rank: number;
  fingerprint: string;
  analyzer_id: string;
  analyzer_name: string;
  category: string | null;
  severity: 'critical' | 'high' | 'medium' | 'low' | 'info';
  message: string;
  file: string | null;
  line: number | null;
  column_number: number | null;
  /** The issue's place among the report's issues as uploaded; null on a fixed row. */
  position: number | null;
}

/** A run that aborted before completion, as `POST /api/reports/failure` reports it. */
export interface RunFailuresTable {
  id: Generated<number>;
  uuid: string;
  project_id: string;
  failure_reason: string | null;
  failure_label: string | null;
  error_message: string | null;
  triggered_by: string | null;
  framework_version: string | null;
  package_version: string | null;
  occurred_at: string;
  /** JSON object: run context sent by the client. */
  metadata: string;
  created_at: string;
}

/** E6: a project's webhook (migration 0010). */
export interface WebhooksTable {
  id: string;
  project_id: string;
  url: string;
  /** JSON array of event names. */
  events: string;
  description: string | null;
  /** 1 or 0. */
  active: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  /** E11.5 (migration 0023): the body deliveries are sent in, a `WebhookFormat` (webhooks/webhook-formats.ts). */
  format: Generated<string>;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * What an outbox row records of its attempts, the same in E6's webhook deliveries and in the
 * outbox of calls to providers: the claim, the last outcome, and when the next attempt is due.
 */
export interface AttemptColumns {
  /** The body or call, fixed when the event happens: every attempt sends the same. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  response_status: number | null;
  error: string | null;
  next_attempt_at: string | null;
  claimed_until: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** The outcome of one attempt, as an outbox records it once its claim is still the attempt's. */
export type AttemptOutcome = Pick<AttemptColumns, 'response_status' | 'error' | 'next_attempt_at' | 'delivered_at'> & {
  status: DeliveryStatus;
};

/** E6: one event for one webhook, and its attempts so far; the outbox the delivery worker reads. */
export interface WebhookDeliveriesTable extends AttemptColumns {
  id: string;
  webhook_id: string;
  event: string;
}

/** A call to another service, due or made (migration 0021, outbox/). */
export interface OutboxTable extends AttemptColumns {
  /** Lowercase UUID v7. */
  id: string;
  kind: string;
  project_id: string | null;
  owner: string;
  target: string;
  ordering_key: string | null;
}

/** E9.1: a team's account at a provider (migration 0020). */
export interface ConnectionsTable {
  /** Lowercase UUID v7. */
  id: string;
  team_id: number;
  /** `github`, `gitlab`, `gitea`, `bitbucket`, `jira` or `linear`. */
  provider: string;
  name: string;
  /** Resolved: the provider's default when none was given. */
  base_url: string;
  /** JSON of the provider's credentials, sealed (secrets/secret-box.ts, context `connection:<id>`). */
  credentials: string;
  /** The credentials' last four characters: all an answer shows of them. */
  credentials_hint: string;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
}

/** E9.4: the ticket an issue was turned into, one per project and fingerprint (migration 0020). */
export interface IssueTicketsTable {
  project_id: string;
  fingerprint: string;
  /** Null once the connection is deleted: the link stays, nothing more is sent. */
  connection_id: string | null;
  provider: string;
  /** As people name it: `SHOP-12`, `ENG-7`, `owner/repo#42`. */
  key: string;
  url: string;
  /** JSON: how later calls address the ticket at its provider (a comment, and closing it, once its issue is fixed). */
  remote: string;
  /** The report the ticket was made from, and its branch (null: a fix on any branch closes it). */
  report_id: number | null;
  branch: string | null;
  created_at: string;
  created_by_id: number | null;
  closed_at: string | null;
}

/** E10.1: the repository a project's feedback goes to, through a connection of its team (migration 0022). */
export interface ProjectCodeHostsTable {
  project_id: string;
  connection_id: string;
  /** As the host names it: `owner/repo` (GitHub, Gitea), a project path or id (GitLab), `workspace/slug` (Bitbucket). */
  repository: string;
  /** 0 or 1. */
  commit_status: number;
  pull_request_comment: number;
  created_at: string;
  updated_at: string;
}

/** E10.3: the comment kept current on a pull request, and the report it shows (D19's order). */
export interface PullRequestCommentsTable {
  project_id: string;
  repository: string;
  pull_request: string;
  /** The host's id of the comment (a note id on GitLab). */
  comment_id: string;
  report_id: number;
  report_analyzed_at: string;
  updated_at: string;
}

/** E10.5: a report's check run, and how many of its annotations have been sent. */
export interface CheckRunsTable {
  report_id: number;
  check_run_id: string;
  annotations_sent: number;
  updated_at: string;
}

/** E11.2: a user's notification choices; no row means the defaults. */
export interface UserNotificationSettingsTable {
  user_id: number;
  /** 0 or 1. */
  gate_failed: number;
  /** The lowest severity that notifies, or `none`. */
  new_issues: string;
  weekly_digest: number;
  assigned: number;
  updated_at: string;
}

/** E11.2: a project a user muted. */
export interface NotificationMutesTable {
  user_id: number;
  project_id: string;
  created_at: string;
}

/** E11.4: an event whose emails were written to the outbox (`report:12`, `digest:2026-11-23`). */
export interface NotificationEventsTable {
  event_key: string;
  created_at: string;
}

/** E11.3: the key that signs unsubscribe links (one row, id 1). */
export interface NotificationSigningKeysTable {
  id: number;
  secret: string;
  created_at: string;
}

/** E11.3: an address that asked for no more invitations. */
export interface EmailOptOutsTable {
  email: string;
  created_at: string;
}
