/**
 * The report page's pure logic: results grouped by category and filtered by status, snippet lines with the target marked, the
 * maths of client-side pages, and the page's query string. Kept free of Preact so it is unit-tested.
 */

import type { Severity } from '../../../src/reports/vocabulary.js';

export { CHANGE_KINDS, type ChangeKind, SEVERITIES, type Severity } from '../../../src/reports/vocabulary.js';

export const RESULT_STATUSES = ['failed', 'error', 'warning', 'skipped', 'passed'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

/** The fields of a result and its issues this module reads (a subset of the API's ReportResult). */
export interface ResultLike<Issue extends IssueLike = IssueLike> {
  analyzer_id: string;
  analyzer_name: string;
  category: string | null;
  status: ResultStatus;
  issues: Issue[];
}

export interface IssueLike {
  severity: Severity;
  fingerprint: string;
  location: { file: string; line?: number } | null;
}

/** How many results have each status (every status present, zero when none). */
export function countByStatus(results: readonly { status: ResultStatus }[]): Record<ResultStatus, number> {
  const counts = Object.fromEntries(RESULT_STATUSES.map((status) => [status, 0])) as Record<ResultStatus, number>;
  for (const result of results) counts[result.status] += 1;
  return counts;
}

/** The name the page gives a result without a category. */
export const UNCATEGORISED = 'Other';

/**
 * Results with `status` (all when null), grouped by category: categories by name (the uncategorised
 * last), and within one the failing first (the status order above), then by analyzer name.
 */
export function resultsByCategory<Result extends ResultLike>(
  results: readonly Result[],
  status: ResultStatus | null,
): { category: string; results: Result[] }[] {
  const groups = new Map<string, Result[]>();
  for (const result of results) {
    if (status !== null && result.status !== status) continue;
    const category = result.category ?? UNCATEGORISED;
    const group = groups.get(category);
    if (group) group.push(result);
    else groups.set(category, [result]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === UNCATEGORISED ? 1 : b === UNCATEGORISED ? -1 : compareText(a, b)))
    .map(([category, members]) => ({
      category,
      results: members.sort(
        (a, b) => RESULT_STATUSES.indexOf(a.status) - RESULT_STATUSES.indexOf(b.status) || compareText(a.analyzer_name, b.analyzer_name),
      ),
    }));
}

/** `sql-injection` or `best_practices` as a heading: "Sql injection", "Best practices". */
export function categoryLabel(category: string): string {
  const words = category.replace(/[-_]+/g, ' ').trim();
  return words === '' ? UNCATEGORISED : words.charAt(0).toUpperCase() + words.slice(1);
}

export interface SnippetLine {
  number: number;
  text: string;
  target: boolean;
}

/** A code snippet's lines in line order (its `lines` is an object keyed by line number, as JSON), the target line marked. */
export function snippetLines(lines: Readonly<Record<string, string>>, targetLine: number | null | undefined): SnippetLine[] {
  return Object.entries(lines)
    .map(([key, text]) => ({ number: Number(key), text }))
    .filter((line) => Number.isInteger(line.number))
    .sort((a, b) => a.number - b.number)
    .map((line) => ({ ...line, target: line.number === targetLine }));
}

export type SnippetLanguage = 'php' | 'blade';

/** How a snippet's file is highlighted: Blade for `*.blade.php`, PHP for other `*.php`, none for anything else. */
export function snippetLanguage(file: string | null | undefined): SnippetLanguage | null {
  const name = (file ?? '').toLowerCase();
  if (name.endsWith('.blade.php')) return 'blade';
  return name.endsWith('.php') ? 'php' : null;
}

/** `app/Http/Kernel.php:37`, or the file alone without a line, or null without a location. */
export function fileAndLine(location: { file: string; line?: number } | null): string | null {
  if (location === null) return null;
  return location.line === undefined ? location.file : `${location.file}:${location.line}`;
}

export interface PageSlice<T> {
  items: T[];
  /** The page shown: the one asked for, brought inside 1..lastPage. */
  page: number;
  lastPage: number;
  /** 1-based positions of the first and last items shown; 0 and 0 when there are none. */
  from: number;
  to: number;
  total: number;
}

/** One page of `items`, `perPage` a page; a page past the end shows the last one. */
export function pageOf<T>(items: readonly T[], page: number, perPage: number): PageSlice<T> {
  const lastPage = Math.max(1, Math.ceil(items.length / perPage));
  const current = Math.min(Math.max(1, Math.floor(page) || 1), lastPage);
  const start = (current - 1) * perPage;
  const shown = items.slice(start, start + perPage);
  return {
    items: shown,
    page: current,
    lastPage,
    from: shown.length === 0 ? 0 : start + 1,
    to: start + shown.length,
    total: items.length,
  };
}

/** A page number from the query string: a positive integer, 1 otherwise. */
export function pageParam(value: string | undefined): number {
  const page = Number.parseInt(value ?? '', 10);
  return Number.isInteger(page) && page > 0 ? page : 1;
}

/** A query string value when it is one of `allowed`, null otherwise (an old or hand-edited URL shows everything). */
export function choiceParam<T extends string>(value: string | undefined, allowed: readonly T[]): T | null {
  return allowed.find((choice) => choice === value) ?? null;
}

/**
 * The page's URL with some query parameters changed: null or '' removes one, and page 1 is left out
 * (so the plain URL and `?page=1` are the same page). The others keep their order.
 */
export function withQuery(
  path: string,
  current: Readonly<Record<string, string>>,
  changes: Readonly<Record<string, string | number | null>>,
): string {
  const params = new URLSearchParams();
  const merged: Record<string, string | number | null> = { ...current, ...changes };
  for (const [name, value] of Object.entries(merged)) {
    if (value === null || value === '') continue;
    if (name.endsWith('page') && String(value) === '1') continue;
    params.set(name, String(value));
  }
  const query = params.toString();
  return query === '' ? path : `${path}?${query}`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
