/**
 * E10.2, E10.3, E10.5: what Scoreboard posts to a code host about a report, as text: the commit
 * status's description, the pull request's comment (Markdown, one flavour per host), and a GitHub
 * App's check run (title, summary, annotations). Nothing here reads or sends anything.
 *
 * Everything a user controls (project and branch names, analyzer names, messages, file names, gate
 * reasons that name analyzers) reaches a comment on one line, cut, and escaped for the host's
 * Markdown (`inline()`, `escapeText()`), so that it reads as text and never as markup. Escaping alone is not
 * enough: GitHub and Gitea turn `@name` and `#12` into mentions and references after the Markdown
 * is rendered, when the backslash is gone (github/markup#1168), so a ZERO WIDTH SPACE after the
 * `@`, or between `#`/`!` and a digit, keeps them plain (it shows nothing); so does one between
 * the brackets of Gitea's `[[wiki links]]`, found the same way. URLs written out in a
 * message stay as they are: a host may link them, and such a link shows where it goes.
 *
 * The hosts' Markdown differs where it matters here:
 * - GitHub (GFM), GitLab (GLFM) and Gitea (goldmark with GFM) are CommonMark: every ASCII
 *   punctuation character may be backslash-escaped, HTML comments are hidden, tables are GFM's
 *   (`\|` is a pipe inside a cell). Parentheses are left alone: Gitea reads `\(` … `\)` as inline
 *   math, and without an unescaped `]` before it a `(` starts nothing.
 * - Bitbucket Cloud escapes every HTML tag, so the marker (an HTML comment, as the contract writes
 *   it for every host) may show there as text. Its Markdown has long
 *   been Python-Markdown, which backslash-escapes only `\ ` * _ { } [ ] ( ) > # + - . ! |` and shows
 *   the backslash before anything else; those are escaped, and `<`, `@` and `~~` are made harmless
 *   with a ZERO WIDTH SPACE (Bitbucket escapes HTML too, and `&` only spells an entity). Tables
 *   are supported (a `\|` is a pipe inside a cell).
 */
import { SARIF_LEVELS } from '../reports/export/sarif-export.js';
import { SEVERITIES, type Severity } from '../reports/vocabulary.js';
import { oneLine } from '../wire/plain-text.js';
import { storableText } from '../wire/storable-text.js';

export type CodeHostKind = 'github' | 'gitlab' | 'gitea' | 'bitbucket';

export interface FeedbackIssue {
  severity: Severity;
  analyzerName: string;
  /** As the client sent it: may hold newlines, pipes, backticks, HTML, Markdown, and be long. */
  message: string;
  file: string | null;
  line: number | null;
  /** The file at the line as of the report's commit in the code host; null: no link. */
  fileUrl: string | null;
}

export interface FeedbackFacts {
  projectId: string;
  projectName: string;
  /** The report's page in the dashboard. */
  reportUrl: string;
  /** The report's new issues in the dashboard. */
  changesUrl: string;
  commit: string | null;
  branch: string | null;
  /** The branch of the baseline the score is compared with. */
  baseBranch: string | null;
  pullRequest: string | null;
  score: number;
  /** Null: no baseline. */
  baselineScore: number | null;
  /** Null: no gate stored with the report. */
  gate: { passed: boolean; reasons: string[] } | null;
  /** Null: no baseline to compare with. */
  newCount: number | null;
  fixedCount: number | null;
  /** At most LISTED_ISSUES_MAX new issues without a dismissal, most severe first (chosen by the caller). */
  newIssues: FeedbackIssue[];
  /** How many new issues without a dismissal there are in all. */
  newIssuesTotal: number;
}

