import type { JSX } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type IssueState, loadTeam, type Member, saveStates } from '../../api/issues.js';
import { asProblem, type Problem } from '../../api/problems.js';
import { useAppState } from '../../app-context.js';
import { Field } from '../../components/field.js';
import { ProblemMessage } from '../../components/problem-message.js';
import {
  BULK_MAX,
  COMMENT_MAX,
  canTriage,
  commentLength,
  EXPIRY_MAX_DAYS,
  expiryBounds,
  ISSUE_STATUSES,
  initialForm,
  isDismissal,
  personName,
  STATUS_HINTS,
  STATUS_LABELS,
  type StateLike,
  selectionOfPage,
  submitLabel,
  type TriageForm,
  triageBody,
  triageErrors,
} from '../../lib/issue-triage.js';
import { useApi } from '../../lib/use-api.js';
import { BulkTicketButton, IssueTicketControl, type Tickets, TicketLink, useTickets } from './tickets.js';

/**
 * E8.9's triage, shared by every issue list (the report's lists, its fixed issues, the project's
 * issues): a check box per issue and one for the page, the action panel for one issue or the
 * selection (PUT one, POST .../bulk several), and the states the service answered laid over the
 * list's own, so that a 3,000-issue report is never loaded again for one change. A read-only member
 * (or a token without write) sees the states and no control.
 */

export interface TriageTeam {
  /** Owner, admin or member of the project's team (E8.2's "change"). */
  canTriage: boolean;
  members: Member[];
}

/** The project's team: may the person change states, and whom may they assign. Null until known (no control shown meanwhile). */
export function useTriageTeam(teamId: number | undefined): TriageTeam | null {
  const team = useApi(async () => (teamId === undefined ? undefined : loadTeam(teamId)), [teamId]);
  return useMemo(
    () => (team.data === undefined ? null : { canTriage: canTriage(team.data.role), members: team.data.members }),
    [team.data],
  );
}

type PanelTarget = { kind: 'selection' } | { kind: 'one'; fingerprint: string };

export interface Triage {
  projectId: string;
  team: TriageTeam | null;
  enabled: boolean;
  selected: ReadonlySet<string>;
  toggle(fingerprint: string, on: boolean): void;
  selectPage(fingerprints: readonly string[], on: boolean): void;
  clear(): void;
  /** The states saved here, by fingerprint: they win over the list's own. */
  overlay: ReadonlyMap<string, IssueState>;
  /** The state to show: the one saved here, else the list's. */
  stateOf(fingerprint: string, fromList: StateLike | null | undefined): StateLike | null;
  panel: PanelTarget | null;
  open(target: PanelTarget, opener: HTMLElement | null): void;
  close(): void;
  saved(states: IssueState[]): void;
  /** Said once after a save, in a live region. */
  announcement: string;
  /** The states of the issues the panel changes (for its initial values). */
  statesFor(fingerprints: readonly string[]): (StateLike | null)[];
  register(fingerprint: string, state: StateLike | null | undefined): void;
  /** E9.6: the tickets of the list's issues, and whether the person may create them (a tracker linked). */
  tickets: Tickets;
}

/**
 * The selection, the panel and the saved states of one list. `resetKey` names what the list
 * shows (the report and its tab): when it changes, the selection and the panel go.
 */
