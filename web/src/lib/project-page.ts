import type { components } from '../api/schema.js';

type Schemas = components['schemas'];
type TrendPoint = Schemas['TrendPoint'];

/** E6's event names, in the order the create form offers them: the service's own list. */
export { WEBHOOK_EVENTS } from '../../../src/webhooks/webhook-event-names.js';

/** The page number in the URL (`?page=3`): a whole number from 1, anything else is page 1. */
export function pageOf(value: string | undefined): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/**
 * The project page's state in its URL, so that reload and back keep it: the trend's branch, the
 * report list's branch filter and page. `undefined` leaves a value out; an empty branch is kept
 * (it means the reports without a branch, as in the API).
 */
export interface ProjectQuery {
  trend?: string | undefined;
  branch?: string | undefined;
  page?: number | undefined;
}

export function projectQueryString(query: ProjectQuery): string {
  const search = new URLSearchParams();
  if (query.trend !== undefined) search.set('trend', query.trend);
  if (query.branch !== undefined) search.set('branch', query.branch);
  if (query.page !== undefined && query.page > 1) search.set('page', String(query.page));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * Which branch the trend shows: the one in the URL when the project has it, else the first branch,
 * which is the latest report's (the API lists branches by their latest report, newest first).
 * `null` is the reports without a branch; `undefined`: the project has no branch at all.
 */
export function trendBranch(branches: readonly { name: string | null }[], fromUrl: string | undefined): string | null | undefined {
  const names = branches.map((branch) => branch.name);
  const wanted = fromUrl === undefined ? undefined : fromUrl === '' ? null : fromUrl;
  if (wanted !== undefined && names.includes(wanted)) return wanted;
  return names.length > 0 ? names[0] : undefined;
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

/** The narrowest time axis the trend chart draws, in seconds: two days. */
export const TREND_MIN_SPAN = 2 * 24 * 60 * 60;

/**
 * The trend chart's time axis for reports from `min` to `max` (seconds): as they are, or widened
 * around them to two days when they are closer than that. Runs minutes apart (or a lone run) would
 * otherwise get an axis of seconds or fractions of one (uPlot pads a lone time by 86,400,000).
 */
export function trendTimeRange(min: number, max: number): [number, number] {
  const pad = Math.max(0, TREND_MIN_SPAN - (max - min)) / 2;
  return [min - pad, max + pad];
}
