/**
 * The report page's issue lists (issue 31): every issue, the new ones or the suppressed ones,
 * flattened with the analyzer that found them, searched across message, file and analyzer, sorted
 * and grouped by severity, file or analyzer. Free of Preact so it is unit-tested; a report of
 * 4,000 issues is searched on each (debounced) keystroke, so each entry carries its search text, lowercased once.
 */
import { SEVERITIES, type Severity } from '../../../src/reports/vocabulary.js';
import type { StateLike } from './issue-triage.js';

export const ISSUE_LISTS = ['issues', 'new', 'suppressed'] as const;
export type IssueListKind = (typeof ISSUE_LISTS)[number];

export const GROUPINGS = ['severity', 'file', 'analyzer'] as const;
export type Grouping = (typeof GROUPINGS)[number];

interface IssueShape<Snippet> {
  message: string;
  severity: Severity;
  location: { file: string; line?: number } | null;
  recommendation: string;
  code_snippet?: Snippet;
  fingerprint?: string;
  change?: 'new' | 'unchanged' | null;
  suppression?: Record<string, unknown>;
  /** E8.3: what a person decided about the issue. */
  state?: StateLike | null;
}

interface ResultShape<Snippet> {
  analyzer_id: string;
  analyzer_name: string;
  issues: readonly IssueShape<Snippet>[];
  suppressed_issues?: readonly IssueShape<Snippet>[];
}

export interface IssueEntry<Snippet = unknown> {
  /** Unique within the list: the fingerprint where there is one, else the analyzer and the position. */
  key: string;
  message: string;
  severity: Severity;
  file: string | null;
  line: number | null;
  analyzerId: string;
  analyzerName: string;
  recommendation: string;
  snippet: Snippet | null;
  change: 'new' | 'unchanged' | null;
  /** E1.2's fingerprint (null for a suppressed issue, which has none). */
  fingerprint: string | null;
  /** E8.3's state as the report holds it (null: nobody decided, or none shown). */
  state: StateLike | null;
  /** Why the client suppressed it (`config: path: app/…`), for the suppressed list only. */
  suppression: string | null;
  /** Message, file and analyzer, lowercased: what a search looks in. */
  haystack: string;
}

/** The issues a list shows: all of them, those new against the baseline, or those the client suppressed. */
export function issueEntries<Snippet>(results: readonly ResultShape<Snippet>[], kind: IssueListKind): IssueEntry<Snippet>[] {
  const entries: IssueEntry<Snippet>[] = [];
  for (const result of results) {
    const issues = kind === 'suppressed' ? (result.suppressed_issues ?? []) : result.issues;
    issues.forEach((issue, index) => {
      if (kind === 'new' && issue.change !== 'new') return;
      const file = issue.location?.file ?? null;
      entries.push({
        key: `${result.analyzer_id}:${issue.fingerprint ?? index}`,
        message: issue.message,
        severity: issue.severity,
        file,
        line: issue.location?.line ?? null,
        analyzerId: result.analyzer_id,
        analyzerName: result.analyzer_name,
        recommendation: issue.recommendation,
        snippet: issue.code_snippet ?? null,
        change: issue.change ?? null,
        fingerprint: issue.fingerprint ?? null,
        state: issue.state ?? null,
        suppression: kind === 'suppressed' ? suppressionText(issue.suppression) : null,
        haystack: [issue.message, file ?? '', result.analyzer_name, result.analyzer_id].join('\n').toLowerCase(),
      });
    });
  }
  return entries;
}

/** `config: path: app/…` from the client's `{type, description}`; whatever else it holds is left out. */
function suppressionText(suppression: Record<string, unknown> | undefined): string | null {
  const type = typeof suppression?.type === 'string' ? suppression.type : null;
  const description = typeof suppression?.description === 'string' ? suppression.description : null;
  if (type && description) return `${type}: ${description}`;
  return type ?? description;
}

/** The entries whose message, file or analyzer hold every word of `query` (any case, any order); all of them for a blank query. */
export function searchEntries<Entry extends { haystack: string }>(entries: readonly Entry[], query: string): readonly Entry[] {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  if (words.length === 0) return entries;
  return entries.filter((entry) => words.every((word) => entry.haystack.includes(word)));
}

/** What an entry is grouped under: its severity, its file (`''` without one) or its analyzer's name. */
export function groupKey(entry: IssueEntry<unknown>, grouping: Grouping): string {
  if (grouping === 'severity') return entry.severity;
  if (grouping === 'file') return entry.file ?? '';
  return entry.analyzerName;
}

/**
 * Sorted for `grouping`, so that a group's entries are consecutive: by the group (severities most
 * severe first, files and analyzers by name, the issues without a file last), then by severity,
 * file, line and analyzer, a stable order across reloads.
 */
export function sortEntries<Entry extends IssueEntry<unknown>>(entries: readonly Entry[], grouping: Grouping): Entry[] {
  const byGroup = (a: Entry, b: Entry): number => {
    if (grouping === 'severity') return 0;
    const [x, y] = [groupKey(a, grouping), groupKey(b, grouping)];
    if (x === y) return 0;
    if (x === '') return 1;
    if (y === '') return -1;
    return compareText(x, y);
  };
  return [...entries].sort(
    (a, b) =>
      byGroup(a, b) ||
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      compareText(a.file ?? '', b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      compareText(a.analyzerId, b.analyzerId),
  );
}

/** How many of `entries` each group holds, so that a group split across pages still shows its whole count. */
export function groupSizes(entries: readonly IssueEntry<unknown>[], grouping: Grouping): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const entry of entries) {
    const key = groupKey(entry, grouping);
    sizes.set(key, (sizes.get(key) ?? 0) + 1);
  }
  return sizes;
}

/** Consecutive entries of one group (a page of sorted entries), each group once per page. */
export function groupsOf<Entry extends IssueEntry<unknown>>(rows: readonly Entry[], grouping: Grouping): { key: string; rows: Entry[] }[] {
  const groups: { key: string; rows: Entry[] }[] = [];
  for (const row of rows) {
    const key = groupKey(row, grouping);
    const last = groups[groups.length - 1];
    if (last?.key === key) last.rows.push(row);
    else groups.push({ key, rows: [row] });
  }
  return groups;
}

/**
 * A path cut after each `/`: the page puts a line-break opportunity there, so a long path wraps
 * between directories (`app/Http/` | `Controllers/UserController.php`), never inside a name.
 */
export function pathSegments(path: string): string[] {
  return path.match(/[^/]*\/|[^/]+$/g) ?? [path];
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
