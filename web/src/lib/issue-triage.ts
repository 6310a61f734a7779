/**
 * E8.9's triage as the dashboard does it: the statuses in words, what an issue's state says in one
 * line, which list (not dismissed, dismissed) an issue belongs to, and the action panel's form
 * checked as the service checks it (E8.2) before it is sent, then turned into the request's body.
 * Free of Preact so it is unit-tested; the words come from the service's own vocabulary.
 */
import {
  BULK_MAX,
  COMMENT_MAX,
  dismissalInForce,
  EXPIRY_MAX_DAYS,
  ISSUE_STATUSES,
  type IssueStatus,
  isDismissal,
} from '../../../src/issues/issue-vocabulary.js';
import { SUPPRESSION_TYPES, type SuppressionType } from '../../../src/reports/vocabulary.js';
import type { components } from '../api/schema.js';

export { BULK_MAX, COMMENT_MAX, EXPIRY_MAX_DAYS, ISSUE_STATUSES, type IssueStatus, isDismissal };

export const STATUS_LABELS: Record<IssueStatus, string> = {
  open: 'Open',
  confirmed: 'Confirmed',
  accepted: 'Accepted',
  false_positive: 'False positive',
  wont_fix: 'Won’t fix',
};

/** What each status means, said beside the choice. */
export const STATUS_HINTS: Record<IssueStatus, string> = {
  open: 'nobody has decided yet',
  confirmed: 'a real problem, to be fixed',
  accepted: 'a known risk, accepted (until a date, if you like)',
  false_positive: 'the analyzer is wrong here',
  wont_fix: 'real, but it will not be fixed',
};

/** A person as the API names one: `{id, name}` (the name may be unknown). */
export interface PersonRef {
  id: number;
  name: string | null;
}

/** The part of E8.1's state the lists read. */
export interface StateLike {
  status: IssueStatus;
  comment: string | null;
  assignee: PersonRef | null;
  expires_at: string | null;
  updated_by: PersonRef | null;
  updated_at: string | null;
  /** E9.4's ticket, where the list has it (every list's state carries it; tests' stand-ins may leave it out). */
  ticket?: components['schemas']['IssueTicket'] | null;
}

/** A person's name, or words for one without a name (or a deleted user). */
export function personName(person: PersonRef | null, fallback = 'someone'): string {
  if (person === null) return fallback;
  return person.name !== null && person.name.trim() !== '' ? person.name : `user ${person.id}`;
}

/** E8.3's two lists: an issue is `dismissed` while a dismissal is in force, otherwise `open`. */
export const STATE_VIEWS = ['open', 'dismissed'] as const;
export type StateView = (typeof STATE_VIEWS)[number];

export const STATE_VIEW_LABELS: Record<StateView, string> = { open: 'Not dismissed', dismissed: 'Dismissed' };

export function stateView(state: StateLike | null | undefined, now: string): StateView {
  return state && dismissalInForce(state, now) ? 'dismissed' : 'open';
}

/** The status to show: what the service answered (it already reads an expired acceptance as `open`). */
export function statusOf(state: StateLike | null | undefined): IssueStatus {
  return state?.status ?? 'open';
}

/** The assignee filter of the project's issue list: `me`, `none`, or a member's id. */
export function assigneeParam(value: string | undefined): string | null {
  if (value === 'me' || value === 'none') return value;
  return value !== undefined && /^[1-9][0-9]{0,15}$/.test(value) ? value : null;
}

// --- The action panel's form ---

export interface TriageForm {
  status: IssueStatus;
  comment: string;
  /** A member's id, or `''` for nobody. */
  assignee: string;
  /** `YYYY-MM-DD` (a date input's value), or `''`. */
  expiresOn: string;
}

/**
 * The form for `states`. One issue: its current decision. Several: a new decision, `confirmed`,
 * with their assignee when they share one. A change is the whole decision (E8.2: what is left out
 * is cleared), so the panel shows every field it will send.
 */
export function initialForm(states: readonly (StateLike | null | undefined)[]): TriageForm {
  const only = states.length === 1 ? states[0] : undefined;
  if (only) {
    return {
      status: only.status,
      comment: only.comment ?? '',
      assignee: only.assignee === null ? '' : String(only.assignee.id),
      expiresOn: only.status === 'accepted' && only.expires_at !== null ? dateInputValue(new Date(only.expires_at)) : '',
    };
  }
  const assignees = new Set(states.map((state) => (state?.assignee ? String(state.assignee.id) : '')));
  return { status: 'confirmed', comment: '', assignee: assignees.size === 1 ? ([...assignees][0] as string) : '', expiresOn: '' };
}

/** A comment's length as the service counts it (D12: code points, not UTF-16 units). */
export function commentLength(comment: string): number {
  return [...comment].length;
}

