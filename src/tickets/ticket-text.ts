/**
 * E9.4: what a ticket says. Its title, and its body as one neutral document rendered three ways:
 * Markdown (GitHub, GitLab, Linear), Atlassian Document Format (Jira Cloud, API v3) and Jira wiki
 * markup (Jira Data Center, API v2). Everything the user controls (analyzer names, messages, file
 * names, snippets, recommendations) is escaped for each format, so it reads as text and never as
 * markup: a snippet holding a fence or `{code}` does not end its block, a message holding `@name`
 * or `#12` mentions nobody and links nothing.
 */

import { clip, oneLine } from '../wire/plain-text.js';

/** E9.4: a title holds at most this many characters (UTF-16 code units, as Jira and GitHub count them). */
export const TITLE_MAX = 250;

/** What a ticket is made from: the issue as the newest report holding it has it, and the links. */
export interface TicketFacts {
  analyzerName: string;
  message: string;
  severity: string;
  category: string | null;
  file: string | null;
  line: number | null;
  /** The code around the issue, line number -> text, as the client sent it. */
  snippet: Record<string, string> | null;
  recommendation: string | null;
  /** The file at the line as of the report's commit, when the repository's host is known. */
  fileUrl: string | null;
  /** The issue in the dashboard. */
  dashboardUrl: string;
}

/** `[Scoreboard] <analyzer name>: <message>` on one line, cut to TITLE_MAX with an ellipsis saying so. */
export function ticketTitle(facts: Pick<TicketFacts, 'analyzerName' | 'message'>): string {
  const title = oneLine(`[Scoreboard] ${facts.analyzerName}: ${facts.message}`);
  return clip(title, TITLE_MAX);
}

/** A run of text, a link when `href` is given. */
interface Inline {
  text: string;
  href?: string;
}

/** The neutral document: the few blocks a ticket's body is made of. */
export type Block =
  | { type: 'heading'; text: string }
  | { type: 'paragraph'; content: Inline[] }
  | { type: 'list'; items: Inline[][] }
  | { type: 'code'; text: string };

/** E9.5: what a fixed issue's ticket is told, in one paragraph: the report, its commit and branch, and a link to it. */
export function fixedCommentDocument(fix: { report: string; commit: string | null; branch: string | null; reportUrl: string }): Block[] {
  const at = fix.commit === null ? '' : ` at commit ${fix.commit}`;
  const on = fix.branch === null ? '' : ` on ${oneLine(fix.branch)}`;
  return [
    { type: 'paragraph', content: [{ text: `Fixed in report ${fix.report}${at}${on}: Scoreboard no longer finds this issue.` }] },
    { type: 'paragraph', content: [{ text: 'View the report in Scoreboard', href: fix.reportUrl }] },
  ];
}

/** The body's blocks: the facts as a list, the code, the recommendation, the dashboard link. */
export function ticketDocument(facts: TicketFacts): Block[] {
  const items: Inline[][] = [[{ text: `Severity: ${facts.severity}` }]];
  if (facts.category) items.push([{ text: `Category: ${facts.category}` }]);
  items.push([{ text: `Analyzer: ${facts.analyzerName}` }]);
  if (facts.file !== null) {
    const place = facts.line === null ? facts.file : `${facts.file}:${facts.line}`;
    items.push([{ text: 'Location: ' }, facts.fileUrl === null ? { text: place } : { text: place, href: facts.fileUrl }]);
  }
  const blocks: Block[] = [
    { type: 'paragraph', content: [{ text: oneLine(facts.message) }] },
    { type: 'list', items },
  ];
  const snippet = snippetText(facts.snippet);
  if (snippet !== null) blocks.push({ type: 'heading', text: 'Code' }, { type: 'code', text: snippet });
  if (facts.recommendation?.trim()) {
    blocks.push({ type: 'heading', text: 'Recommendation' }, { type: 'paragraph', content: [{ text: facts.recommendation.trim() }] });
  }
  blocks.push({ type: 'paragraph', content: [{ text: 'View the issue in Scoreboard', href: facts.dashboardUrl }] });
  return blocks;
}

/** The snippet's lines in line order, as `  12 | text`; null when there is none. */
function snippetText(lines: Record<string, string> | null): string | null {
  if (lines === null) return null;
  const numbered = Object.entries(lines)
    .map(([number, text]) => [Number(number), text] as const)
    .filter(([number]) => Number.isFinite(number))
    .sort((a, b) => a[0] - b[0]);
  if (numbered.length === 0) return null;
  const width = String(numbered.at(-1)![0]).length;
  return numbered.map(([number, text]) => `${String(number).padStart(width)} | ${text.replace(/\r?\n/g, ' ')}`).join('\n');
}

// ---------------------------------------------------------------------------------------------
// Markdown (CommonMark, as GitHub, GitLab and Linear read it)

