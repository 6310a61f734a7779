import { describe, expect, it } from 'vitest';
import {
  assigneeParam,
  canTriage,
  commentLength,
  expiryBounds,
  expiryInstant,
  initialForm,
  issuesUrl,
  personName,
  type StateLike,
  selectionOfPage,
  stateView,
  suppressionSentence,
  type TriageForm,
  triageBody,
  triageErrors,
} from '../../web/src/lib/issue-triage.js';

/**
 * E8.9's triage as the dashboard checks and sends it: the action panel's form against E8.2's rules
 * (a dismissal needs a comment of 1..2,000 characters; an expiry only with `accepted`, from
 * tomorrow to 365 days ahead), the body it sends, which list an issue belongs to, and the URLs of
 * the project's issue list.
 */

const NOW = new Date(2026, 10, 28, 15, 30); // 28 November 2026, 15:30 where the test runs
const form = (changes: Partial<TriageForm>): TriageForm => ({ status: 'open', comment: '', assignee: '', expiresOn: '', ...changes });

const decided: StateLike = {
  status: 'accepted',
  comment: 'Only in the admin area, behind SSO.',
  assignee: { id: 7, name: 'Grace' },
  expires_at: new Date(2027, 0, 15).toISOString(),
  updated_by: { id: 3, name: 'Ada' },
  updated_at: '2026-11-27T09:00:00.000Z',
};

describe('the action panel’s form', () => {
  it('wants a reason for a dismissal, and none for open or confirmed', () => {
    for (const status of ['accepted', 'false_positive', 'wont_fix'] as const) {
      expect(triageErrors(form({ status }), NOW).comment?.[0]).toMatch(/^Say why: a comment is required/);
      expect(triageErrors(form({ status, comment: '   ' }), NOW).comment).toBeDefined();
      expect(triageErrors(form({ status, comment: 'Test fixture' }), NOW)).toEqual({});
    }
    expect(triageErrors(form({ status: 'open' }), NOW)).toEqual({});
    expect(triageErrors(form({ status: 'confirmed' }), NOW)).toEqual({});
  });

  it('counts a comment in characters as the service does (code points), at most 2,000', () => {
    expect(commentLength('é🙂')).toBe(2);
    expect(triageErrors(form({ status: 'wont_fix', comment: '🙂'.repeat(2000) }), NOW)).toEqual({});
    expect(triageErrors(form({ status: 'wont_fix', comment: '🙂'.repeat(2001) }), NOW).comment).toEqual([
      'At most 2,000 characters (this one has 2001).',
    ]);
    expect(triageErrors(form({ status: 'confirmed', comment: 'x'.repeat(2001) }), NOW).comment).toHaveLength(1);
  });

  it('takes an expiry only with accepted, from tomorrow to 365 days ahead', () => {
    const { min, max } = expiryBounds(NOW);
    expect([min, max]).toEqual(['2026-11-29', '2027-11-28']);
    const accepted = { status: 'accepted' as const, comment: 'Known' };
    expect(triageErrors(form({ ...accepted, expiresOn: min }), NOW)).toEqual({});
    expect(triageErrors(form({ ...accepted, expiresOn: max }), NOW)).toEqual({});
    expect(triageErrors(form({ ...accepted, expiresOn: '2026-11-28' }), NOW).expires_at).toEqual(['Choose a day after today.']);
    expect(triageErrors(form({ ...accepted, expiresOn: '2027-11-29' }), NOW).expires_at).toEqual(['Choose a day at most 365 days ahead.']);
    expect(triageErrors(form({ status: 'wont_fix', comment: 'No', expiresOn: min }), NOW).expires_at).toEqual([
      'Only an accepted issue can expire.',
    ]);
    // The last day offered still lies within 365 days of now: it starts at midnight where the person is.
    const last = new Date(expiryInstant(max) as string).getTime();
    expect(last - NOW.getTime()).toBeLessThan(365 * 24 * 3600 * 1000);
    expect(expiryInstant('soon')).toBeNull();
  });

  it('sends the whole decision: the status, the trimmed comment, the assignee and the expiry (only for accepted)', () => {
    expect(triageBody(form({ status: 'accepted', comment: '  Known risk ', assignee: '7', expiresOn: '2027-01-15' }))).toEqual({
      status: 'accepted',
      comment: 'Known risk',
      assignee_id: 7,
      expires_at: new Date(2027, 0, 15).toISOString(),
    });
    expect(triageBody(form({ status: 'confirmed', assignee: '', expiresOn: '2027-01-15' }))).toEqual({
      status: 'confirmed',
      comment: null,
      assignee_id: null,
      expires_at: null,
    });
  });

  it('opens on one issue’s current decision; on a selection, on their assignee when they share one', () => {
    expect(initialForm([decided])).toEqual({ status: 'accepted', comment: decided.comment, assignee: '7', expiresOn: '2027-01-15' });
    expect(initialForm([null, null])).toEqual({ status: 'confirmed', comment: '', assignee: '', expiresOn: '' });
    expect(initialForm([decided, { ...decided, status: 'confirmed' }]).assignee).toBe('7');
    expect(initialForm([decided, null]).assignee).toBe('');
  });
});

