import { describe, expect, it } from 'vitest';
import {
  badgeMarkdown,
  branchLabel,
  defaultBranch,
  pageOf,
  projectQueryString,
  trendBranch,
  trendSummary,
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
    expect(projectQueryString({ trend: 'main', axis: 'run' })).toBe('?trend=main&axis=run');
    expect(projectQueryString({ axis: 'time' })).toBe('');
  });
});

describe('the trend’s branch', () => {
  const branches = [
    { name: 'feature', report_count: 9 },
    { name: 'main', report_count: 2 },
    { name: null, report_count: 4 },
  ];

  it('is the one in the URL when the project has it', () => {
    expect(trendBranch(branches, 'feature')).toBe('feature');
    expect(trendBranch(branches, '')).toBeNull();
  });

  it('else the default branch', () => {
    expect(trendBranch(branches, 'gone')).toBe('main');
    expect(trendBranch(branches, undefined)).toBe('main');
    expect(trendBranch([], 'main')).toBeUndefined();
  });

  it('names the reports without a branch in words', () => {
    expect(branchLabel(null)).toBe('(no branch)');
    expect(branchLabel('main')).toBe('main');
  });
});

describe('the default branch', () => {
  it('is main when it has reports, whatever uploaded last and whichever has more', () => {
    expect(
      defaultBranch([
        { name: 'release/2.0', report_count: 1 },
        { name: 'master', report_count: 30 },
        { name: 'main', report_count: 3 },
      ]),
    ).toBe('main');
  });

  it('else master', () => {
    expect(
      defaultBranch([
        { name: 'release/2.0', report_count: 12 },
        { name: 'master', report_count: 3 },
      ]),
    ).toBe('master');
  });

  it('else the branch with the most reports, the reports without a branch included', () => {
    expect(
      defaultBranch([
        { name: 'release/2.0', report_count: 1 },
        { name: 'develop', report_count: 7 },
        { name: 'feature/x', report_count: 3 },
      ]),
    ).toBe('develop');
    expect(
      defaultBranch([
        { name: 'develop', report_count: 2 },
        { name: null, report_count: 5 },
      ]),
    ).toBeNull();
  });

  it('of branches with as many reports, the first listed: the newest latest report', () => {
    expect(
      defaultBranch([
        { name: 'b', report_count: 4 },
        { name: 'a', report_count: 4 },
      ]),
    ).toBe('b');
  });

  it('matches names exactly: Main and main-old are other branches', () => {
    expect(
      defaultBranch([
        { name: 'Main', report_count: 1 },
        { name: 'main-old', report_count: 1 },
        { name: 'develop', report_count: 2 },
      ]),
    ).toBe('develop');
  });

  it('is undefined for a project without reports', () => {
    expect(defaultBranch([])).toBeUndefined();
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