export function useTriage(projectId: string | undefined, teamId: number | undefined, resetKey: string, onSaved?: () => void): Triage {
  const team = useTriageTeam(teamId);
  const tickets = useTickets(projectId, team?.canTriage === true);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [panel, setPanel] = useState<PanelTarget | null>(null);
  const [overlay, setOverlay] = useState<ReadonlyMap<string, IssueState>>(new Map());
  const [announcement, setAnnouncement] = useState('');
  const opener = useRef<HTMLElement | null>(null);
  const known = useRef(new Map<string, StateLike | null>());

  useEffect(() => {
    setSelected(new Set());
    setPanel(null);
  }, [resetKey]);

  const close = useCallback(() => {
    setPanel(null);
    // Back where the person was: the button that opened the panel, else the list's selection bar.
    const back = opener.current;
    requestAnimationFrame(() => {
      if (back?.isConnected) back.focus();
      else document.querySelector<HTMLElement>('.triage-bar button, .triage-bar input')?.focus();
    });
  }, []);

  return {
    projectId: projectId ?? '',
    team,
    enabled: projectId !== undefined && team?.canTriage === true,
    selected,
    toggle: (fingerprint, on) =>
      setSelected((previous) => {
        const next = new Set(previous);
        if (on) next.add(fingerprint);
        else next.delete(fingerprint);
        return next;
      }),
    selectPage: (fingerprints, on) =>
      setSelected((previous) => {
        const next = new Set(previous);
        for (const fingerprint of fingerprints) {
          if (on) next.add(fingerprint);
          else next.delete(fingerprint);
        }
        return next;
      }),
    clear: () => setSelected(new Set()),
    overlay,
    stateOf: (fingerprint, fromList) => overlay.get(fingerprint) ?? fromList ?? null,
    panel,
    open: (target, element) => {
      opener.current = element;
      setAnnouncement('');
      setPanel(target);
    },
    close,
    saved: (states) => {
      setOverlay((previous) => {
        const next = new Map(previous);
        for (const state of states) next.set(state.fingerprint, state);
        return next;
      });
      const first = states[0];
      const count = states.length;
      setAnnouncement(
        first === undefined
          ? ''
          : `Saved: ${count === 1 ? 'the issue is' : `${count} issues are`} now ${STATUS_LABELS[first.status].toLowerCase()}${
              first.assignee ? `, assigned to ${personName(first.assignee)}` : ''
            }.`,
      );
      if (count > 1) setSelected(new Set());
      close();
      onSaved?.();
    },
    announcement,
    statesFor: (fingerprints) => fingerprints.map((fingerprint) => overlay.get(fingerprint) ?? known.current.get(fingerprint) ?? null),
    register: (fingerprint, state) => {
      known.current.set(fingerprint, state ?? null);
    },
    tickets,
  };
}

/**
 * Above a list: the page's check box, how many are chosen, and the button that opens the panel
 * for them (the panel opens here). Nothing but the announcement for a person who may not change states.
 */
export function TriageBar({ triage, onPage, noun = 'issue' }: { triage: Triage; onPage: readonly string[]; noun?: string }) {
  const pageBox = useRef<HTMLInputElement>(null);
  const whole = selectionOfPage(triage.selected, onPage);
  useEffect(() => {
    if (pageBox.current) pageBox.current.indeterminate = whole === 'some';
  }, [whole]);
  const count = triage.selected.size;
  return (
    <>
      <p class="visually-hidden" aria-live="polite">
        {triage.announcement}
      </p>
      {triage.announcement !== '' && (
        <p class="triage-saved" aria-hidden="true">
          {triage.announcement}
        </p>
      )}
      <p class="visually-hidden" aria-live="polite">
        {triage.tickets.announcement}
      </p>
      {triage.tickets.announcement !== '' && (
        <p class="triage-saved ticket-saved" aria-hidden="true">
          {triage.tickets.announcement}
        </p>
      )}
      {triage.enabled && onPage.length > 0 && (
        <div class="triage-bar">
          <label class="check">
            <input
              ref={pageBox}
              type="checkbox"
              class="triage-page-box"
              checked={whole === 'all'}
              onChange={(event) => triage.selectPage(onPage, event.currentTarget.checked)}
              onKeyDown={(event) => moveBetweenBoxes(event)}
            />
            Select all on this page
          </label>
          <span class="muted">{count === 0 ? `No ${noun} selected` : `${count} selected`}</span>
          <button
            type="button"
            disabled={count === 0}
            aria-expanded={triage.panel?.kind === 'selection'}
            onClick={(event) => triage.open({ kind: 'selection' }, event.currentTarget)}
          >
            {count === 0 ? 'Set status of selected' : `Set status of ${count} selected`}
          </button>
          <BulkTicketButton tickets={triage.tickets} projectId={triage.projectId} selected={triage.selected} onDone={triage.clear} />
          {count > 0 && (
            <button type="button" class="secondary" onClick={() => triage.clear()}>
              Clear selection
            </button>
          )}
        </div>
      )}
      {triage.enabled && triage.panel?.kind === 'selection' && <TriagePanel triage={triage} fingerprints={[...triage.selected]} />}
    </>
  );
}

