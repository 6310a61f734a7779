import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../../src/audit/audit-actions.js';
import { auditUrl, formatActor, formatDetails, formatTarget, readAuditQuery } from '../../web/src/lib/audit-format.js';

describe('the audit log page’s words (E5)', () => {
  it('writes details as text: a change as old → new, other fields as their value', () => {
    expect(formatDetails({ email: 'bob@example.com', role: { old: 'member', new: 'admin' } })).toEqual([
      'email: bob@example.com',
      'role: member → admin',
    ]);
    expect(formatDetails({ name: { old: null, new: '' } })).toEqual(['name: none → (empty)']);
    expect(formatDetails({ abilities: ['read', 'write'], invitation_id: 3, active: false })).toEqual([
      'abilities: read, write',
      'invitation_id: 3',
      'active: false',
    ]);
    expect(formatDetails({ settings: { fail_on: { old: 'high', new: 'low' }, extra: 1 } })).toEqual([
      'settings: {"fail_on":{"old":"high","new":"low"},"extra":1}',
    ]);
  });

  it('leaves markup in details as text for the page to show as text', () => {
    expect(formatDetails({ name: '<img src=x onerror=alert(1)>' })).toEqual(['name: <img src=x onerror=alert(1)>']);
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