/** E10.2: a commit status's description (GitHub's limit, and the spec's for every host). */
export const STATUS_DESCRIPTION_MAX = 140;
/** E10.3: the new issues a comment lists. */
export const LISTED_ISSUES_MAX = 10;
/** E10.5: GitHub's limit on a check run's `output.summary`. */
export const CHECK_RUN_SUMMARY_MAX = 65_535;
/** GitHub documents no limit on `output.title`; a title is a line, kept as short as a status's description. */
export const CHECK_RUN_TITLE_MAX = 140;
/** E10.5: GitHub takes at most 50 annotations per request (the rest by PATCH), and the spec at most 1,000 in all. */
export const ANNOTATIONS_PER_REQUEST = 50;
export const ANNOTATIONS_MAX = 1_000;
/** GitHub's limits on an annotation: a title of 255 characters, a message of 64 KB. */
export const ANNOTATION_TITLE_MAX = 255;
/** 20,000 UTF-16 code units are at most 60,000 bytes of UTF-8, under the 64 KB. */
export const ANNOTATION_MESSAGE_MAX = 20_000;

/**
 * How long each piece of a comment may be before escaping, which at most quadruples it (`<` is
 * `&lt;`; `@` is `\@` and a ZERO WIDTH SPACE). With ten rows, ten reasons and thirteen links of at
 * most URL_MAX, a comment stays under 50,000 characters (the test builds the worst), well within
 * GitHub's 65,536.
 */
const MESSAGE_MAX = 200;
const ANALYZER_MAX = 80;
const FILE_MAX = 160;
const NAME_MAX = 100;
const REASON_MAX = 300;
const REASONS_LISTED = 10;
const URL_MAX = 1_000;

const ELLIPSIS = '…';
const ZWSP = '\u200b';

const SEVERITY_LABELS: Record<Severity, string> = {
  critical: '🔴 critical',
  high: '🟠 high',
  medium: '🟡 medium',
  low: '🔵 low',
  info: '⚪ info',
};

const ANNOTATION_LEVELS = { error: 'failure', warning: 'warning', note: 'notice' } as const;

// ---------------------------------------------------------------------------------------------
// The marker

/**
 * E10.3: the first line of every pull request comment, on every host, as the contract writes it:
 * an HTML comment, hidden by GitHub, GitLab and Gitea. Bitbucket Cloud's Markdown does not take raw
 * HTML and may show it as text; the contract asks for it all the same (a link reference definition,
 * `[//]: # (...)`, would render as nothing there). Escaped user text cannot spell it (its `<` is
 * `&lt;` or followed by a ZERO WIDTH SPACE), but a file name shown as code is literal: a comment is
 * Scoreboard's when its body starts with the marker.
 */
export function commentMarker(projectId: string): string {
  return `<!-- scoreboard:project:${projectId} -->`;
}

// ---------------------------------------------------------------------------------------------
// E10.3: the pull request comment

/** E10.3's Markdown for `host`, starting with the marker line. */
export function pullRequestComment(facts: FeedbackFacts, host: CodeHostKind): string {
  return renderComment(facts, host, true);
}

function renderComment(facts: FeedbackFacts, host: CodeHostKind, withMarker: boolean): string {
  const flavour: Flavour = host === 'bitbucket' ? 'bitbucket' : 'commonmark';
  const blocks = [
    ...(withMarker ? [commentMarker(facts.projectId)] : []),
    heading(facts.projectName, flavour),
    ...gateBlocks(facts.gate, flavour),
    scoreLine(facts, flavour),
    ...issueBlocks(facts, flavour),
    footer(facts, flavour),
  ];
  return `${blocks.join('\n\n')}\n`;
}

function heading(projectName: string, flavour: Flavour): string {
  const name = inline(projectName, NAME_MAX, flavour);
  return name === '' ? '### Scoreboard' : `### Scoreboard · ${name}`;
}

function gateBlocks(gate: FeedbackFacts['gate'], flavour: Flavour): string[] {
  if (gate === null) return ['No quality gate was applied to this report.'];
  if (gate.passed) return ['✅ **Quality gate passed**'];
  const listed = gate.reasons.slice(0, REASONS_LISTED).map((reason) => `- ${atLineStart(inline(reason, REASON_MAX, flavour))}`);
  const more = gate.reasons.length - REASONS_LISTED;
  if (more > 0) listed.push(`- ${ELLIPSIS}and ${more} more`);
  // A blank line before the list: Python-Markdown (Bitbucket) does not let a list interrupt a paragraph.
  return ['❌ **Quality gate failed**', ...(listed.length > 0 ? [listed.join('\n')] : [])];
}

