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

/** What the event is about: its type and id, e.g. `member 7`. */
export function formatTarget(target: AuditEvent['target']): string {
  return target.id === null ? target.type : `${target.type} ${target.id}`;
}

/**
 * `details` as lines of text: `name: "Old" → "New"` for a changed field (`{old, new}`), `role: member`
 * for a field of what was made or removed; anything deeper as compact JSON.
 */
export function formatDetails(details: Record<string, unknown>): string[] {
  return Object.entries(details).map(([field, value]) => {
    if (isChange(value)) return `${field}: ${formatValue(value.old)} → ${formatValue(value.new)}`;
    return `${field}: ${formatValue(value)}`;
  });
}

function isChange(value: unknown): value is { old: unknown; new: unknown } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 2 && keys.includes('old') && keys.includes('new');
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
