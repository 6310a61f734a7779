import { recordAudit } from '../audit/audit-log.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Clock } from '../clock.js';
import { markConnectionUsed, openConnection } from '../connections/connections.repository.js';
import type { ProviderHttp } from '../connections/provider-http.js';
import { inTransaction, type Db } from '../db/database.js';
import type { IssueTicket } from '../issues/issue-state.schemas.js';
import { type HeldIssue, type IssuesService, issueNotFound } from '../issues/issues.service.js';
import type { ProjectsService, ResolvedProject } from '../projects/projects.service.js';
import { parseStoredSettings, TICKET_PROVIDERS } from '../projects/settings.js';
import { decodeResults } from '../reports/results/results-encoding.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { ApiError, invalidField, validationFailed } from '../wire/api-error.js';
import { fileLink } from './code-links.js';
import { createTicketAt } from './ticket-providers.js';
import type { TicketFacts } from './ticket-text.js';
import { createTicketsRepository } from './tickets.repository.js';
import type { BulkTicketItem, Tracker } from './tickets.schemas.js';
import { TICKET_CLOSE, TICKET_COMMENT } from './ticket-follow-up.js';
import { outboxDeliveries } from '../outbox/outbox-deliveries.js';

/** E9.4: the 409s of a project that has no tickets, and of an issue that has its ticket. */
export const NO_TICKETS_MESSAGE = "This project's tracker is internal: its issues have no tickets. Link a tracker to create them.";
export const NO_CONNECTION_MESSAGE = "This project has no tracker connection: link one of its team's connections to create tickets.";
export const TICKET_EXISTS_MESSAGE = 'This issue has a ticket already.';

const conflict = (message: string, body?: Record<string, unknown>) => new ApiError(409, 'Conflict', message, body ? { body } : {});

export interface TicketsServiceDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  http: ProviderHttp;
  projects: Pick<ProjectsService, 'lockForWrite' | 'linkTracker'>;
  issues: Pick<IssuesService, 'heldIssues' | 'recordTicketed'>;
}

/**
 * E9.3 and E9.4. Creating a ticket is a call to the provider between two transactions: the first
 * checks the caller's credential and role again (D22) so nothing is sent for someone who lost the
 * right; the second stores the ticket with its audit event and counts the change of the project's
 * states (so the stored report answers show it). The provider's refusal, or no answer within the
 * client's deadline, is a 502 with the provider's message; a bulk request creates its tickets one
 * after another and stops at the first failure (those created before it are kept: they exist at
 * the provider).
 */