function scoreLine(facts: FeedbackFacts, flavour: Flavour): string {
  const against = facts.baseBranch === null ? 'the baseline' : inline(facts.baseBranch, NAME_MAX, flavour);
  const change = facts.baselineScore === null ? 'no baseline yet' : `${signed(facts.score - facts.baselineScore)} against ${against}`;
  const parts = [`**Score ${number(facts.score)}** (${change})`];
  if (facts.newCount !== null) parts.push(`**${counted(facts.newCount, 'new issue', 'new issues')}**`);
  if (facts.fixedCount !== null) parts.push(`**${number(facts.fixedCount)} fixed**`);
  return parts.join(' · ');
}

function issueBlocks(facts: FeedbackFacts, flavour: Flavour): string[] {
  const listed = facts.newIssues.slice(0, LISTED_ISSUES_MAX);
  if (listed.length === 0) {
    if (facts.newCount === null) return [];
    return [facts.newCount === 0 ? 'No new issues.' : 'Every new issue has been dismissed.'];
  }
  const rows = listed.map(
    (issue) =>
      `| ${SEVERITY_LABELS[issue.severity]} | ${inline(issue.analyzerName, ANALYZER_MAX, flavour)} | ${inline(issue.message, MESSAGE_MAX, flavour) || '(no message)'} | ${location(issue, flavour)} |`,
  );
  const blocks = ['#### New issues', ['| Severity | Analyzer | Message | Location |', '| --- | --- | --- | --- |', ...rows].join('\n')];
  const more = Math.max(facts.newIssuesTotal, facts.newIssues.length) - listed.length;
  if (more > 0) {
    blocks.push(
      `${ELLIPSIS}and ${counted(more, 'more new issue', 'more new issues')}: ${link('see them all in Scoreboard', facts.changesUrl)}`,
    );
  }
  return blocks;
}

/** `file:line`, linked into the repository when the link is known, else as code; a dash for an issue without a file. */
function location(issue: FeedbackIssue, flavour: Flavour): string {
  if (issue.file === null || oneLine(issue.file) === '') return '—';
  const file = cutStart(oneLine(issue.file), FILE_MAX);
  const place = issue.line !== null && Number.isInteger(issue.line) && issue.line > 0 ? `${file}:${issue.line}` : file;
  const url = safeUrl(issue.fileUrl);
  if (url !== null) return `[${escapeText(place, flavour)}](${url})`;
  // A code span's text is literal: one that would hold a backtick, a pipe (a cell's end), a `<` or a
  // backslash is written as escaped text instead.
  return /^[^`|<\\]+$/.test(place) ? `\`${place}\`` : escapeText(place, flavour);
}

function footer(facts: FeedbackFacts, flavour: Flavour): string {
  const parts = [link('View the changes in Scoreboard', facts.changesUrl), link('full report', facts.reportUrl)];
  const commit = facts.commit === null || oneLine(facts.commit) === '' ? null : shortCommit(facts.commit, flavour);
  const branch = facts.branch === null || oneLine(facts.branch) === '' ? null : inline(facts.branch, NAME_MAX, flavour);
  if (commit !== null) parts.push(branch === null ? `commit ${commit}` : `commit ${commit} on ${branch}`);
  else if (branch !== null) parts.push(`branch ${branch}`);
  return parts.join(' · ');
}

/** A commit as git shows it (seven hex digits), or, when it is not a hash, as escaped text. */
function shortCommit(commit: string, flavour: Flavour): string {
  const text = oneLine(commit);
  return /^[0-9a-f]{7,64}$/i.test(text) ? text.slice(0, 7) : inline(text, 40, flavour);
}

// ---------------------------------------------------------------------------------------------
// E10.2: the commit status

/** E10.2: `Score 87 · 2 new issues · gate failed: <first reason>`, at most 140 characters; plain text. */
export function statusDescription(facts: FeedbackFacts): string {
  const parts = [`Score ${number(facts.score)}`];
  if (facts.newCount !== null) parts.push(counted(facts.newCount, 'new issue', 'new issues'));
  if (facts.gate !== null) parts.push(facts.gate.passed ? 'gate passed' : gateFailed(facts.gate.reasons, 'gate failed'));
  return cutEnd(parts.join(' · '), STATUS_DESCRIPTION_MAX);
}

function gateFailed(reasons: readonly string[], words: string): string {
  const first = reasons.map(oneLine).find((reason) => reason !== '');
  return first === undefined ? words : `${words}: ${first}`;
}

// ---------------------------------------------------------------------------------------------
// E10.5: the check run

/**
 * E10.5: the check run's title and summary. The title says the gate's failure first (the
 * conclusion already says pass or fail), else the score and new issues. The summary is the GitHub
 * comment without its marker line: the marker finds a comment again, a check run is found by its
 * name, and the summary is shown where a hidden line would only be noise in the raw text.
 */
export function checkRunOutput(facts: FeedbackFacts): { title: string; summary: string } {
  const title =
    facts.gate?.passed === false
      ? gateFailed(facts.gate.reasons, 'Gate failed')
      : [`Score ${number(facts.score)}`, ...(facts.newCount === null ? [] : [counted(facts.newCount, 'new issue', 'new issues')])].join(
          ' · ',
        );
  return { title: cutEnd(title, CHECK_RUN_TITLE_MAX), summary: cutEnd(renderComment(facts, 'github', false), CHECK_RUN_SUMMARY_MAX) };
}

export interface AnnotationIssue {
  severity: Severity;
  analyzerName: string;
  message: string;
  file: string;
  line: number;
}

export interface CheckRunAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'failure' | 'warning' | 'notice';
  title: string;
  message: string;
}