describe('states in the lists', () => {
  it('puts an issue under a dismissal in force apart; an expired acceptance is not dismissed', () => {
    const now = '2026-11-28T12:00:00.000Z';
    expect(stateView(null, now)).toBe('open');
    expect(stateView({ ...decided, status: 'confirmed' }, now)).toBe('open');
    expect(stateView(decided, now)).toBe('dismissed');
    expect(stateView({ ...decided, status: 'false_positive', expires_at: null }, now)).toBe('dismissed');
    expect(stateView({ ...decided, expires_at: '2026-11-01T00:00:00.000Z' }, now)).toBe('open');
  });

  it('names people, even those without a name', () => {
    expect(personName({ id: 3, name: 'Ada' })).toBe('Ada');
    expect(personName({ id: 3, name: null })).toBe('user 3');
    expect(personName(null)).toBe('someone');
  });

  it('lets owners, admins and members change states, not read-only members', () => {
    expect(['owner', 'admin', 'member', 'readonly', undefined].map(canTriage)).toEqual([true, true, true, false, false]);
  });

  it('checks the page’s box when every issue of the page is chosen, half when some are', () => {
    expect(selectionOfPage(new Set(), ['a', 'b'])).toBe('none');
    expect(selectionOfPage(new Set(['a', 'z']), ['a', 'b'])).toBe('some');
    expect(selectionOfPage(new Set(['a', 'b']), ['a', 'b'])).toBe('all');
  });

  it('says how the client suppressed an issue', () => {
    expect(suppressionSentence({ type: 'config', description: 'path: app/Legacy.php' })).toBe(
      'Suppressed by configuration: path: app/Legacy.php',
    );
    expect(suppressionSentence({ type: 'inline', description: '' })).toBe('Suppressed by inline comment');
    expect(suppressionSentence({ type: 'other', description: null })).toBe('Suppressed by other');
    expect(suppressionSentence({ type: null, description: 'legacy' })).toBe('Suppressed: legacy');
  });
});

describe('the project’s issue list in its URL', () => {
  it('reads the assignee filter: me, nobody or a member’s id; anything else shows everyone', () => {
    expect(['me', 'none', '42', '0', '-1', 'x', undefined].map(assigneeParam)).toEqual(['me', 'none', '42', null, null, null, null]);
  });

  it('changes a filter and goes back to page 1; keeps an empty branch (the reports without one)', () => {
    const path = '/projects/p/issues';
    expect(issuesUrl(path, { status: 'accepted', page: '3' }, { assignee: 'me' })).toBe(`${path}?status=accepted&assignee=me`);
    expect(issuesUrl(path, { status: 'accepted' }, { status: null })).toBe(path);
    expect(issuesUrl(path, { branch: '' }, { severity: 'high' })).toBe(`${path}?branch=&severity=high`);
    expect(issuesUrl(path, { status: 'open' }, { page: 2 })).toBe(`${path}?status=open&page=2`);
    expect(issuesUrl(path, {}, { page: 1 })).toBe(path);
  });
});