/** A date as a date input writes it, in the person's own calendar day. */
export function dateInputValue(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The days an acceptance may run until: from tomorrow to EXPIRY_MAX_DAYS days ahead (the input's min and max). */
export function expiryBounds(now: Date): { min: string; max: string } {
  const day = (offset: number) => new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset);
  return { min: dateInputValue(day(1)), max: dateInputValue(day(EXPIRY_MAX_DAYS)) };
}

/** The moment a chosen day starts, where the person is: an acceptance until 3 March is open again on 3 March. */
export function expiryInstant(day: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (match === null) return null;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/**
 * The form's mistakes, per API field name, as the service would answer them (E8.2): a dismissal
 * needs a comment of 1..2,000 characters; an expiry goes only with `accepted`, in the future, at
 * most 365 days ahead. The service checks again; this only saves a round trip.
 */
export function triageErrors(form: TriageForm, now: Date): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const length = commentLength(form.comment.trim());
  if (isDismissal(form.status) && length === 0) {
    errors.comment = [`Say why: a comment is required to mark an issue ${STATUS_LABELS[form.status].toLowerCase()}.`];
  } else if (commentLength(form.comment) > COMMENT_MAX) {
    errors.comment = [`At most ${COMMENT_MAX.toLocaleString('en')} characters (this one has ${commentLength(form.comment)}).`];
  }
  if (form.expiresOn !== '') {
    const bounds = expiryBounds(now);
    if (form.status !== 'accepted') errors.expires_at = ['Only an accepted issue can expire.'];
    else if (expiryInstant(form.expiresOn) === null) errors.expires_at = ['Choose a date.'];
    else if (form.expiresOn < bounds.min) errors.expires_at = ['Choose a day after today.'];
    else if (form.expiresOn > bounds.max) errors.expires_at = [`Choose a day at most ${EXPIRY_MAX_DAYS} days ahead.`];
  }
  return errors;
}

export interface TriageBody {
  status: IssueStatus;
  comment?: string | null;
  assignee_id?: number | null;
  expires_at?: string | null;
}

/** The PUT's (or, with `fingerprints`, the bulk POST's) body for a checked form: the whole decision. */
export function triageBody(form: TriageForm): TriageBody {
  const comment = form.comment.trim();
  return {
    status: form.status,
    comment: comment === '' ? null : comment,
    assignee_id: form.assignee === '' ? null : Number(form.assignee),
    expires_at: form.status === 'accepted' && form.expiresOn !== '' ? expiryInstant(form.expiresOn) : null,
  };
}

/** What the panel's submit button says. */
export function submitLabel(count: number): string {
  return count === 1 ? 'Save the status' : `Set the status of ${count} issues`;
}

/** Whether a role of the project's team may change states (E8.2: owner, admin or member; D15's update). */
export function canTriage(role: string | null | undefined): boolean {
  return role === 'owner' || role === 'admin' || role === 'member';
}

/** The whole check box of a page: all of its issues chosen, some, or none. */
export function selectionOfPage(selected: ReadonlySet<string>, onPage: readonly string[]): 'all' | 'some' | 'none' {
  const chosen = onPage.filter((fingerprint) => selected.has(fingerprint)).length;
  if (chosen === 0) return 'none';
  return chosen === onPage.length ? 'all' : 'some';
}

/** E8.6: how the client package suppressed an issue (CLIENT-WIRE's `suppression.type`), the service's own list. */
export { SUPPRESSION_TYPES, type SuppressionType } from '../../../src/reports/vocabulary.js';

export const SUPPRESSION_LABELS: Record<SuppressionType, string> = {
  inline: 'Inline comment',
  config: 'Configuration',
  baseline: 'Baseline',
};

/** A suppression in words: `Suppressed by configuration: path: app/Legacy.php`. */
export function suppressionSentence(suppression: { type: string | null; description?: string | null }): string {
  const known = SUPPRESSION_TYPES.find((type) => type === suppression.type);
  const how = known === undefined ? suppression.type : SUPPRESSION_LABELS[known].toLowerCase();
  const description = suppression.description?.trim() ?? '';
  const said = how === null || how.trim() === '' ? 'Suppressed' : `Suppressed by ${how}`;
  return description === '' ? said : `${said}: ${description}`;
}

/**
 * The page's URL with some filters changed (null removes one) and back to page 1 unless a page is
 * given. Like withQuery, except that an empty `branch` stays: it means the reports without a branch.
 */
export function issuesUrl(
  path: string,
  query: Readonly<Record<string, string>>,
  changes: Readonly<Record<string, string | number | null>>,
): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...query, page: null, ...changes })) {
    if (value === null || (value === '' && name !== 'branch') || (name === 'page' && String(value) === '1')) continue;
    params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}
