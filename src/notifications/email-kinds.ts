import type { Severity } from '../reports/vocabulary.js';
import { oneLine, plural, shortCommit } from '../wire/plain-text.js';
import { type EmailContent, type EmailLink, type EmailRow, type RenderedEmail, renderEmail } from './email-layout.js';
import type { NewIssuesLevel } from './notification-vocabulary.js';

/**
 * E11.3: what each email says, from the facts read when it is sent (email-facts.ts), in words. Pure:
 * the stored examples in test/notifications/ compare what these return.
 */

export type EmailKind = 'gate_failed' | 'gate_recovered' | 'new_issues' | 'assigned' | 'invitation' | 'weekly_digest';

/**
 * What an unsubscribe link turns off: a user's choice (E11.2; a gate's recovery answers to the same
 * choice as its failure), or, for invitations, the address's.
 */
export const UNSUBSCRIBE_KINDS = ['gate_failed', 'new_issues', 'assigned', 'weekly_digest', 'invitations'] as const;
export type UnsubscribeKind = (typeof UNSUBSCRIBE_KINDS)[number];

export const UNSUBSCRIBE_KIND_OF: Record<EmailKind, UnsubscribeKind> = {
  gate_failed: 'gate_failed',
  gate_recovered: 'gate_failed',
  new_issues: 'new_issues',
  assigned: 'assigned',
  invitation: 'invitations',
  weekly_digest: 'weekly_digest',
};

/** The subject's prefix, so that people can filter. */
const PREFIX = '[Scoreboard]';

/** Where the links go and how to stop the email: built by the sender for each recipient. */
export interface EmailFrame {
  /** The dashboard's base (PUBLIC_URL), without a trailing slash. */
  base: string;
  unsubscribeUrl: string | null;
}

export interface ListedIssue {
  severity: Severity;
  analyzerName: string;
  message: string;
  file: string | null;
  line: number | null;
}

export interface ReportFacts {
  projectId: string;
  projectName: string;
  reportUuid: string;
  branch: string | null;
  commit: string | null;
  score: number;
  gate: { passed: boolean; reasons: string[] } | null;
  /** Whether the report before it on its branch existed (a gate email says what it flipped from). */
  hadPrevious: boolean;
}

const onBranch = (branch: string | null) => (branch === null ? '' : ` on ${oneLine(branch)}`);
const path = (base: string, ...segments: string[]) => `${base}/${segments.map(encodeURIComponent).join('/')}`;
const reportUrl = (frame: EmailFrame, facts: ReportFacts) => path(frame.base, 'reports', facts.reportUuid);
const settingsUrl = (frame: EmailFrame) => `${frame.base}/profile`;

function footer(frame: EmailFrame, reason: string): EmailContent['footer'] {
  return { reason, settingsUrl: settingsUrl(frame), unsubscribeUrl: frame.unsubscribeUrl };
}

/** `the report of commit 3f2a… (score 72)`. */
function reportWords(facts: ReportFacts): string {
  const commit = facts.commit === null ? '' : ` of commit ${shortCommit(oneLine(facts.commit))}`;
  return `The report${commit}${onBranch(facts.branch)} (score ${facts.score})`;
}

function issueRows(issues: readonly ListedIssue[]): EmailRow[] {
  return issues.map((issue) => ({
    cells: [
      issue.severity,
      `${issue.analyzerName}: ${issue.message}`,
      issue.file === null ? '' : issue.line !== null && issue.line > 0 ? `${issue.file}:${issue.line}` : issue.file,
    ],
  }));
}

const ISSUE_HEAD = ['Severity', 'Issue', 'Where'];

export function gateEmail(kind: 'gate_failed' | 'gate_recovered', facts: ReportFacts, frame: EmailFrame): RenderedEmail {
  const failed = kind === 'gate_failed';
  const verb = failed ? 'failed' : 'recovered';
  const before = failed
    ? facts.hadPrevious
      ? 'the report before it passed.'
      : `it is the first report${onBranch(facts.branch)}.`
    : 'the report before it failed.';
  return renderEmail({
    subject: `${PREFIX} ${oneLine(facts.projectName)}: gate ${verb}${onBranch(facts.branch)}`,
    heading: `${oneLine(facts.projectName)}: the quality gate ${failed ? 'failed' : 'passes again'}${onBranch(facts.branch)}`,
    tone: failed ? 'bad' : 'good',
    paragraphs: [`${reportWords(facts)} ${failed ? 'failed' : 'passed'} the quality gate; ${before}`],
    ...(failed && facts.gate !== null && facts.gate.reasons.length > 0 && { bullets: facts.gate.reasons }),
    action: { label: 'View the report', url: reportUrl(frame, facts) },
    footer: footer(
      frame,
      `You get this email because you are in the team of ${oneLine(facts.projectName)} and chose to hear when a quality gate fails or recovers.`,
    ),
  });
}

/** `critical`, or `high or above`: the severities a user's level counts. */
export function levelWords(level: Exclude<NewIssuesLevel, 'none'>): string {
  return level === 'critical' ? 'critical' : `${level} or above`;
}