/**
 * Arrow keys between the list's check boxes (down: the next issue, up: the previous), so a
 * keyboard moves through the issues without tabbing across each one's links and snippet.
 */
function moveBetweenBoxes(event: JSX.TargetedKeyboardEvent<HTMLInputElement>) {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  const list = event.currentTarget.closest('.triage-scope');
  if (!list) return;
  const boxes = [...list.querySelectorAll<HTMLInputElement>('input.triage-page-box, input.triage-box')];
  const index = boxes.indexOf(event.currentTarget);
  const target = boxes[index + (event.key === 'ArrowDown' ? 1 : -1)];
  if (target) {
    event.preventDefault();
    target.focus();
    target.scrollIntoView({ block: 'nearest' });
  }
}

/** An issue's check box (its name says which issue), before its message. */
export function SelectBox({ triage, fingerprint, label }: { triage: Triage; fingerprint: string; label: string }) {
  if (!triage.enabled) return null;
  return (
    <input
      type="checkbox"
      class="triage-box"
      aria-label={`Select: ${label}`}
      checked={triage.selected.has(fingerprint)}
      onChange={(event) => triage.toggle(fingerprint, event.currentTarget.checked)}
      onKeyDown={(event) => moveBetweenBoxes(event)}
    />
  );
}

/** An issue's own "Set status" button, and its panel once opened (in the issue, below the button); before it, its ticket or "Create ticket" (E9.6). */
export function IssueTriage({
  triage,
  fingerprint,
  label,
  state,
}: {
  triage: Triage;
  fingerprint: string;
  label: string;
  state: StateLike | null;
}) {
  triage.register(fingerprint, state);
  // E9.6: the ticket's link shows to everyone who sees the issue; its button only to those who may triage.
  const ticket = triage.tickets.ticketOf(fingerprint, state?.ticket);
  if (!triage.enabled) return ticket === null ? null : <TicketLink ticket={ticket} />;
  const open = triage.panel?.kind === 'one' && triage.panel.fingerprint === fingerprint;
  return (
    <>
      <IssueTicketControl tickets={triage.tickets} projectId={triage.projectId} fingerprint={fingerprint} label={label} ticket={ticket} />
      <button
        type="button"
        class="secondary triage-open"
        aria-label={`Set status of: ${label}`}
        aria-expanded={open}
        onClick={(event) => (open ? triage.close() : triage.open({ kind: 'one', fingerprint }, event.currentTarget))}
      >
        Set status
      </button>
      {open && <TriagePanel triage={triage} fingerprints={[fingerprint]} />}
    </>
  );
}

/**
 * The action panel: status, comment (required for a dismissal), assignee from the project's team,
 * expiry (for an acceptance, at most 365 days ahead). Checked here as the service checks it, then
 * sent; the service's errors show at their fields, in words. Escape closes it.
 */
