import type { Kysely, Migration } from 'kysely';
import * as initial from './0001-initial.js';
import * as uploads from './0002-uploads.js';
import * as teamProjectCount from './0003-team-project-count.js';
import * as changes from './0004-changes.js';
import * as badgeKeys from './0005-badge-keys.js';
import * as compressedResults from './0006-compressed-results.js';
import * as teamsAndAudit from './0007-teams-and-audit.js';
import * as reportBodies from './0008-report-bodies.js';
import * as reportRetention from './0009-report-retention.js';
import * as webhooks from './0010-webhooks.js';
import * as sessions from './0011-sessions.js';
import * as authChanges from './0012-auth-changes.js';
import * as personalTeamsStayPersonal from './0013-personal-teams-stay-personal.js';
import * as uploadReceipts from './0014-upload-receipts.js';
import * as signInAttempts from './0015-sign-in-attempts.js';
import * as readinessProbe from './0016-readiness-probe.js';
import * as noAuthNotifications from './0017-no-auth-notifications.js';
import * as pullRequestIndex from './0018-pull-request-index.js';
import * as issueStates from './0019-issue-states.js';
import * as connectionsAndTickets from './0020-connections-and-tickets.js';
import * as outbox from './0021-outbox.js';
import * as codeHosts from './0022-code-hosts.js';
import * as webhookFormats from './0023-webhook-formats.js';
import * as notificationSettings from './0024-notification-settings.js';
import * as notificationEmails from './0025-notification-emails.js';

/**
 * Every migration, by name; Kysely's Migrator runs them in name order. Listed explicitly (rather than
 * read from the folder) so the same list works from TypeScript sources under test and from dist/.
 * Never edit a shipped migration: add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-uploads': uploads,
  '0003-team-project-count': teamProjectCount,
  '0004-changes': changes,
  '0005-badge-keys': badgeKeys,
  '0006-compressed-results': compressedResults,
  '0007-teams-and-audit': teamsAndAudit,
  '0008-report-bodies': reportBodies,
  '0009-report-retention': reportRetention,
  '0010-webhooks': webhooks,
  '0011-sessions': sessions,
  '0012-auth-changes': authChanges,
  '0013-personal-teams-stay-personal': personalTeamsStayPersonal,
  '0014-upload-receipts': uploadReceipts,
  '0015-sign-in-attempts': signInAttempts,
  '0016-readiness-probe': readinessProbe,
  '0017-no-auth-notifications': noAuthNotifications,
  '0018-pull-request-index': pullRequestIndex,
  '0019-issue-states': issueStates,
  '0020-connections-and-tickets': connectionsAndTickets,
  '0021-outbox': outbox,
  '0022-code-hosts': codeHosts,
  '0023-webhook-formats': webhookFormats,
  '0024-notification-settings': notificationSettings,
  '0025-notification-emails': notificationEmails,
};

/**
 * Data a migration's new columns need for the rows stored before it, filled after every migration
 * has run, at each `migrate` and `serve`: in batches of their own transactions, so a crash or an
 * interruption keeps what was done and the next start does the rest, and cheap when nothing is left.
 * The feature that owns the data writes the step (e.g. reports/changes/changes-backfill.ts); the
 * caller of the migrations (src/migrate.ts) lists them.
 */
export type DataStep = (db: Kysely<any>) => Promise<unknown>;
