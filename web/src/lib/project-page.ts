import type { components } from '../api/schema.js';
import type { TrendAxis } from './trend-axis.js';

type Schemas = components['schemas'];
type TrendPoint = Schemas['TrendPoint'];

/** E6's event names, in the order the create form offers them: the service's own list. */
export { WEBHOOK_EVENTS } from '../../../src/webhooks/webhook-event-names.js';
/** E11.5's formats and their names, the service's own list. */
export { WEBHOOK_FORMATS, WEBHOOK_FORMAT_LABELS } from '../../../src/webhooks/webhook-formats.js';

/** The page number in the URL (`?page=3`): a whole number from 1, anything else is page 1. */
export function pageOf(value: string | undefined): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/**
 * The project page's state in its URL, so that reload and back keep it: the trend's branch and
 * axis (time, the default, is left out), the report list's branch filter and page. `undefined`
 * leaves a value out; an empty branch is kept (it means the reports without a branch, as in the API).
 */
export interface ProjectQuery {
  trend?: string | undefined;
  axis?: TrendAxis | undefined;
  branch?: string | undefined;
  page?: number | undefined;
}

export function projectQueryString(query: ProjectQuery): string {
  const search = new URLSearchParams();
  if (query.trend !== undefined) search.set('trend', query.trend);
  if (query.axis === 'run') search.set('axis', query.axis);
  if (query.branch !== undefined) search.set('branch', query.branch);
  if (query.page !== undefined && query.page > 1) search.set('page', String(query.page));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** The branches a project is most likely to call its default, in the order they are preferred. */
export const DEFAULT_BRANCH_NAMES = ['main', 'master'] as const;

/**
 * The branch the trend opens on: `main` or `master` when it has reports, else the branch with the
 * most reports; of branches with as many, the one whose latest report is newest (the API lists
 * branches by their latest report, newest first). Not the branch that uploaded last: a release
 * branch's one run would hide the main line. `undefined`: the project has no branch at all.
 * `report_count` comes with `GET .../branches?include=report_count`.
 */
export function defaultBranch(branches: readonly BranchCount[]): string | null | undefined {
  for (const name of DEFAULT_BRANCH_NAMES) if (branches.some((branch) => branch.name === name)) return name;
  let most: BranchCount | undefined;
  for (const branch of branches) if (most === undefined || (branch.report_count ?? 0) > (most.report_count ?? 0)) most = branch;
  return most?.name;
}

type BranchCount = { name: string | null; report_count?: number };

/**
 * Which branch the trend shows: the one in the URL when the project has it, else the default
 * branch (`defaultBranch`). `null` is the reports without a branch; `undefined`: the project has
 * no branch at all.
 */
export function trendBranch(branches: readonly BranchCount[], fromUrl: string | undefined): string | null | undefined {
  const wanted = fromUrl === undefined ? undefined : fromUrl === '' ? null : fromUrl;
  if (wanted !== undefined && branches.some((branch) => branch.name === wanted)) return wanted;
  return defaultBranch(branches);
}

/** A branch as people read it: the reports without one get words instead of nothing. */
export function branchLabel(name: string | null): string {
  return name ?? '(no branch)';
}

/** The Markdown of the project's two badges, for a README. */
export function badgeMarkdown(urls: { score_svg: string; gate_svg: string }): { score: string; gate: string } {
  return { score: `![Score](${urls.score_svg})`, gate: `![Quality gate](${urls.gate_svg})` };
}

/** What the trend chart draws, in one sentence for those who cannot see the canvas. */
export function trendSummary(points: readonly Pick<TrendPoint, 'score'>[]): string {
  if (points.length === 0) return 'No reports on this branch yet.';
  const scores = points.map((point) => point.score);
  const first = scores[0] as number;
  const last = scores[scores.length - 1] as number;
  if (scores.length === 1) return `One report, score ${last}.`;
  const direction = last > first ? 'up' : last < first ? 'down' : 'unchanged';
  return `${scores.length} reports, oldest first: the score went from ${first} to ${last} (${direction}); lowest ${Math.min(...scores)}, highest ${Math.max(...scores)}.`;
}
