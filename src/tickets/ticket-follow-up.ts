import type { Clock } from '../clock.js';
import { markConnectionUsed, openConnection } from '../connections/connections.repository.js';
import { callOutcomeOf, type ProviderHttp } from '../connections/provider-http.js';
import { inTransaction, type Db } from '../db/database.js';
import { countStatesChange } from '../issues/state-reads.js';
import type { TicketProvider } from '../issues/issue-state.schemas.js';
import type { StoredReport } from '../reports/report-stored.js';
import { enqueueOutbox } from '../outbox/outbox-queue.js';
import type { CallOutcome, OutboxCall, OutboxHandler } from '../outbox/outbox-worker.js';
import { type SecretBox, SecretBoxError } from '../secrets/secret-box.js';
import { CLOSED_WHEN_FIXED, closeTicket, commentOnTicket, type TicketAddress } from './ticket-providers.js';
import { fixedCommentDocument } from './ticket-text.js';
import { createTicketsRepository } from './tickets.repository.js';

/**
 * E9.5: a later report that lists an issue as fixed tells its ticket. In the upload's transaction
 * each such ticket gets an outbox message (outbox/) to comment on it and, for GitHub and GitLab
 * issues, one to close it after the comment (both share the ticket's ordering key, so the closing
 * waits for the comment); the outbox worker makes the calls on E6's schedule. A message carries
 * what its call needs but the credentials, which are opened when it is made: a connection deleted
 * meanwhile fails it, a rotated key still opens them.
 */

export const TICKET_COMMENT = 'ticket_comment';
export const TICKET_CLOSE = 'ticket_close';

interface FollowUpPayload extends TicketAddress {
  team_id: number;
  connection_id: string;
  report: string;
  commit: string | null;
  branch: string | null;
  report_url: string;
}

export function createTicketFollowUps(deps: { db: Db; clock: Clock; secrets: SecretBox; http: ProviderHttp }) {
  const { db, clock } = deps;

  /** Makes one call of a follow-up with the connection's credentials opened now. */
  async function withConnection(
    call: OutboxCall,
    work: (ticket: FollowUpPayload, connection: NonNullable<Awaited<ReturnType<typeof openConnection>>>) => Promise<CallOutcome>,
  ) {
    const ticket = call.payload as FollowUpPayload;
    let connection: Awaited<ReturnType<typeof openConnection>>;
    try {
      connection = await openConnection(db, deps.secrets, ticket.team_id, ticket.connection_id);
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      // E9.2: sealed under a key this instance does not hold; restarting with it lets the call through.
      return {
        ok: false,
        status: null,
        error: "the connection's credentials cannot be opened with the configured keys; nothing was sent",
        retry: true,
      } as const;
    }
    if (connection === null)
      return { ok: false, status: null, error: 'the connection was deleted; nothing was sent', retry: false } as const;
    const outcome = await work(ticket, connection);
    if (outcome.ok) await markConnectionUsed(db, connection.id, clock.now().toISOString());
    return outcome;
  }

  const comment: OutboxHandler = (call) =>
    withConnection(call, async (ticket, connection) =>
      callOutcomeOf(
        await commentOnTicket(
          deps.http,
          connection,
          ticket,
          fixedCommentDocument({ report: ticket.report, commit: ticket.commit, branch: ticket.branch, reportUrl: ticket.report_url }),
        ),
      ),
    );

  const close: OutboxHandler = (call) =>
    withConnection(call, async (ticket, connection) => {
      const outcome = callOutcomeOf(await closeTicket(deps.http, connection, ticket));
      const projectId = call.project_id;
      if (outcome.ok && projectId !== null) {
        // Every answer showing the state shows its ticket: the stored report answers (D28) are built again.
        await inTransaction(db, async (trx) => {
          if (await createTicketsRepository(trx).markClosed(projectId, ticket.provider, ticket.key, clock.now().toISOString()))
            await countStatesChange(trx, projectId);
        });
      }
      return outcome;
    });

  return {
    /** The outbox's handlers of the two kinds (features.ts gives them to the worker). */
    handlers: { [TICKET_COMMENT]: comment, [TICKET_CLOSE]: close } as Record<string, OutboxHandler>,

    /** In the upload's transaction: the messages for each ticket whose issue `report` lists as fixed. */
    async reportStored(trx: Db, report: StoredReport): Promise<void> {
      const fixed = await createTicketsRepository(trx).fixedIn(report.projectId, report.reportId, report.branch);
      if (fixed.length === 0) return;
      const reportUrl = `${report.dashboardBase}/reports/${encodeURIComponent(report.uuid)}`;
      await enqueueOutbox(
        trx,
        clock,
        fixed.flatMap((ticket) => {
          const provider = ticket.provider as TicketProvider;
          const payload: FollowUpPayload = {
            provider,
            key: ticket.key,
            remote: JSON.parse(ticket.remote) as Record<string, unknown>,
            team_id: ticket.team_id,
            connection_id: ticket.connection_id!,
            report: report.uuid,
            commit: report.commit,
            branch: report.branch,
            report_url: reportUrl,
          };
          const common = {
            project_id: report.projectId,
            owner: String(ticket.team_id),
            target: ticket.connection_id!,
            ordering_key: `ticket:${report.projectId}:${provider}:${ticket.key}`,
            payload,
          };
          return CLOSED_WHEN_FIXED.includes(provider)
            ? [
                { ...common, kind: TICKET_COMMENT },
                { ...common, kind: TICKET_CLOSE },
              ]
            : [{ ...common, kind: TICKET_COMMENT }];
        }),
      );
    },
  };
}

export type TicketFollowUps = ReturnType<typeof createTicketFollowUps>;
