/**
 * E11.3's rendering, without a server: what each kind says, and that text people typed (a project's
 * name, an issue's message, a team's name) cannot break out of its place: no markup in the HTML
 * part, no line break in a subject, no link that is not the dashboard's.
 */
import { describe, expect, it } from 'vitest';
import {
  assignedEmail,
  digestEmail,
  gateEmail,
  invitationEmail,
  levelWords,
  newIssuesEmail,
  type ReportFacts,
} from '../../src/notifications/email-kinds.js';
import { cut } from '../../src/notifications/email-layout.js';
import { oneLine } from '../../src/wire/plain-text.js';
import { digestWeekAt } from '../../src/notifications/weekly-digest.js';
import { outcomeOfSmtpFailure, senderDomain } from '../../src/notifications/mailer.js';

const FRAME = {
  base: 'https://scoreboard.example.com',
  unsubscribeUrl: 'https://scoreboard.example.com/notifications/unsubscribe/abc.def',
};
const HOSTILE = 'Shop <script>alert(1)</script>\r\nBcc: victim@example.com "x" \'y\' & <a href="https://evil.example">';

const facts = (overrides: Partial<ReportFacts> = {}): ReportFacts => ({
  projectId: '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b',
  projectName: 'Shop',
  reportUuid: '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9c',
  branch: 'main',
  commit: 'a'.repeat(40),
  score: 72,
  gate: { passed: false, reasons: ['1 issue at or above critical severity in failed analyzers: sql-injection.'] },
  hadPrevious: true,
  ...overrides,
});

/** Every href of the HTML part. */
const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));

describe('E11.3 what each email says', () => {
  it('names the project, the branch and the report in a gate email', () => {
    const failed = gateEmail('gate_failed', facts(), FRAME);
    expect(failed.subject).toBe('[Scoreboard] Shop: gate failed on main');
    expect(failed.text).toContain(
      'The report of commit aaaaaaaaaaaa on main (score 72) failed the quality gate; the report before it passed.',
    );
    expect(failed.text).toContain('- 1 issue at or above critical severity in failed analyzers: sql-injection.');
    expect(failed.text).toContain('View the report: https://scoreboard.example.com/reports/0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9c');
    const recovered = gateEmail('gate_recovered', facts({ gate: { passed: true, reasons: [] } }), FRAME);
    expect(recovered.subject).toBe('[Scoreboard] Shop: gate recovered on main');
    expect(recovered.html).toContain('#1a7f37');
    // Without a branch, the subject says none.
    expect(gateEmail('gate_failed', facts({ branch: null }), FRAME).subject).toBe('[Scoreboard] Shop: gate failed');
  });

  it('counts new issues in the words of the level', () => {
    expect(levelWords('critical')).toBe('critical');
    expect(levelWords('medium')).toBe('medium or above');
    const issue = { severity: 'critical' as const, analyzerName: 'SQL Injection', message: 'Raw SQL', file: 'app/A.php', line: 3 };
    expect(newIssuesEmail(facts(), { level: 'critical', listed: [issue, issue, issue], total: 3 }, FRAME).subject).toBe(
      '[Scoreboard] Shop: 3 new critical issues on main',
    );
    const high = newIssuesEmail(facts(), { level: 'high', listed: [issue], total: 21 }, FRAME);
    expect(high.subject).toBe('[Scoreboard] Shop: 21 new issues of high or above severity on main');
    expect(high.text).toContain('and 20 more: https://scoreboard.example.com/reports/0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9c?tab=new');
  });

  it('says who assigned, who invited, and the week of a digest', () => {
    const issue = { severity: 'high' as const, analyzerName: 'XSS', message: 'Unescaped', file: null, line: null };
    expect(assignedEmail({ projectId: 'p', projectName: 'Shop', by: 'Ada', issues: [issue], total: 1 }, FRAME).subject).toBe(
      '[Scoreboard] Shop: Ada assigned you an issue',
    );
    const invitation = invitationEmail(
      { teamName: 'Acme', role: 'member', by: 'Ada', email: 'new@example.org', expiresAt: '2026-12-04T10:00:00.000Z' },
      FRAME,
    );
    expect(invitation.subject).toBe('[Scoreboard] Ada invited you to the team Acme');
    expect(invitation.text).toContain('valid until Fri, 04 Dec 2026 10:00 UTC');
    const digest = digestEmail(
      { from: '2026-11-23T08:00:00.000Z', to: '2026-11-30T08:00:00.000Z' },
      [
        { projectId: 'p1', projectName: 'Shop', score: 80, scoreBefore: 75, gate: 'failed', reports: 3, newIssues: 2, fixedIssues: 5 },
        { projectId: 'p2', projectName: 'Blog', score: 90, scoreBefore: null, gate: null, reports: 1, newIssues: 0, fixedIssues: 0 },
      ],
      FRAME,
    );
    expect(digest.subject).toBe('[Scoreboard] Your week: 2 new issues, 5 fixed');
    expect(digest.text).toContain('Your week on Scoreboard (23 Nov 2026 – 29 Nov 2026)');
    expect(digest.text).toContain('2 projects of your teams had reports this week: 2 new issues, 5 fixed; one gate fails.');
    expect(digest.text).toContain('- Shop · 80 · 75 · failed · 2 · 5\n  https://scoreboard.example.com/projects/p1');
    expect(digest.text).toContain('- Blog · 90 · – · – · 0 · 0');
  });
});