function TriagePanel({ triage, fingerprints }: { triage: Triage; fingerprints: string[] }) {
  const { profile } = useAppState();
  const states = triage.statesFor(fingerprints);
  const [form, setForm] = useState<TriageForm>(() => initialForm(states));
  const [problem, setProblem] = useState<Problem | null>(null);
  const [saving, setSaving] = useState(false);
  const first = useRef<HTMLSelectElement>(null);
  const count = fingerprints.length;
  const titleId = 'triage-panel-title';

  useEffect(() => {
    first.current?.focus();
  }, []);

  const change = (changes: Partial<TriageForm>) => setForm((previous) => ({ ...previous, ...changes }));
  const bounds = expiryBounds(new Date());
  const dismissal = isDismissal(form.status);
  const members = triage.team?.members ?? [];

  const submit = async (event: Event) => {
    event.preventDefault();
    const errors = triageErrors(form, new Date());
    if (count > BULK_MAX) errors.fingerprints = [`At most ${BULK_MAX} issues at once: clear the selection and choose fewer.`];
    if (Object.keys(errors).length > 0) {
      setProblem({ status: 422, message: 'Please correct the fields marked below.', fieldErrors: errors, retryAfter: null });
      focusFirstInvalid();
      return;
    }
    setSaving(true);
    setProblem(null);
    try {
      triage.saved(await saveStates(triage.projectId, fingerprints, triageBody(form)));
    } catch (error) {
      setProblem(asProblem(error));
      focusFirstInvalid();
    } finally {
      setSaving(false);
    }
  };

  return (
    <section
      class="triage-panel"
      aria-labelledby={titleId}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          triage.close();
        }
      }}
    >
      <h3 id={titleId} class="triage-panel-title">
        {count === 1 ? 'Set the status of this issue' : `Set the status of ${count} issues`}
      </h3>
      <form noValidate onSubmit={submit} class="stack">
        <ProblemMessage problem={problem} />
        <Field name="status" label="Status" problem={problem} hint={STATUS_HINTS[form.status]}>
          {(attributes) => (
            <select
              {...attributes}
              ref={first}
              value={form.status}
              onChange={(event) => change({ status: event.currentTarget.value as TriageForm['status'] })}
            >
              {ISSUE_STATUSES.map((status) => (
                <option key={status} value={status}>
                  {STATUS_LABELS[status]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          name="comment"
          label={dismissal ? 'Reason (required)' : 'Comment (optional)'}
          problem={problem}
          hint={`${commentLength(form.comment)} of ${COMMENT_MAX.toLocaleString('en')} characters${
            dismissal ? '. A dismissal says why: it shows beside the issue.' : ''
          }`}
        >
          {(attributes) => (
            <textarea
              {...attributes}
              rows={3}
              aria-required={dismissal}
              value={form.comment}
              onInput={(event) => change({ comment: event.currentTarget.value })}
            />
          )}
        </Field>
        <Field name="assignee_id" label="Assignee" problem={problem} hint={count > 1 ? `For all ${count} issues.` : undefined}>
          {(attributes) => (
            <select {...attributes} value={form.assignee} onChange={(event) => change({ assignee: event.currentTarget.value })}>
              <option value="">Nobody</option>
              {members.map((member) => (
                <option key={member.id} value={String(member.id)}>
                  {member.id === profile.id ? `${personName(member, member.email)} (me)` : personName(member, member.email)}
                </option>
              ))}
            </select>
          )}
        </Field>
        {form.status === 'accepted' && (
          <Field
            name="expires_at"
            label="Accepted until (optional)"
            problem={problem}
            hint={`The issue is open again from that day on; at most ${EXPIRY_MAX_DAYS} days ahead.`}
          >
            {(attributes) => (
              <input
                {...attributes}
                type="date"
                min={bounds.min}
                max={bounds.max}
                value={form.expiresOn}
                onInput={(event) => change({ expiresOn: event.currentTarget.value })}
              />
            )}
          </Field>
        )}
        {fingerprintErrors(problem).length > 0 && (
          <ul class="field-errors">
            {fingerprintErrors(problem).map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        )}
        <div class="form-actions">
          <button type="submit" disabled={saving}>
            {saving ? 'Saving…' : submitLabel(count)}
          </button>
          <button type="button" class="secondary" onClick={() => triage.close()}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

/** A selection's errors about its fingerprints (the bulk endpoint names an unknown one), said below the fields. */
function fingerprintErrors(problem: Problem | null): string[] {
  return Object.entries(problem?.fieldErrors ?? {})
    .filter(([field]) => field === 'fingerprints' || field.startsWith('fingerprints.'))
    .flatMap(([, messages]) => messages);
}

function focusFirstInvalid() {
  requestAnimationFrame(() => document.querySelector<HTMLElement>('.triage-panel [aria-invalid="true"]')?.focus());
}
