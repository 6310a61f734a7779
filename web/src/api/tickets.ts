import { asProblem, type Problem } from './problems.js';
import { api, call } from './client.js';
import type { components } from './schema.js';

/**
 * E9.4's endpoints as the issue lists call them. Beyond `call`, each reads what an error answer
 * still carries: a 409's existing ticket (the issue had one already: it is shown as any other), and
 * a bulk 502's tickets created before the provider failed (they exist there, and are shown).
 */
export type IssueTicket = components['schemas']['IssueTicket'];
export interface CreatedTicket {
  fingerprint: string;
  ticket: IssueTicket;
}

export interface TicketsAnswer {
  tickets: CreatedTicket[];
  /** The service's sentence for a selection (`2 tickets created; 1 issue had its ticket already.`). */
  message: string | null;
  problem: Problem | null;
}

/** The `ticket` (409) or `data` (bulk 502) of an error answer, when it has them. */
function carried(error: unknown): { ticket?: IssueTicket; data?: CreatedTicket[] } {
  if (error === null || typeof error !== 'object') return {};
  const body = error as { ticket?: unknown; data?: unknown };
  return {
    ...(body.ticket !== null && typeof body.ticket === 'object' && { ticket: body.ticket as IssueTicket }),
    ...(Array.isArray(body.data) && { data: body.data as CreatedTicket[] }),
  };
}

export async function createTicket(project: string, fingerprint: string): Promise<TicketsAnswer> {
  const pending = api.POST('/api/v1/projects/{project}/issues/{fingerprint}/ticket', { params: { path: { project, fingerprint } } });
  try {
    const answer = await call(pending);
    return { tickets: [{ fingerprint, ticket: answer.data }], message: null, problem: null };
  } catch (error) {
    const existing = carried((await pending.catch(() => null))?.error).ticket;
    if (existing !== undefined) return { tickets: [{ fingerprint, ticket: existing }], message: null, problem: null };
    return { tickets: [], message: null, problem: asProblem(error) };
  }
}

export async function createTickets(project: string, fingerprints: readonly string[]): Promise<TicketsAnswer> {
  const pending = api.POST('/api/v1/projects/{project}/issues/bulk-tickets', {
    params: { path: { project } },
    body: { fingerprints: [...fingerprints] },
  });
  try {
    const answer = await call(pending);
    return { tickets: answer.data, message: answer.message, problem: null };
  } catch (error) {
    const kept = carried((await pending.catch(() => null))?.error).data ?? [];
    return { tickets: kept, message: null, problem: asProblem(error) };
  }
}
