import { describe, expect, it } from 'vitest';
import {
  badgeMarkdown,
  branchLabel,
  pageOf,
  projectQueryString,
  TREND_MIN_SPAN,
  trendBranch,
  trendSummary,
  trendTimeRange,
} from '../../web/src/lib/project-page.js';

describe('the project page’s URL state', () => {
  it('reads the page number, page 1 for anything that is not a whole number from 1', () => {
    expect(pageOf('3')).toBe(3);
    for (const value of [undefined, '', '0', '-2', '1.5', 'two']) expect(pageOf(value)).toBe(1);
  });

  it('writes only what differs from the defaults, and keeps an empty branch (the reports without one)', () => {
    expect(projectQueryString({})).toBe('');
    expect(projectQueryString({ page: 1 })).toBe('');
    expect(projectQueryString({ trend: 'main', branch: '', page: 2 })).toBe('?trend=main&branch=&page=2');
    expect(projectQueryString({ branch: 'feature/a b' })).toBe('?branch=feature%2Fa+b');
  });
});

describe('the trend’s branch', () => {
  const branches = [{ name: 'feature' }, { name: 'main' }, { name: null }];

  it('is the one in the URL when the project has it', () => {
    expect(trendBranch(branches, 'main')).toBe('main');
    expect(trendBranch(branches, '')).toBeNull();
  });

  it('else the first, the latest report’s (the API lists branches newest first)', () => {
    expect(trendBranch(branches, 'gone')).toBe('feature');
    expect(trendBranch(branches, undefined)).toBe('feature');
    expect(trendBranch([], 'main')).toBeUndefined();
  });

  it('names the reports without a branch in words', () => {
    expect(branchLabel(null)).toBe('(no branch)');
    expect(branchLabel('main')).toBe('main');
  });
});

describe('badges and the chart’s text', () => {
  it('gives the Markdown of each badge', () => {
    expect(badgeMarkdown({ score_svg: 'https://s.example/b/k/score.svg', gate_svg: 'https://s.example/b/k/gate.svg' })).toEqual({
      score: '![Score](https://s.example/b/k/score.svg)',
      gate: '![Quality gate](https://s.example/b/k/gate.svg)',
    });
  });

  it('sums up the points in words', () => {
    expect(trendSummary([])).toBe('No reports on this branch yet.');
    expect(trendSummary([{ score: 80 }])).toBe('One report, score 80.');
    expect(trendSummary([{ score: 70 }, { score: 60 }, { score: 90 }])).toBe(
      '3 reports, oldest first: the score went from 70 to 90 (up); lowest 60, highest 90.',
    );
  });
});

describe('the trend chart’s time axis', () => {
  it('keeps a span of two days or more as it is', () => {
    expect(trendTimeRange(1_000, 1_000 + TREND_MIN_SPAN)).toEqual([1_000, 1_000 + TREND_MIN_SPAN]);
    expect(trendTimeRange(0, 30 * 86_400)).toEqual([0, 30 * 86_400]);
  });

  it('widens a lone run, or runs seconds apart, to two days around them', () => {
    expect(trendTimeRange(500_000, 500_000)).toEqual([500_000 - 86_400, 500_000 + 86_400]);
    expect(trendTimeRange(500_000, 500_002)).toEqual([500_001 - 86_400, 500_001 + 86_400]);
  });
});
