/**
 * The trend chart's x-axis, as numbers (no uPlot here, so that it can be tested without a browser).
 * Two ways to place the runs: on a time axis, where a six-month gap takes the room it took, or
 * one step per run, where seven runs of one week are as readable as seven runs of seven months.
 */
export type TrendAxis = 'time' | 'run';

export const TREND_AXES: readonly TrendAxis[] = ['time', 'run'];

/** The axis named in the URL (`?axis=run`), time for anything else. */
export function trendAxisOf(value: string | undefined): TrendAxis {
  return value === 'run' ? 'run' : 'time';
}

/** The narrowest time axis the trend chart draws, in seconds: two days. */
export const TREND_MIN_SPAN = 2 * 24 * 60 * 60;

/**
 * The time axis for reports from `min` to `max` (seconds): as they are, so it never runs past the
 * first or the last report, or widened around them to two days when they are closer than that. A
 * lone run (or runs minutes apart) would otherwise get an axis of seconds, or uPlot's own padding
 * of a lone value, which runs years into the future.
 */
export function trendTimeRange(min: number, max: number): [number, number] {
  const pad = Math.max(0, TREND_MIN_SPAN - (max - min)) / 2;
  return [min - pad, max + pad];
}

/** The runs-axis for `count` runs placed at 0..count-1: half a step around them, a lone run in the middle. */
export function trendRunRange(count: number): [number, number] {
  return count <= 1 ? [-1, 1] : [-0.5, count - 0.5];
}

/**
 * The x-axis for points at `xs` (trendXValues), from the points themselves: uPlot hands a range
 * function a lone time already widened to one day after it, which would put the lone dot a quarter
 * of the way in rather than in the middle.
 */
export function trendXRange(xs: readonly number[], axis: TrendAxis): [number, number] {
  if (axis === 'run') return trendRunRange(xs.length);
  return trendTimeRange(Math.min(...xs), Math.max(...xs));
}

/** Each point's x: its time in seconds, or its place among the runs. */
export function trendXValues(times: readonly string[], axis: TrendAxis): number[] {
  return axis === 'time' ? times.map((time) => Date.parse(time) / 1000) : times.map((_, index) => index);
}

/**
 * The runs that get a label on the runs-axis, `space` pixels apart at least on a plot `width`
 * pixels wide: every run when there is room, else every second, third… run. The last run is always
 * labelled (it is the one people look for), in place of a label too close before it.
 */
export function trendRunSplits(count: number, width: number, space: number): number[] {
  if (count <= 0) return [];
  const step = Math.max(1, Math.ceil((count * space) / Math.max(width, space)));
  const splits: number[] = [];
  for (let index = 0; index < count; index += step) splits.push(index);
  const last = count - 1;
  if (splits[splits.length - 1] !== last) {
    if (splits.length > 1 && last - (splits[splits.length - 1] as number) < step) splits.pop();
    splits.push(last);
  }
  return splits;
}

/**
 * The labels of the runs-axis: the day of each labelled run, with its year on a second line for
 * the first label and wherever the year changes from the label before (after a long gap).
 */
export function trendRunLabels(times: readonly string[], splits: readonly number[], locale?: string): string[] {
  let year: number | undefined;
  return splits.map((index) => {
    const time = times[index];
    if (time === undefined) return '';
    const date = new Date(time);
    const day = date.toLocaleDateString(locale, { day: 'numeric', month: 'short' });
    const changed = date.getFullYear() !== year;
    year = date.getFullYear();
    return changed ? `${day}\n${year}` : day;
  });
}

/** A commit as people quote it: its first seven characters. */
export function shortCommit(commit: string | null): string | null {
  return commit === null ? null : commit.slice(0, 7);
}

/** The point next to `current` that an arrow key, Home or End picks among `count` points; `undefined` for any other key. */
export function nextPoint(key: string, current: number | null, count: number): number | undefined {
  if (count === 0) return undefined;
  const last = count - 1;
  switch (key) {
    case 'ArrowLeft':
      return current === null ? last : Math.max(0, current - 1);
    case 'ArrowRight':
      return current === null ? last : Math.min(last, current + 1);
    case 'Home':
      return 0;
    case 'End':
      return last;
    default:
      return undefined;
  }
}

/** How far from the plot's sides (CSS pixels) a tooltip is no longer centred over its point. */
const TOOLTIP_HALF_WIDTH = 100;
/** How far from the top a tooltip goes under its point instead of above it. */
const TOOLTIP_HEIGHT = 110;

/**
 * Where the tooltip of a point at (`x`, `y`) in a chart `width` pixels wide goes: centred over the
 * point, or starting or ending at it near a side, so that it never leaves the chart (nor makes a
 * phone's page scroll sideways); under the point when there is no room above.
 */
export function tooltipPlacement(x: number, y: number, width: number): { align: 'start' | 'middle' | 'end'; below: boolean } {
  const align = x < TOOLTIP_HALF_WIDTH ? 'start' : x > width - TOOLTIP_HALF_WIDTH ? 'end' : 'middle';
  return { align, below: y < TOOLTIP_HEIGHT };
}

/** A pause between two runs long enough to be marked on the runs-axis, in days. */
export const TREND_GAP_DAYS = 30;

/**
 * The long pauses the runs-axis would hide (one step per run, whatever the time between): after
 * which run each comes, and its length in words, to be marked between the two runs.
 */
export function trendRunGaps(times: readonly string[], minDays = TREND_GAP_DAYS): { after: number; label: string }[] {
  const gaps: { after: number; label: string }[] = [];
  for (let index = 1; index < times.length; index++) {
    const days = (Date.parse(times[index] as string) - Date.parse(times[index - 1] as string)) / 86_400_000;
    if (days >= minDays) gaps.push({ after: index - 1, label: gapLabel(days) });
  }
  return gaps;
}

function gapLabel(days: number): string {
  if (days < 60) return `${Math.round(days)} days`;
  const months = Math.round(days / 30.44);
  return months < 24 ? `${months} months` : `${Math.round(days / 365.25)} years`;
}