/** Every ASCII punctuation character may be backslash-escaped in CommonMark; all are, so none is markup. */
function markdownText(text: string): string {
  return (
    text
      .replace(/[!-/:-@[-`{-~]/g, (character) => `\\${character}`)
      .split(/\r?\n/)
      // A continuation line indented would start a code block (Markdown) or a list (wiki).
      .map((line, index) => (index === 0 ? line : line.trimStart()))
      .join('\\\n')
  );
}

/** A fence longer than any run of backticks in `text` (CommonMark: the closing fence is at least as long). */
function markdownFence(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function markdownInline(inline: Inline): string {
  if (inline.href === undefined) return markdownText(inline.text);
  // Pointy brackets: the destination may hold parentheses; our URLs hold no `<`, `>` or spaces.
  return `[${markdownText(inline.text)}](<${inline.href.replace(/[<>\s]/g, encodeURIComponent)}>)`;
}

function markdownBlock(block: Block): string {
  switch (block.type) {
    case 'heading':
      return `### ${markdownText(block.text)}`;
    case 'paragraph':
      return block.content.map(markdownInline).join('');
    case 'list':
      return block.items.map((item) => `- ${item.map(markdownInline).join('')}`).join('\n');
    case 'code': {
      const fence = markdownFence(block.text);
      return `${fence}\n${block.text}\n${fence}`;
    }
  }
}

export function toMarkdown(blocks: readonly Block[]): string {
  return blocks.map(markdownBlock).join('\n\n');
}

// ---------------------------------------------------------------------------------------------
// Atlassian Document Format (Jira Cloud, REST API v3)

interface AdfNode {
  type: string;
  attrs?: Record<string, unknown>;
  content?: AdfNode[];
  text?: string;
  marks?: { type: string; attrs?: Record<string, unknown> }[];
}

/** ADF's text nodes must not be empty: empty runs are left out. */
function adfInline(inline: Inline): AdfNode[] {
  if (inline.text === '') return [];
  return [
    { type: 'text', text: inline.text, ...(inline.href !== undefined && { marks: [{ type: 'link', attrs: { href: inline.href } }] }) },
  ];
}

/** A run of text with its line breaks as ADF's `hardBreak` nodes. */
function adfRuns(content: readonly Inline[]): AdfNode[] {
  return content.flatMap((inline) =>
    inline.text
      .split(/\r?\n/)
      .flatMap((line, index) => [...(index > 0 ? [{ type: 'hardBreak' }] : []), ...adfInline({ ...inline, text: line })]),
  );
}

function adfBlock(block: Block): AdfNode {
  switch (block.type) {
    case 'heading':
      return { type: 'heading', attrs: { level: 3 }, content: adfInline({ text: block.text }) };
    case 'paragraph':
      return { type: 'paragraph', content: adfRuns(block.content) };
    case 'list':
      return {
        type: 'bulletList',
        content: block.items.map((item) => ({ type: 'listItem', content: [{ type: 'paragraph', content: adfRuns(item) }] })),
      };
    case 'code':
      // A code block's text is text, never markup: nothing in it needs escaping.
      return { type: 'codeBlock', content: adfInline({ text: block.text }) };
  }
}

export function toAdf(blocks: readonly Block[]): AdfNode & { version: 1 } {
  return { version: 1, type: 'doc', content: blocks.map(adfBlock) };
}

// ---------------------------------------------------------------------------------------------
// Jira wiki markup (Jira Data Center, REST API v2)

/** The characters wiki markup gives a meaning, backslash-escaped (Jira's text effects, links, macros, mentions). */
function wikiText(text: string): string {
  return (
    text
      .replace(/[\\*_?\-+^~{}[\]|!#@()]/g, (character) => `\\${character}`)
      .split(/\r?\n/)
      // A continuation line indented would start a code block (Markdown) or a list (wiki).
      .map((line, index) => (index === 0 ? line : line.trimStart()))
      .join('\\\\\n')
  );
}

function wikiInline(inline: Inline): string {
  if (inline.href === undefined) return wikiText(inline.text);
  return `[${wikiText(inline.text)}|${inline.href.replace(/[|\]\s]/g, encodeURIComponent)}]`;
}

/**
 * A `{code}` block ends at the next `{code`, and nothing inside it is an escape: a ZERO WIDTH SPACE
 * after each `{` of a `{code` or `{noformat` in the snippet keeps the block whole (the text reads
 * the same).
 */
function wikiCode(text: string): string {
  return text.replace(/\{(?=code|noformat)/gi, '{\u200b');
}

function wikiBlock(block: Block): string {
  switch (block.type) {
    case 'heading':
      return `h3. ${wikiText(block.text)}`;
    case 'paragraph':
      return block.content.map(wikiInline).join('');
    case 'list':
      return block.items.map((item) => `* ${item.map(wikiInline).join('')}`).join('\n');
    case 'code':
      return `{code}\n${wikiCode(block.text)}\n{code}`;
  }
}

export function toWiki(blocks: readonly Block[]): string {
  return blocks.map(wikiBlock).join('\n\n');
}
