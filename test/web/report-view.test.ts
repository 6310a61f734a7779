import { describe, expect, it } from 'vitest';
import {
  categoryLabel,
  choiceParam,
  countByStatus,
  fileAndLine,
  type IssueLike,
  pageOf,
  pageParam,
  type ResultLike,
  resultsByCategory,
  SEVERITIES,
  snippetLanguage,
  snippetLines,
  withQuery,
} from '../../web/src/lib/report-view.js';

function result(id: string, status: ResultLike['status'], category: string | null, issues: IssueLike[] = []): ResultLike {
  return { analyzer_id: id, analyzer_name: id.toUpperCase(), category, status, issues };
}

describe('the report page’s vocabulary', () => {
  it('knows the five severities in order', () => {
    expect(SEVERITIES).toEqual(['critical', 'high', 'medium', 'low', 'info']);
  });

  it('highlights Blade templates as Blade, other PHP files as PHP, anything else not at all', () => {
    expect(snippetLanguage('resources/views/orders/index.blade.php')).toBe('blade');
    expect(snippetLanguage('app/Http/Controllers/UserController.PHP')).toBe('php');
    expect(snippetLanguage('config/app.yaml')).toBeNull();
    expect(snippetLanguage(null)).toBeNull();
  });
});

describe('the report page’s results by category', () => {
  const results = [
    result('xss', 'passed', 'security'),
    result('sql', 'failed', 'security'),
    result('cache', 'warning', 'performance'),
    result('odd', 'error', null),
    result('csrf', 'failed', 'security'),
  ];

  it('groups by category by name, the uncategorised last, failing results first then by name', () => {
    const groups = resultsByCategory(results, null);
    expect(groups.map((group) => [group.category, group.results.map((member) => member.analyzer_id)])).toEqual([
      ['performance', ['cache']],
      ['security', ['csrf', 'sql', 'xss']],
      ['Other', ['odd']],
    ]);
  });

  it('keeps only the results of the chosen status, and no empty category', () => {
    expect(resultsByCategory(results, 'failed').map((group) => [group.category, group.results.length])).toEqual([['security', 2]]);
    expect(resultsByCategory(results, 'skipped')).toEqual([]);
  });

  it('counts the results of each status, zero for the absent ones', () => {
    expect(countByStatus(results)).toEqual({ failed: 2, error: 1, warning: 1, skipped: 0, passed: 1 });
  });

  it('writes a category as a heading', () => {
    expect(categoryLabel('best_practices')).toBe('Best practices');
    expect(categoryLabel('security')).toBe('Security');
    expect(categoryLabel('--')).toBe('Other');
  });
});

describe('the report page’s code snippets', () => {
  it('orders the lines by number (not as text) and marks the target line only', () => {
    const lines = snippetLines({ '10': 'ten', '9': 'nine', '11': 'eleven' }, 10);
    expect(lines).toEqual([
      { number: 9, text: 'nine', target: false },
      { number: 10, text: 'ten', target: true },
      { number: 11, text: 'eleven', target: false },
    ]);
  });

  it('marks nothing without a target line, and drops keys that are not line numbers', () => {
    expect(snippetLines({ '1': 'a', x: 'b' }, null)).toEqual([{ number: 1, text: 'a', target: false }]);
  });

  it('keeps the source as text, markup included', () => {
    expect(snippetLines({ '1': '<script>alert(1)</script>' }, 1)[0]?.text).toBe('<script>alert(1)</script>');
  });

  it('writes a location as file:line', () => {
    expect(fileAndLine({ file: 'app/Kernel.php', line: 37 })).toBe('app/Kernel.php:37');
    expect(fileAndLine({ file: 'composer.json' })).toBe('composer.json');
    expect(fileAndLine(null)).toBeNull();
  });
});

describe('the report page’s pages and query string', () => {
  const items = Array.from({ length: 120 }, (_, index) => index + 1);

  it('cuts a page of 50 with its positions', () => {
    expect(pageOf(items, 2, 50)).toMatchObject({ page: 2, lastPage: 3, from: 51, to: 100, total: 120 });
    expect(pageOf(items, 3, 50).items).toHaveLength(20);
  });

  it('brings a page outside the range back inside it', () => {
    expect(pageOf(items, 9, 50)).toMatchObject({ page: 3, from: 101, to: 120 });
    expect(pageOf(items, 0, 50)).toMatchObject({ page: 1, from: 1 });
    expect(pageOf([], 4, 50)).toMatchObject({ page: 1, lastPage: 1, from: 0, to: 0, items: [] });
  });

  it('reads the page and the choices from the query, with a default for anything else', () => {
    expect(pageParam('3')).toBe(3);
    expect(pageParam(undefined)).toBe(1);
    expect(pageParam('-2')).toBe(1);
    expect(pageParam('abc')).toBe(1);
    expect(choiceParam('fixed', ['new', 'fixed'] as const)).toBe('fixed');
    expect(choiceParam('deleted', ['new', 'fixed'] as const)).toBeNull();
    expect(choiceParam(undefined, ['new'] as const)).toBeNull();
  });

  it('changes some parameters of the URL, leaving out the removed ones and page 1', () => {
    expect(withQuery('/reports/r', { status: 'failed', page: '3' }, { kind: 'new', page: null })).toBe('/reports/r?status=failed&kind=new');
    expect(withQuery('/reports/r', { kind: 'new' }, { kind: '', issues_page: 1 })).toBe('/reports/r');
    expect(withQuery('/reports/r', {}, { issues_page: 2 })).toBe('/reports/r?issues_page=2');
  });
});