describe('E11.3 hostile text stays text', () => {
  const issue = { severity: 'critical' as const, analyzerName: HOSTILE, message: HOSTILE, file: HOSTILE, line: 1 };
  const emails = {
    gate: gateEmail('gate_failed', facts({ projectName: HOSTILE, branch: HOSTILE, gate: { passed: false, reasons: [HOSTILE] } }), FRAME),
    newIssues: newIssuesEmail(facts({ projectName: HOSTILE }), { level: 'critical', listed: [issue], total: 1 }, FRAME),
    assigned: assignedEmail({ projectId: 'p', projectName: HOSTILE, by: HOSTILE, issues: [issue], total: 1 }, FRAME),
    invitation: invitationEmail(
      { teamName: HOSTILE, role: 'member', by: HOSTILE, email: 'a@example.org', expiresAt: '2026-12-04T10:00:00Z' },
      FRAME,
    ),
    digest: digestEmail(
      { from: '2026-11-23T08:00:00.000Z', to: '2026-11-30T08:00:00.000Z' },
      [{ projectId: 'p"><x', projectName: HOSTILE, score: 1, scoreBefore: 2, gate: 'passed', reports: 1, newIssues: 0, fixedIssues: 0 }],
      FRAME,
    ),
  };

  it.each(Object.entries(emails))('%s: one-line subject, escaped HTML, only dashboard links', (_kind, email) => {
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect([...email.subject].length).toBeLessThanOrEqual(150);
    expect(email.html).not.toContain('<script');
    expect(email.html).not.toContain('<a href="https://evil.example">');
    expect(email.html).toContain('&lt;script&gt;');
    for (const href of hrefs(email.html)) expect(href.startsWith(`${FRAME.base}/`), href).toBe(true);
    // The text part keeps the words, on one line each.
    expect(email.text).not.toMatch(/\r/);
    expect(email.text).not.toMatch(/^Bcc:/m);
  });

  it('puts user text on one line and cuts it by characters, never inside one', () => {
    expect(oneLine('a\r\n\tb\u2028c\u0001d\u202ee')).toBe('a b c de');
    // Five UTF-16 units: two emoji (two units each) and the ellipsis, never half an emoji.
    expect(cut('😀'.repeat(10), 5)).toBe('😀😀…');
  });
});

describe('E11.3 the digest is due Mondays at 08:00 UTC, for a day', () => {
  it.each([
    ['2026-11-30T07:59:59.999Z', null],
    ['2026-11-30T08:00:00.000Z', '2026-11-23T08:00:00.000Z'],
    ['2026-12-01T07:59:59.999Z', '2026-11-23T08:00:00.000Z'],
    ['2026-12-01T08:00:00.000Z', null],
    ['2026-12-06T23:00:00.000Z', null],
    ['2027-01-04T09:30:00.000Z', '2026-12-28T08:00:00.000Z'],
  ])('at %s the week from %s', (now, from) => {
    const week = digestWeekAt(new Date(now));
    if (from === null) expect(week).toBeNull();
    else expect(week).toEqual({ from, to: new Date(new Date(from).getTime() + 7 * 86_400_000).toISOString() });
  });
});

describe('E11.4 what an SMTP failure means', () => {
  it('retries a 4xx reply and a connection failure, fails a 5xx, and never shows more than the reply', () => {
    expect(outcomeOfSmtpFailure({ responseCode: 421, response: '421 4.7.0 Try again later' })).toEqual({
      ok: false,
      status: 421,
      error: 'the mail server deferred the email: 421 4.7.0 Try again later',
      retry: true,
    });
    expect(outcomeOfSmtpFailure({ responseCode: 554, response: '554 5.7.1 Relay denied' })).toMatchObject({ status: 554, retry: false });
    expect(outcomeOfSmtpFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:25'), { code: 'ESOCKET' }))).toEqual({
      ok: false,
      status: null,
      error: 'could not reach the mail server (ESOCKET)',
      retry: true,
    });
    expect(senderDomain('Scoreboard <scoreboard@mail.example.com>')).toBe('mail.example.com');
    expect(senderDomain('noreply@example.org')).toBe('example.org');
  });
});