/**
 * E10.5: one annotation per issue with a file and a line, most severe first, at most
 * ANNOTATIONS_MAX (the caller sends them ANNOTATIONS_PER_REQUEST at a time). The level is E3's
 * SARIF level in GitHub's words. An annotation is plain text: its message keeps its lines. An issue
 * GitHub would refuse (no path, a line below 1) is left out rather than failing the whole request.
 */
export function checkRunAnnotations(issues: readonly AnnotationIssue[]): CheckRunAnnotation[] {
  return issues
    .map((issue) => ({ issue, path: annotationPath(issue.file) }))
    .filter(({ issue, path }) => path !== '' && Number.isInteger(issue.line) && issue.line >= 1)
    .sort((a, b) => SEVERITIES.indexOf(a.issue.severity) - SEVERITIES.indexOf(b.issue.severity))
    .slice(0, ANNOTATIONS_MAX)
    .map(({ issue, path }) => {
      const analyzer = oneLine(issue.analyzerName);
      const message = annotationText(issue.message);
      return {
        path,
        start_line: issue.line,
        end_line: issue.line,
        annotation_level: ANNOTATION_LEVELS[SARIF_LEVELS[issue.severity]],
        title: cutEnd(analyzer === '' ? issue.severity : `${analyzer} · ${issue.severity}`, ANNOTATION_TITLE_MAX),
        message: cutEnd(message === '' ? analyzer || issue.severity : message, ANNOTATION_MESSAGE_MAX),
      };
    });
}

/** The path relative to the repository, as code-links.ts reads the client's `location.file`. */
function annotationPath(file: string): string {
  return oneLine(file).replace(/^\.?\/+/, '');
}

/** Plain text on several lines: line ends made `\n`, other control characters and bidirectional controls gone. */
function annotationText(text: string): string {
  return storableText(text)
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, ' ')
    .replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, (character) => (character === '\n' ? character : ''))
    .replace(/ *\n */g, '\n')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// Text

/** CommonMark (GitHub, GitLab, Gitea) or Bitbucket's Markdown: see the file's comment. */
type Flavour = 'commonmark' | 'bitbucket';

