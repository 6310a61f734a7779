/**
 * What went wrong with an API call, in words for the page: the service's error envelope
 * `{error, message, errors?, retry_after?}` read once here, so that every page shows errors alike.
 */
export interface Problem {
  /** The HTTP status, or 0 when the server could not be reached. */
  status: number;
  /** One sentence for the top of a form or a page. */
  message: string;
  /** Messages per field (`name`, `settings.fail_on`), shown at the field. */
  fieldErrors: Record<string, string[]>;
  /** Seconds to wait before trying again (429). */
  retryAfter: number | null;
}

export class ApiProblem extends Error implements Problem {
  readonly status: number;
  readonly fieldErrors: Record<string, string[]>;
  readonly retryAfter: number | null;

  constructor(problem: Problem) {
    super(problem.message);
    this.name = 'ApiProblem';
    this.status = problem.status;
    this.fieldErrors = problem.fieldErrors;
    this.retryAfter = problem.retryAfter;
  }
}

/** D3's fixed message of a 429 from the rate limit (D8). */
const RATE_LIMITED = 'Rate limit exceeded. Please wait before making more requests.';

interface Envelope {
  message?: unknown;
  errors?: unknown;
  retry_after?: unknown;
}

/** The problem an answer describes: its body (the envelope, when it is one) and its Retry-After header. */
export function problemOf(status: number, body: unknown, retryAfterHeader: string | null): ApiProblem {
  const envelope: Envelope = body !== null && typeof body === 'object' ? body : {};
  const retryAfter = secondsOf(envelope.retry_after) ?? secondsOf(retryAfterHeader === null ? undefined : Number(retryAfterHeader));
  const fieldErrors = fieldErrorsOf(envelope.errors);
  let message = typeof envelope.message === 'string' && envelope.message !== '' ? envelope.message : fallbackMessage(status);
  // D8's rate limit says only "wait"; the page says how long. E7's lockout of an email says it all itself.
  if (status === 429 && (message === RATE_LIMITED || message === fallbackMessage(status))) {
    message = `Too many requests — try again in ${plural(retryAfter ?? 60, 'second')}.`;
  }
  return new ApiProblem({ status, message, fieldErrors, retryAfter });
}

/** A request that got no answer at all (the network, or the service, is down). */
export function unreachable(): ApiProblem {
  return new ApiProblem({
    status: 0,
    message: 'Could not reach Scoreboard. Check your connection and try again.',
    fieldErrors: {},
    retryAfter: null,
  });
}

/** Anything thrown by an API call, as a problem (an unexpected error becomes a generic one). */
export function asProblem(error: unknown): Problem {
  if (error instanceof ApiProblem) return error;
  return { status: 0, message: 'Something went wrong in the page. Reload it and try again.', fieldErrors: {}, retryAfter: null };
}

function fallbackMessage(status: number): string {
  if (status === 401) return 'Please sign in.';
  if (status === 403) return 'You are not allowed to do that.';
  if (status === 404) return 'This was not found. It may have been deleted.';
  if (status >= 500) return 'Scoreboard had a problem answering. Please try again later.';
  return `The request failed (HTTP ${status}).`;
}

function fieldErrorsOf(errors: unknown): Record<string, string[]> {
  if (errors === null || typeof errors !== 'object') return {};
  const fields: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(errors)) {
    if (Array.isArray(messages)) fields[field] = messages.filter((message): message is string => typeof message === 'string');
  }
  return fields;
}

function secondsOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : null;
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
