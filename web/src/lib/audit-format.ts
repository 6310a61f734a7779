import { AUDIT_ACTIONS, type AuditAction } from '../../../src/audit/audit-actions.js';
import type { components } from '../api/schema.js';

/**
 * The audit log page's words for E5's events. Everything here turns the API's data into plain text,
 * which the page renders as text (never as HTML), whatever an event's details hold.
 */
export type AuditEvent = components['schemas']['AuditEvent'];

export { AUDIT_ACTIONS, type AuditAction };

/** Whose events the page shows: the person's own, or a team's (owner or admin). */
export type AuditScope = { kind: 'mine' } | { kind: 'team'; teamId: number };

export interface AuditQuery {
  scope: AuditScope;
  action: AuditAction | null;
  page: number;
}

/** The page's state from its URL query (`?team=2&action=member.invited&page=3`); anything unreadable falls back to the default. */
export function readAuditQuery(query: Record<string, string | undefined>): AuditQuery {
  const team = positiveInteger(query.team);
  const action = AUDIT_ACTIONS.find((name) => name === query.action) ?? null;
  return { scope: team === null ? { kind: 'mine' } : { kind: 'team', teamId: team }, action, page: positiveInteger(query.page) ?? 1 };
}

/** The page's URL for a state: defaults left out, so the plain `/audit` is "my actions, every action, page 1". */
export function auditUrl(path: string, query: AuditQuery): string {
  const params = new URLSearchParams();
  if (query.scope.kind === 'team') params.set('team', String(query.scope.teamId));
  if (query.action !== null) params.set('action', query.action);
  if (query.page > 1) params.set('page', String(query.page));
  const search = params.toString();
  return search === '' ? path : `${path}?${search}`;
}

/** Who acted: the operator's command, or a user through a personal access token or the dashboard (a session has no token). */
export function formatActor(actor: AuditEvent['actor']): string {
  if (actor.type === 'operator') return 'Operator (command line)';
  const who = actor.email ?? (actor.id === null ? 'A deleted user' : `User #${actor.id}`);
  return actor.token_id === null ? `${who} · dashboard` : `${who} · token #${actor.token_id}`;
}

/**
 * A part of what the page writes about an event: text, text shortened with its whole beside (a
 * title), or a project named (and linked) once its name is known.
 */
export type AuditPart = string | { text: string; title: string } | { projectId: string };

/** One line of an event's details: the field and what it was, is or became. */
export interface DetailLine {
  field: string;
  value: AuditPart;
}

/**
 * What the event is about: a project (named by the page), else its type and id, e.g. `member 7`; a
 * UUID (a webhook's, a report's) by its first eight digits, enough to tell two apart on a page.
 */
export function formatTarget(target: AuditEvent['target']): AuditPart {
  if (target.id === null) return target.type;
  if (target.type === 'project') return { projectId: target.id };
  if (UUID.test(target.id)) return { text: `${target.type} ${target.id.slice(0, 8)}…`, title: target.id };
  return `${target.type} ${target.id}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `details` as lines: `name: Old → New` for a changed field (`{old, new}`), `role: member` for a
 * field of what was made or removed, a project's id as the project. A change of an object (a
 * project's settings) is a line per key that changed, `fail_on: high → critical`, not two JSON texts.
 */
export function formatDetails(details: Record<string, unknown>): DetailLine[] {
  return Object.entries(details).flatMap(([field, value]): DetailLine[] => {
    if (field === 'project_id' && typeof value === 'string') return [{ field: 'project', value: { projectId: value } }];
    if (!isChange(value)) return [{ field, value: formatValue(value) }];
    if (isPlainObject(value.old) && isPlainObject(value.new)) return objectChanges(value.old, value.new);
    return [{ field, value: `${formatValue(value.old)} → ${formatValue(value.new)}` }];
  });
}

/** The keys whose value differs between two versions of an object, in the new version's order (then removed keys). */
function objectChanges(before: Record<string, unknown>, after: Record<string, unknown>): DetailLine[] {
  const keys = [...new Set([...Object.keys(after), ...Object.keys(before)])];
  return keys
    .filter((key) => JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null))
    .map((key) => ({ field: key, value: `${formatValue(before[key])} → ${formatValue(after[key])}` }));
}

/** Every project an event names, as its target or in its details: the ids the page looks up to name them. */
export function projectIdsOf(events: readonly AuditEvent[]): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    for (const part of [formatTarget(event.target), ...formatDetails(event.details).map((line) => line.value)]) {
      if (typeof part !== 'string' && 'projectId' in part) ids.add(part.projectId);
    }
  }
  return [...ids];
}

/**
 * Projects' names as the events themselves give them (made, renamed, deleted), the newest first
 * (the API lists events newest first): names for projects a lookup can no longer find.
 */
export function projectNamesInEvents(events: readonly AuditEvent[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const event of events) {
    if (event.target.type !== 'project' || event.target.id === null || names.has(event.target.id)) continue;
    const name = event.details.name;
    const named = isChange(name) ? name.new : name;
    if (typeof named === 'string' && named !== '') names.set(event.target.id, named);
  }
  return names;
}

/** A project the page could not name (deleted, or in a team the person is not in): the start of its id. */
export function unnamedProject(projectId: string): string {
  return `project ${projectId.slice(0, 8)}…`;
}

/**
 * When, as "5 min ago", "3 days ago" (`numeric: auto` says "yesterday"), then as a date past a
 * month: short enough not to wrap in a narrow column; the page gives the full date beside it.
 */
export function relativeTime(iso: string | null, now: Date, locale?: string): string {
  if (iso === null) return '—';
  const then = new Date(iso);
  if (Number.isNaN(then.getTime())) return '—';
  const seconds = Math.round((then.getTime() - now.getTime()) / 1000);
  const past = Math.abs(seconds);
  if (past < 45) return new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(0, 'second');
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'short' });
  if (past < 3600) return format.format(Math.round(seconds / 60), 'minute');
  if (past < 86_400) return format.format(Math.round(seconds / 3600), 'hour');
  if (past < 30 * 86_400) return format.format(Math.round(seconds / 86_400), 'day');
  return then.toLocaleDateString(locale, { dateStyle: 'medium' });
}

function isChange(value: unknown): value is { old: unknown; new: unknown } {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 2 && keys.includes('old') && keys.includes('new');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') return value === '' ? '(empty)' : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number')) {
    return value.length === 0 ? 'none' : value.join(', ');
  }
  return JSON.stringify(value);
}

function positiveInteger(text: string | undefined): number | null {
  if (text === undefined || !/^[1-9][0-9]{0,9}$/.test(text)) return null;
  return Number(text);
}
