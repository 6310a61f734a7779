import { auditModule } from './audit/audit.module.js';
import { codeHostModule } from './code-host/code-host.module.js';
import { connectionsModule } from './connections/connections.module.js';
import { createProviderHttp, type ProviderHttp } from './connections/provider-http.js';
import { issuesModule } from './issues/issues.module.js';
import { generateBadgeKey } from './badges/badge-key.js';
import { badgesModule } from './badges/badges.module.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { failuresModule } from './failures/failures.module.js';
import type { EmailKind } from './notifications/email-kinds.js';
import type { EmailOutcome } from './notifications/email-notifications.js';
import { notificationsModule } from './notifications/notifications.module.js';
import { createUploadDecisions } from './issues/upload-decisions.js';
import { projectsModule } from './projects/projects.module.js';
import { reportsModule } from './reports/reports.module.js';
import type { HeavyWork } from './reports/threads/heavy-work.js';
import type { SecretBox } from './secrets/secret-box.js';
import { deriveOnLibuv, type PasswordHasher, passwordHasher } from './sessions/password-hash.js';
import { sessionsModule } from './sessions/sessions.module.js';
import { teamsModule } from './teams/teams.module.js';
import { createTicketFollowUps } from './tickets/ticket-follow-up.js';
import { moveTicket } from './tickets/tickets.repository.js';
import { ticketsModule } from './tickets/tickets.module.js';
import { tokensModule } from './tokens/tokens.module.js';
import { recordEvent, recordEvents } from './webhooks/webhook-events.js';
import { webhooksModule } from './webhooks/webhooks.module.js';

/**
 * Every feature, built from what it declares it needs of the others: the one place where one
 * feature's service is handed to another (docs/architecture.md, "Where a new feature goes").
 * app.ts mounts their routes; the operator command builds its own subset (operator-features.ts).
 */
export function createFeatures(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  heavyWork: HeavyWork;
  passwords?: PasswordHasher;
  /** E9.2: seals and opens stored credentials and webhook secrets. */
  secrets: SecretBox;
  /**
   * E9: the client every call to a ticket provider goes through, closed by whoever made it (app.ts).
   * Without one, a client of the configuration's network rules that nobody closes: for services
   * that make no call (tests' direct service use); its sockets would be idle-closed anyway.
   */
  providerHttp?: ProviderHttp;
  /** E11.4: each email's outcome, for /metrics. */
  onEmail?: (kind: EmailKind, outcome: EmailOutcome) => void;
}) {
  const { db, clock, config } = deps;
  // E11: the emails are written by the changes of other features (an invitation, an assignment, an upload).
  const notifications = notificationsModule({
    db,
    clock,
    config,
    ...(deps.onEmail && { onEmail: deps.onEmail }),
  });
  const tokens = tokensModule({ db, clock });
  const teams = teamsModule({ db, clock, config, memberInvited: notifications.emails.memberInvited });
  const projects = projectsModule({
    db,
    clock,
    config,
    teamRoleOf: teams.roleOf,
    teamRoleInTransaction: teams.roleInTransaction,
    newBadgeKey: generateBadgeKey,
    recordEvent,
  });
  // E6's network rules hold for providers too (WEBHOOK_ALLOW_PRIVATE_NETWORKS lifts them).
  const providerHttp =
    deps.providerHttp ?? createProviderHttp({ allowPrivateNetworks: config.webhookAllowPrivateNetworks, now: () => clock.now() });
  // E9.5: a stored upload tells the tickets of the issues it fixed, through the outbox.
  const ticketFollowUps = createTicketFollowUps({ db, clock, secrets: deps.secrets, http: providerHttp });
  // E10: and its project's code host (a status, a pull request's comment), through the outbox too.
  const codeHost = codeHostModule({ db, clock, config, secrets: deps.secrets, projects: projects.service, http: providerHttp });
  const reports = reportsModule({
    db,
    clock,
    config,
    heavyWork: deps.heavyWork,
    projects: projects.service,
    uploadDecisions: createUploadDecisions({ clock, followers: [moveTicket] }),
    reportStored: [ticketFollowUps.reportStored, codeHost.feedback.reportStored, notifications.emails.reportStored],
  });
  const failures = failuresModule({ db, clock, config, projects: projects.service });
  const badges = badgesModule({ db, clock, config, projects: projects.service });
  const audit = auditModule({ db, clock, config, teams: teams.managerCheck });
  const webhooks = webhooksModule({ db, clock, config, projects: projects.service, secrets: deps.secrets });
  const connections = connectionsModule({
    db,
    clock,
    config,
    secrets: deps.secrets,
    providerHttp,
    teams: teams.managerCheck,
    teamRoleInTransaction: teams.roleInTransaction,
  });
  const issues = issuesModule({
    db,
    clock,
    config,
    projects: projects.service,
    recordEvents,
    issuesAssigned: notifications.emails.issuesAssigned,
  });
  const tickets = ticketsModule({
    db,
    clock,
    config,
    secrets: deps.secrets,
    projects: projects.service,
    issues: issues.service,
    http: providerHttp,
  });
  const sessions = sessionsModule({ db, clock, config, passwords: deps.passwords ?? passwordHasher(deriveOnLibuv) });
  return {
    tokens,
    teams,
    projects,
    reports,
    failures,
    badges,
    audit,
    webhooks,
    issues,
    tickets,
    sessions,
    connections,
    codeHost,
    notifications,
    /** The outbox's handlers by kind: the calls to other services that features write to it (outbox/). */
    outboxHandlers: { ...ticketFollowUps.handlers, ...codeHost.feedback.handlers, ...notifications.emails.handlers },
    /** The REST API's route plugins, mounted under /api/v1 in this order. */
    v1Routes: [
      tokens,
      projects,
      reports,
      failures,
      badges,
      teams,
      audit,
      webhooks,
      issues,
      tickets,
      codeHost,
      sessions,
      connections,
      notifications,
    ].map((feature) => feature.routes),
  };
}

export type Features = ReturnType<typeof createFeatures>;