export function createTicketsService(deps: TicketsServiceDeps) {
  const { db, clock } = deps;
  const repository = createTicketsRepository(db);

  async function trackerOf(project: Pick<ResolvedProject, 'id' | 'settings'>): Promise<Tracker> {
    const settings = parseStoredSettings(project.settings);
    const connection = await repository.trackerOf(project.id);
    return {
      connection,
      primary_tracker: settings.primary_tracker,
      target: { key: settings.ticket_target_project_key, name: settings.ticket_target_project_name },
    };
  }

  /** What a ticket says of `issue`, from the newest report holding it (its snippet and recommendation too). */
  async function factsOf(project: ResolvedProject, issue: HeldIssue, dashboardBase: string) {
    const report = await repository.report(issue.report_id);
    if (report === undefined) throw issueNotFound();
    let snippet: Record<string, string> | null = null;
    let recommendation: string | null = null;
    for (const result of decodeResults(report)) {
      if (result.analyzer_id !== issue.analyzer_id) continue;
      const found = result.issues.find(
        (candidate) =>
          candidate.message === issue.message &&
          (candidate.location?.file ?? null) === issue.file &&
          (candidate.location?.line ?? null) === issue.line,
      );
      if (found === undefined) continue;
      snippet = found.code_snippet?.lines ?? null;
      recommendation = found.recommendation ?? null;
      break;
    }
    const facts: TicketFacts = {
      analyzerName: issue.analyzer_name,
      message: issue.message,
      severity: issue.severity,
      category: issue.category,
      file: issue.file,
      line: issue.line,
      snippet,
      recommendation,
      fileUrl: issue.file === null ? null : fileLink(project.repository_url, report.git_commit, issue.file, issue.line),
      dashboardUrl: `${dashboardBase}/reports/${encodeURIComponent(report.uuid)}#issue-${issue.fingerprint}`,
    };
    return { facts, report };
  }

  return {
    /** E9.5's calls for the project (comments on its tickets, their closing), newest first; paginated like D16. */
    async deliveries(projectId: string, page: number, path: string) {
      return outboxDeliveries(db, projectId, [TICKET_COMMENT, TICKET_CLOSE] as const, page, path);
    },

    /** E9.3 GET. */
    tracker: trackerOf,

    /** E9.3 PUT: link a connection of the project's team (its provider becomes `primary_tracker`), or unlink with null. */
    async linkTracker(credential: WriteCredential, project: ResolvedProject, connectionId: string | null): Promise<Tracker> {
      const settings = await deps.projects.linkTracker(credential, project.id, async (trx, locked) => {
        if (connectionId === null) return null;
        const connection = await createTicketsRepository(trx).connectionOfTeam(locked.team_id, connectionId.toLowerCase());
        if (connection === undefined) {
          throw invalidField('connection_id', "The selected connection id is invalid: it must be a connection of the project's team.");
        }
        if (!(TICKET_PROVIDERS as readonly string[]).includes(connection.provider)) {
          throw invalidField(
            'connection_id',
            `The selected connection is a ${connection.provider} connection: a tracker is a jira, linear, github or gitlab connection.`,
          );
        }
        if (!locked.settings.ticket_target_project_key) {
          throw invalidField(
            'connection_id',
            "The project's settings.ticket_target_project_key must be set before its tracker is linked: it names where tickets go.",
          );
        }
        return connection;
      });
      return trackerOf({ id: project.id, settings: JSON.stringify(settings) });
    },

    /**
     * E9.4: a ticket for each of `fingerprints` (the path's one, or a bulk request's), in order.
     * `from` says where they came from: one no report of the project holds is a 404 from the path,
     * a 422 naming it from the body. An issue with its ticket: a 409 with it from the path; in a
     * bulk request it is answered as it is (so a request stopped by a provider failure can be sent
     * again as it was).
     */
    async create(
      credential: WriteCredential,
      project: ResolvedProject,
      fingerprints: readonly string[],
      from: 'path' | 'body',
      dashboardBase: string,
    ): Promise<BulkTicketItem[]> {
      const held = await deps.issues.heldIssues(db, project.id, fingerprints);
      const missing = fingerprints.flatMap((fingerprint, index) => (held.has(fingerprint) ? [] : [[fingerprint, index] as const]));
      if (missing.length > 0) {
        if (from === 'path') throw issueNotFound();
        throw validationFailed(
          Object.fromEntries(
            missing.map(([fingerprint, index]) => [
              `fingerprints.${index}`,
              [`The selected fingerprints.${index} is invalid: no report of the project holds the issue ${fingerprint}.`],
            ]),
          ),
        );
      }
      const tracker = await trackerOf(project);
      if (tracker.primary_tracker === null || tracker.primary_tracker === 'internal') throw conflict(NO_TICKETS_MESSAGE);
      if (tracker.connection === null) throw conflict(NO_CONNECTION_MESSAGE);
      if (tracker.connection.provider !== tracker.primary_tracker || !tracker.target.key) {
        throw conflict(
          `This project's primary_tracker is ${tracker.primary_tracker} but its tracker connection is a ${tracker.connection.provider} connection: link the tracker again.`,
        );
      }
      const existing = await repository.tickets(project.id, fingerprints);
      if (from === 'path' && existing.has(fingerprints[0]!)) {
        throw conflict(TICKET_EXISTS_MESSAGE, { ticket: existing.get(fingerprints[0]!) });
      }
      // D22: nothing is sent for a caller who lost the right meanwhile.
      await inTransaction(db, (trx) => deps.projects.lockForWrite(trx, credential, project.id, 'update'));
      const connection = await openConnection(db, deps.secrets, project.team_id, tracker.connection.id);
      if (connection === null) throw conflict(NO_CONNECTION_MESSAGE);

      const items: BulkTicketItem[] = [];
      for (const fingerprint of fingerprints) {
        const had = existing.get(fingerprint);
        if (had !== undefined) {
          items.push({ fingerprint, created: false, ticket: had });
          continue;
        }
        const issue = held.get(fingerprint)!;
        const { facts, report } = await factsOf(project, issue, dashboardBase);
        const outcome = await createTicketAt(deps.http, connection, tracker.target.key, facts);
        if (!outcome.ok) {
          const made = items.filter((item) => item.created).length;
          const message =
            from === 'body' && made > 0
              ? `${outcome.message} (${made} ${made === 1 ? 'ticket was' : 'tickets were'} created before.)`
              : outcome.message;
          throw new ApiError(502, 'Bad Gateway', message, from === 'body' ? { body: { data: items } } : {});
        }
        const ticket = await inTransaction(db, async (trx) => {
          const { actor } = await deps.projects.lockForWrite(trx, credential, project.id, 'update');
          if (actor.type !== 'user') throw new Error('a ticket is created by a user');
          const at = clock.now().toISOString();
          const stored = await createTicketsRepository(trx).insert({
            project_id: project.id,
            fingerprint,
            connection_id: connection.id,
            provider: connection.provider,
            key: outcome.ticket.key,
            url: outcome.ticket.url,
            remote: JSON.stringify(outcome.ticket.remote),
            report_id: report.id,
            branch: report.git_branch,
            created_at: at,
            created_by_id: actor.id,
            closed_at: null,
          });
          // Another request created its ticket meanwhile: that one is the issue's.
          if (!stored) return null;
          await deps.issues.recordTicketed(trx, project.id, [issue], actor.id, at);
          await recordAudit(trx, clock, actor, {
            action: 'ticket.created',
            target: { type: 'issue', id: fingerprint },
            teamId: project.team_id,
            details: { project_id: project.id, provider: connection.provider, key: outcome.ticket.key, url: outcome.ticket.url },
          });
          await markConnectionUsed(trx, connection.id, at);
          return (await createTicketsRepository(trx).tickets(project.id, [fingerprint])).get(fingerprint)!;
        });
        if (ticket === null) {
          const theirs = (await repository.tickets(project.id, [fingerprint])).get(fingerprint)!;
          if (from === 'path') throw conflict(TICKET_EXISTS_MESSAGE, { ticket: theirs });
          items.push({ fingerprint, created: false, ticket: theirs });
          continue;
        }
        items.push({ fingerprint, created: true, ticket: ticket satisfies IssueTicket });
      }
      return items;
    },
  };
}

export type TicketsService = ReturnType<typeof createTicketsService>;
