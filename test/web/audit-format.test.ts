import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../../src/audit/audit-actions.js';
import {
  type AuditEvent,
  auditUrl,
  formatActor,
  formatDetails,
  formatTarget,
  projectIdsOf,
  projectNamesInEvents,
  readAuditQuery,
  relativeTime,
  unnamedProject,
} from '../../web/src/lib/audit-format.js';

const SHOP = '0190f1c2-aaaa-7bbb-8ccc-000000000001';
const BLOG = '0190f1c2-aaaa-7bbb-8ccc-000000000002';

/** An event as the API gives it, with what a test names. */
function event(action: string, target: AuditEvent['target'], details: Record<string, unknown> = {}): AuditEvent {
  return {
    id: 1,
    action,
    actor: { type: 'user', id: 1, email: 'ada@example.com', token_id: null },
    target,
    team_id: 1,
    ip: null,
    user_agent: null,
    details,
    created_at: '2027-03-01T12:00:00.000Z',
  };
}

describe('the audit log page’s words (E5)', () => {
  it('writes details as lines: a change as old → new, other fields as their value', () => {
    expect(formatDetails({ email: 'bob@example.com', role: { old: 'member', new: 'admin' } })).toEqual([
      { field: 'email', value: 'bob@example.com' },
      { field: 'role', value: 'member → admin' },
    ]);
    expect(formatDetails({ name: { old: null, new: '' } })).toEqual([{ field: 'name', value: 'none → (empty)' }]);
    expect(formatDetails({ abilities: ['read', 'write'], invitation_id: 3, active: false })).toEqual([
      { field: 'abilities', value: 'read, write' },
      { field: 'invitation_id', value: '3' },
      { field: 'active', value: 'false' },
    ]);
  });

  it('writes a change of the settings as a line per key that changed, not as JSON', () => {
    const settings = (changes: Record<string, unknown>) => ({
      fail_on: null,
      fail_threshold: null,
      primary_tracker: null,
      ticket_target_project_key: null,
      ticket_target_project_name: null,
      fail_on_new: null,
      ...changes,
    });
    const details = {
      name: { old: 'Shop', new: 'Shop 2' },
      settings: { old: settings({ fail_on: 'high', fail_threshold: 80 }), new: settings({ fail_on: 'critical', fail_threshold: null }) },
    };
    expect(formatDetails(details)).toEqual([
      { field: 'name', value: 'Shop → Shop 2' },
      { field: 'fail_on', value: 'high → critical' },
      { field: 'fail_threshold', value: '80 → none' },
    ]);
    // A key only one side has is a change too; anything deeper than a value stays compact JSON.
    expect(formatDetails({ settings: { old: { a: 1 }, new: { b: [{ c: 1 }] } } })).toEqual([
      { field: 'b', value: 'none → [{"c":1}]' },
      { field: 'a', value: '1 → none' },
    ]);
    expect(formatDetails({ settings: { fail_on: { old: 'high', new: 'low' }, extra: 1 } })).toEqual([
      { field: 'settings', value: '{"fail_on":{"old":"high","new":"low"},"extra":1}' },
    ]);
  });

  it('names a project by its id, for the page to name and link', () => {
    expect(formatDetails({ project_id: SHOP, url: 'https://hooks.example.com' })).toEqual([
      { field: 'project', value: { projectId: SHOP } },
      { field: 'url', value: 'https://hooks.example.com' },
    ]);
    expect(formatTarget({ type: 'project', id: SHOP })).toEqual({ projectId: SHOP });
    expect(unnamedProject(SHOP)).toBe('project 0190f1c2…');
  });

  it('collects the projects the events name, once each', () => {
    const events = [
      event('project.updated', { type: 'project', id: SHOP }, { name: { old: 'Shop', new: 'Shop 2' } }),
      event('webhook.created', { type: 'webhook', id: 'w' }, { project_id: SHOP }),
      event('report.deleted', { type: 'report', id: 'r' }, { project_id: BLOG, analyzed_at: null }),
      event('member.invited', { type: 'invitation', id: '3' }, { email: 'bob@example.com' }),
    ];
    expect(projectIdsOf(events)).toEqual([SHOP, BLOG]);
  });

  it('takes a project’s newest name from the events, for a project that is gone', () => {
    const events = [
      event('project.deleted', { type: 'project', id: BLOG }, { name: 'Blog' }),
      event('project.updated', { type: 'project', id: SHOP }, { name: { old: 'Shop', new: 'Shop 2' } }),
      event('project.created', { type: 'project', id: SHOP }, { name: 'Shop' }),
      event('project.updated', { type: 'project', id: BLOG }, { description: { old: null, new: 'x' } }),
    ];
    expect([...projectNamesInEvents(events)]).toEqual([
      [BLOG, 'Blog'],
      [SHOP, 'Shop 2'],
    ]);
  });

  it('says when in a few words: now, minutes, hours, days, then the date', () => {
    const now = new Date('2027-03-10T12:00:00Z');
    const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();
    expect(relativeTime(ago(10), now, 'en')).toBe('now');
    expect(relativeTime(ago(5 * 60), now, 'en')).toBe('5 min. ago');
    expect(relativeTime(ago(3 * 3600), now, 'en')).toBe('3 hr. ago');
    expect(relativeTime(ago(26 * 3600), now, 'en')).toBe('yesterday');
    expect(relativeTime(ago(9 * 86_400), now, 'en')).toBe('9 days ago');
    expect(relativeTime('2026-11-02T08:00:00Z', now, 'en')).toBe('Nov 2, 2026');
    expect(relativeTime(null, now, 'en')).toBe('—');
    expect(relativeTime('not a date', now, 'en')).toBe('—');
  });

  it('leaves markup in details as text for the page to show as text', () => {
    expect(formatDetails({ name: '<img src=x onerror=alert(1)>' })).toEqual([{ field: 'name', value: '<img src=x onerror=alert(1)>' }]);
  });

  it('names the actor: the dashboard (a session), a token, or the operator', () => {
    expect(formatActor({ type: 'user', id: 1, email: 'ada@example.com', token_id: null })).toBe('ada@example.com · dashboard');
    expect(formatActor({ type: 'user', id: 1, email: 'ada@example.com', token_id: 9 })).toBe('ada@example.com · token #9');
    expect(formatActor({ type: 'user', id: 4, email: null, token_id: null })).toBe('User #4 · dashboard');
    expect(formatActor({ type: 'operator', id: null, email: null, token_id: null })).toBe('Operator (command line)');
  });

  it('names the target', () => {
    expect(formatTarget({ type: 'member', id: '7' })).toBe('member 7');
    expect(formatTarget({ type: 'session', id: null })).toBe('session');
    expect(formatTarget({ type: 'webhook', id: SHOP })).toEqual({ text: 'webhook 0190f1c2…', title: SHOP });
  });

  it('reads its state from the URL and writes it back, defaults left out', () => {
    expect(readAuditQuery({})).toEqual({ scope: { kind: 'mine' }, action: null, page: 1 });
    const query = readAuditQuery({ team: '2', action: 'member.invited', page: '3' });
    expect(query).toEqual({ scope: { kind: 'team', teamId: 2 }, action: 'member.invited', page: 3 });
    expect(auditUrl('/audit', query)).toBe('/audit?team=2&action=member.invited&page=3');
    expect(readAuditQuery({ team: 'x', action: 'nope', page: '0' })).toEqual({ scope: { kind: 'mine' }, action: null, page: 1 });
    expect(auditUrl('/audit', readAuditQuery({}))).toBe('/audit');
  });

  it('offers every action the service can record', () => {
    expect(AUDIT_ACTIONS).toContain('member.role_changed');
  });
});
