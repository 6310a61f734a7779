import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import type { Problem } from '../../api/problems.js';
import { type CreatedTicket, createTicket, createTickets, type IssueTicket } from '../../api/tickets.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { formatDate } from '../../lib/format.js';
import { bulkTicketsLabel, isTicketProvider, PROVIDER_LABELS } from '../../lib/connections.js';
import { useApi } from '../../lib/use-api.js';

/**
 * E9.6 in the issue lists, beside E8.9's triage (which carries it: every list that triages has
 * tickets): "Create ticket" for one issue or the selection, shown only when the project has a
 * tracker linked and the person may change its issues; the tickets made here laid over the list's
 * own (no list is loaded again); an issue with a ticket shows its link instead of the button.
 */
export interface Tickets {
  /** A tracker is linked and the person may create tickets. */
  available: boolean;
  /** The linked tracker's provider in words ("Jira"), for the buttons' hints. */
  trackerLabel: string | null;
  /** The ticket to show: the one made here, else the list's. */
  ticketOf(fingerprint: string, fromList: IssueTicket | null | undefined): IssueTicket | null;
  created(tickets: readonly CreatedTicket[]): void;
  /** Said once after a creation, in the list's live region. */
  announcement: string;
  announce(text: string): void;
}

export function useTickets(projectId: string | undefined, canCreate: boolean): Tickets {
  const tracker = useApi(
    async () =>
      projectId === undefined || !canCreate
        ? null
        : (await call(api.GET('/api/v1/projects/{project}/tracker', { params: { path: { project: projectId } } }))).data,
    [projectId, canCreate],
  );
  const [made, setMade] = useState<ReadonlyMap<string, IssueTicket>>(new Map());
  const [announcement, setAnnouncement] = useState('');
  const provider = tracker.data?.connection?.provider;
  const linked = isTicketProvider(provider);
  return {
    available: canCreate && linked,
    trackerLabel: linked ? PROVIDER_LABELS[provider] : null,
    ticketOf: (fingerprint, fromList) => made.get(fingerprint) ?? fromList ?? null,
    created: (tickets) =>
      setMade((previous) => {
        const next = new Map(previous);
        for (const { fingerprint, ticket } of tickets) next.set(fingerprint, ticket);
        return next;
      }),
    announcement,
    announce: setAnnouncement,
  };
}

/** A ticket's link: its key, opening its page at the provider in a new tab; "closed" once a later report fixed the issue. */
export function TicketLink({ ticket }: { ticket: IssueTicket }) {
  return (
    <span class="ticket">
      <span class="muted">Ticket </span>
      <a class="ticket-link" href={ticket.url} target="_blank" rel="noopener">
        {ticket.key}
        <span class="visually-hidden"> (opens in a new tab)</span>
      </a>
      {ticket.closed_at !== null && (
        <span class="muted">
          {' '}
          · closed <time dateTime={ticket.closed_at}>{formatDate(ticket.closed_at)}</time>
        </span>
      )}
    </span>
  );
}

/** One issue: its ticket's link, or (with a tracker linked) the button that creates it; a refusal (the provider's 502) said below. */
export function IssueTicketControl({
  tickets,
  projectId,
  fingerprint,
  label,
  ticket,
}: {
  tickets: Tickets;
  projectId: string;
  fingerprint: string;
  label: string;
  ticket: IssueTicket | null;
}) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  if (ticket !== null) return <TicketLink ticket={ticket} />;
  if (!tickets.available) return null;

  const create = async () => {
    setBusy(true);
    setProblem(null);
    const answer = await createTicket(projectId, fingerprint);
    setBusy(false);
    setProblem(answer.problem);
    if (answer.tickets.length > 0) {
      tickets.created(answer.tickets);
      tickets.announce(`Ticket ${answer.tickets[0]?.ticket.key} created.`);
    }
  };
  return (
    <span class="ticket-create">
      <button
        type="button"
        class="secondary ticket-open"
        aria-label={`Create ticket for: ${label}`}
        disabled={busy}
        onClick={() => void create()}
      >
        {busy ? 'Creating ticket…' : 'Create ticket'}
      </button>
      <ProblemMessage problem={problem} />
    </span>
  );
}

/**
 * The selection's "Create tickets" in the triage bar: at most 50 at once (more selected: said, and
 * nothing sent); the service's sentence after, or the provider's refusal with the tickets made before it.
 */
export function BulkTicketButton({
  tickets,
  projectId,
  selected,
  onDone,
}: {
  tickets: Tickets;
  projectId: string;
  selected: ReadonlySet<string>;
  onDone: () => void;
}) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  if (!tickets.available || selected.size === 0) return null;
  const { label, tooMany } = bulkTicketsLabel(selected.size);

  const create = async () => {
    setBusy(true);
    setProblem(null);
    const answer = await createTickets(projectId, [...selected]);
    setBusy(false);
    setProblem(answer.problem);
    tickets.created(answer.tickets);
    if (answer.problem === null) {
      tickets.announce(answer.message ?? '');
      onDone();
    } else if (answer.tickets.length > 0) {
      tickets.announce(`${answer.tickets.length} of the tickets were created before the tracker refused the next one.`);
    }
  };
  return (
    <>
      <button
        type="button"
        class="ticket-bulk"
        disabled={busy || tooMany !== null}
        aria-describedby={tooMany ? 'ticket-bulk-limit' : undefined}
        onClick={() => void create()}
      >
        {busy ? 'Creating tickets…' : label}
      </button>
      {tooMany && (
        <p class="hint ticket-bulk-limit" id="ticket-bulk-limit">
          {tooMany}
        </p>
      )}
      {problem && (
        <div class="ticket-bulk-problem">
          <ProblemMessage problem={problem} />
        </div>
      )}
    </>
  );
}
