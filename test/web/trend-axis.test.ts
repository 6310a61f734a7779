import { describe, expect, it } from 'vitest';
import {
  nextPoint,
  shortCommit,
  TREND_MIN_SPAN,
  tooltipPlacement,
  trendAxisOf,
  trendRunGaps,
  trendRunLabels,
  trendRunRange,
  trendRunSplits,
  trendTimeRange,
  trendXRange,
  trendXValues,
} from '../../web/src/lib/trend-axis.js';

const DAY = 86_400;

/** A six-month gap, then seven runs in one week: the case a time axis squeezes into a few pixels. */
const GAP_THEN_WEEK = [
  '2026-03-02T09:00:00Z',
  '2026-09-01T09:00:00Z',
  '2026-09-02T09:00:00Z',
  '2026-09-03T09:00:00Z',
  '2026-09-04T09:00:00Z',
  '2026-09-05T09:00:00Z',
  '2026-09-06T09:00:00Z',
  '2026-09-07T09:00:00Z',
];

describe('the time axis', () => {
  it('is the reports’ own range when they span two days or more: never past the first or last report', () => {
    expect(trendTimeRange(1_000, 1_000 + TREND_MIN_SPAN)).toEqual([1_000, 1_000 + TREND_MIN_SPAN]);
    const xs = trendXValues(GAP_THEN_WEEK, 'time');
    expect(trendTimeRange(Math.min(...xs), Math.max(...xs))).toEqual([
      Date.parse(GAP_THEN_WEEK[0]!) / 1000,
      Date.parse(GAP_THEN_WEEK[7]!) / 1000,
    ]);
  });

  it('centres a lone run in two days around it, not years into the future', () => {
    const at = Date.parse('2027-02-10T12:00:00Z') / 1000;
    const [from, to] = trendTimeRange(at, at);
    expect([from, to]).toEqual([at - DAY, at + DAY]);
    expect((from + to) / 2).toBe(at);
  });

  it('is taken from the points themselves, on either axis', () => {
    const at = Date.parse('2027-02-10T12:00:00Z') / 1000;
    expect(trendXRange([at], 'time')).toEqual([at - DAY, at + DAY]);
    const xs = trendXValues(GAP_THEN_WEEK, 'time');
    expect(trendXRange(xs, 'time')).toEqual([xs[0], xs[7]]);
    expect(trendXRange([0], 'run')).toEqual([-1, 1]);
    expect(trendXRange(trendXValues(GAP_THEN_WEEK, 'run'), 'run')).toEqual([-0.5, 7.5]);
  });

  it('widens runs seconds apart to two days around their middle', () => {
    expect(trendTimeRange(500_000, 500_002)).toEqual([500_001 - DAY, 500_001 + DAY]);
  });

  it('places each run at its time in seconds', () => {
    expect(trendXValues(['1970-01-02T00:00:00Z', '1970-01-03T00:00:00.500Z'], 'time')).toEqual([DAY, 2 * DAY + 0.5]);
  });
});

describe('the runs axis', () => {
  it('places the runs one step apart, whatever the time between them', () => {
    expect(trendXValues(GAP_THEN_WEEK, 'run')).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('keeps half a step around the runs, and a lone run in the middle', () => {
    expect(trendRunRange(8)).toEqual([-0.5, 7.5]);
    expect(trendRunRange(1)).toEqual([-1, 1]);
  });

  it('labels every run when there is room, else every n-th, always the last', () => {
    expect(trendRunSplits(8, 1000, 60)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // 300 px for 8 runs at 60 px a label: every second run, and the last.
    expect(trendRunSplits(8, 300, 60)).toEqual([0, 2, 4, 7]);
    expect(trendRunSplits(60, 300, 60)).toEqual([0, 12, 24, 36, 59]);
    expect(trendRunSplits(1, 300, 60)).toEqual([0]);
    expect(trendRunSplits(0, 300, 60)).toEqual([]);
    // Narrower than a label: the first and the last.
    expect(trendRunSplits(3, 10, 60)).toEqual([0, 2]);
  });

  it('labels the runs by their day, with the year on the first label and where it changes', () => {
    const times = ['2025-12-30T12:00:00Z', '2026-03-02T12:00:00Z', '2026-03-03T12:00:00Z'];
    expect(trendRunLabels(times, [0, 1, 2], 'en-GB')).toEqual(['30 Dec\n2025', '2 Mar\n2026', '3 Mar']);
    expect(trendRunLabels(GAP_THEN_WEEK, [0, 2, 4, 7], 'en-GB')).toEqual(['2 Mar\n2026', '2 Sept', '4 Sept', '7 Sept']);
  });

  it('marks the pauses of 30 days or more between two runs, in words', () => {
    expect(trendRunGaps(GAP_THEN_WEEK)).toEqual([{ after: 0, label: '6 months' }]);
    expect(trendRunGaps(['2026-01-01T00:00:00Z', '2026-01-30T00:00:00Z', '2026-03-16T00:00:00Z', '2029-03-16T00:00:00Z'])).toEqual([
      { after: 1, label: '45 days' },
      { after: 2, label: '3 years' },
    ]);
    expect(trendRunGaps(GAP_THEN_WEEK.slice(1))).toEqual([]);
    expect(trendRunGaps([])).toEqual([]);
  });

  it('is chosen in the URL by axis=run, time otherwise', () => {
    expect(trendAxisOf('run')).toBe('run');
    for (const value of [undefined, '', 'time', 'RUN']) expect(trendAxisOf(value)).toBe('time');
  });
});

describe('the tooltip', () => {
  it('shortens a commit to seven characters', () => {
    expect(shortCommit('9fceb02d0ae598e95dc970b74767f19372d61af8')).toBe('9fceb02');
    expect(shortCommit(null)).toBeNull();
  });

  it('goes through the points with the arrow keys, Home and End, starting from the latest', () => {
    expect(nextPoint('ArrowLeft', null, 5)).toBe(4);
    expect(nextPoint('ArrowRight', null, 5)).toBe(4);
    expect(nextPoint('ArrowLeft', 2, 5)).toBe(1);
    expect(nextPoint('ArrowLeft', 0, 5)).toBe(0);
    expect(nextPoint('ArrowRight', 4, 5)).toBe(4);
    expect(nextPoint('Home', 3, 5)).toBe(0);
    expect(nextPoint('End', 0, 5)).toBe(4);
    expect(nextPoint('Enter', 0, 5)).toBeUndefined();
    expect(nextPoint('ArrowLeft', null, 0)).toBeUndefined();
  });
});

describe('the tooltip’s place', () => {
  it('is centred over its point, starts or ends at it near a side, goes under it near the top', () => {
    expect(tooltipPlacement(400, 200, 800)).toEqual({ align: 'middle', below: false });
    expect(tooltipPlacement(30, 200, 800)).toEqual({ align: 'start', below: false });
    expect(tooltipPlacement(780, 200, 800)).toEqual({ align: 'end', below: false });
    expect(tooltipPlacement(400, 40, 800)).toEqual({ align: 'middle', below: true });
  });
});