export function newIssuesEmail(
  facts: ReportFacts,
  issues: { level: Exclude<NewIssuesLevel, 'none'>; listed: readonly ListedIssue[]; total: number },
  frame: EmailFrame,
): RenderedEmail {
  const { level, total } = issues;
  const counted =
    level === 'critical' ? `${plural(total, 'new critical issue')}` : `${plural(total, 'new issue')} of ${levelWords(level)} severity`;
  const url = reportUrl(frame, facts);
  const more = total - issues.listed.length;
  return renderEmail({
    subject: `${PREFIX} ${oneLine(facts.projectName)}: ${counted}${onBranch(facts.branch)}`,
    heading: `${oneLine(facts.projectName)}: ${counted}${onBranch(facts.branch)}`,
    tone: 'bad',
    paragraphs: [`${reportWords(facts)} found ${counted} that nobody has dismissed.`],
    table: {
      head: ISSUE_HEAD,
      rows: issueRows(issues.listed),
      ...(more > 0 && { more: { label: `and ${more} more`, url: `${url}?tab=new` } }),
    },
    action: { label: 'See the new issues', url: `${url}?tab=new` },
    footer: footer(
      frame,
      `You get this email because you are in the team of ${oneLine(facts.projectName)} and chose to hear of new issues of ${levelWords(level)} severity.`,
    ),
  });
}

export function assignedEmail(
  facts: { projectId: string; projectName: string; by: string; issues: readonly ListedIssue[]; total: number },
  frame: EmailFrame,
): RenderedEmail {
  const what = facts.total === 1 ? 'an issue' : plural(facts.total, 'issue');
  const more = facts.total - facts.issues.length;
  const projectIssues = `${path(frame.base, 'projects', facts.projectId)}/issues`;
  return renderEmail({
    subject: `${PREFIX} ${oneLine(facts.projectName)}: ${oneLine(facts.by)} assigned you ${what}`,
    heading: `${oneLine(facts.by)} assigned you ${what} of ${oneLine(facts.projectName)}`,
    tone: 'neutral',
    paragraphs: [`${oneLine(facts.by)} assigned you ${what} in ${oneLine(facts.projectName)}.`],
    table: {
      head: ISSUE_HEAD,
      rows: issueRows(facts.issues),
      ...(more > 0 && { more: { label: `and ${more} more`, url: `${frame.base}/assigned-to-me` } as EmailLink }),
    },
    action: { label: 'See the issues assigned to you', url: `${frame.base}/assigned-to-me` },
    footer: footer(
      frame,
      `You get this email because you are in the team of ${oneLine(facts.projectName)} and chose to hear when someone assigns you an issue. The project's issues: ${projectIssues}`,
    ),
  });
}

export function invitationEmail(
  facts: { teamName: string; role: string; by: string; email: string; expiresAt: string },
  frame: EmailFrame,
): RenderedEmail {
  const until = new Date(facts.expiresAt).toUTCString().replace(/:\d\d GMT$/, ' UTC');
  return renderEmail({
    subject: `${PREFIX} ${oneLine(facts.by)} invited you to the team ${oneLine(facts.teamName)}`,
    heading: `You are invited to the team ${oneLine(facts.teamName)}`,
    tone: 'neutral',
    paragraphs: [
      `${oneLine(facts.by)} invited ${facts.email} to join the team ${oneLine(facts.teamName)} on Scoreboard as ${facts.role === 'admin' ? 'an admin' : `a ${facts.role}`}. The invitation is valid until ${until}.`,
      `Sign in to Scoreboard with this address and accept it on the Invitations page. If you have no account there yet, ask its administrator for one with this address.`,
    ],
    action: { label: 'Open your invitations', url: `${frame.base}/invitations` },
    footer: footer(
      frame,
      'You get this email because someone invited this address to a team on Scoreboard. If you did not expect it, you may ignore it.',
    ),
  });
}

export interface DigestProject {
  projectId: string;
  projectName: string;
  /** Score at the end of the week and a week before; null without a report then. */
  score: number | null;
  scoreBefore: number | null;
  gate: 'passed' | 'failed' | null;
  reports: number;
  newIssues: number;
  fixedIssues: number;
}

const DAY_FORMAT = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

export function digestEmail(week: { from: string; to: string }, projects: readonly DigestProject[], frame: EmailFrame): RenderedEmail {
  // The week's last day is the Sunday before the digest's Monday.
  const lastDay = new Date(new Date(week.from).getTime() + 6 * 86_400_000);
  const span = `${DAY_FORMAT.format(new Date(week.from))} – ${DAY_FORMAT.format(lastDay)}`;
  const totals = projects.reduce((sum, p) => ({ new: sum.new + p.newIssues, fixed: sum.fixed + p.fixedIssues }), { new: 0, fixed: 0 });
  const failing = projects.filter((p) => p.gate === 'failed').length;
  const score = (value: number | null) => (value === null ? '–' : String(value));
  return renderEmail({
    subject: `${PREFIX} Your week: ${plural(totals.new, 'new issue')}, ${totals.fixed} fixed`,
    heading: `Your week on Scoreboard (${span})`,
    tone: 'neutral',
    paragraphs: [
      `${plural(projects.length, 'project')} of your teams had reports this week: ${plural(totals.new, 'new issue')}, ${totals.fixed} fixed${
        failing > 0 ? `; ${failing === 1 ? 'one gate fails' : `${failing} gates fail`}` : ''
      }.`,
    ],
    table: {
      head: ['Project', 'Score', 'A week before', 'Gate', 'New', 'Fixed'],
      rows: projects.map((p) => ({
        cells: [p.projectName, score(p.score), score(p.scoreBefore), p.gate ?? '–', String(p.newIssues), String(p.fixedIssues)],
        url: path(frame.base, 'projects', p.projectId),
      })),
    },
    action: { label: 'Open Scoreboard', url: `${frame.base}/` },
    footer: footer(frame, 'You get this email because you chose a weekly digest of the projects of your teams.'),
  });
}