/**
 * The characters escaped in user text. CommonMark: those that start markup anywhere in a line
 * (emphasis, code, links and images, entities, tables, GitLab's references
 * `~label` `%milestone` `!12` `&epic` `$snippet` and `{+ +}`, math `$`), leaving `.` `,` `:` `/`
 * `-` `(` `)` and the like readable; `<` and `>` become entities (see escapeText). Bitbucket: only
 * those Python-Markdown can escape.
 */
const SPECIAL: Record<Flavour, RegExp> = {
  commonmark: /[\\`*_~[\]&$#@!|{}%]/g,
  bitbucket: /[\\`*_{}[\]#!|>]/g,
};

/** User text on one line, cut to `max` characters, escaped: safe in a paragraph, a list item or a table cell. */
function inline(text: string, max: number, flavour: Flavour): string {
  return escapeText(cutEnd(oneLine(text), max), flavour);
}

function escapeText(text: string, flavour: Flavour): string {
  let safe = text
    .replace(/@(?=\S)/g, `@${ZWSP}`)
    .replace(/([#!])(?=\d)/g, `$1${ZWSP}`)
    // Gitea links (and shows images for) `[[target|text]]` found in the rendered text, escaped or not.
    .replace(/\[(?=\[)/g, `[${ZWSP}`)
    .replace(SPECIAL[flavour], (character) => `\\${character}`);
  // Pointy brackets as entities rather than escapes: GFM's autolinks (a URL written out in a message)
  // swallow the backslash before a `<`, which would then open an autolink of any scheme or a tag.
  if (flavour === 'commonmark') safe = safe.replace(/</g, '&lt;').replace(/>/g, '&gt;');
  // Bitbucket can escape neither `<` nor `~`. A ZERO WIDTH SPACE after a `<` keeps it from opening a
  // tag, a comment or an autolink whatever Bitbucket does with HTML (a `\>` would not end an
  // unquoted attribute), and one between two `~` keeps them from striking text through.
  if (flavour === 'bitbucket') safe = safe.replace(/<(?=[A-Za-z/!?])/g, `<${ZWSP}`).replace(/~(?=~)/g, `~${ZWSP}`);
  return safe;
}

/**
 * Text that starts a list item's line must not start a block inside it: `-`, `+` (a list), `1.` or
 * `1)` (an ordered list). `#`, `>`, `*` and backticks are escaped (or entities) everywhere already.
 */
function atLineStart(escaped: string): string {
  return escaped.replace(/^([-+])/, '\\$1').replace(/^(\d{1,9})([.)])/, '$1\\$2');
}

/** `text` cut to at most `max` code units, never inside a surrogate pair, ending with an ellipsis when cut. */
function cutEnd(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - ELLIPSIS.length;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end -= 1;
  return `${text.slice(0, end)}${ELLIPSIS}`;
}

/** A path cut from its start, so that its file name stays. */
function cutStart(text: string, max: number): string {
  if (text.length <= max) return text;
  let start = text.length - (max - ELLIPSIS.length);
  if (/[\uDC00-\uDFFF]/.test(text[start] ?? '')) start += 1;
  return `${ELLIPSIS}${text.slice(start)}`;
}

/** `[text](url)`, or the text alone when the URL is not a usable http(s) one. `text` is Markdown already. */
function link(text: string, url: string | null): string {
  const safe = safeUrl(url);
  return safe === null ? text : `[${text}](${safe})`;
}

/**
 * An http(s) URL that cannot end its link early or break a table: the characters Markdown gives a
 * meaning in a link destination (parentheses, brackets, pointy brackets, a pipe, quotes, white
 * space, backslashes) percent-encoded, which addresses the same resource. Null for anything else,
 * or for a URL too long to be worth its place in a comment.
 */
function safeUrl(url: string | null): string | null {
  if (url === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  const href = parsed.href.replace(
    /[()[\]<>|`'"\\{}^\s]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
  return href.length <= URL_MAX ? href : null;
}

function number(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function signed(delta: number): string {
  if (delta === 0) return 'no change';
  return delta > 0 ? `+${number(delta)}` : `-${number(-delta)}`;
}

function counted(count: number, one: string, many: string): string {
  return `${number(count)} ${count === 1 ? one : many}`;
}
