import { describe, expect, it } from 'vitest';
import { formatNumber } from '../../web/src/lib/format.js';
import {
  groupSizes,
  groupsOf,
  type IssueEntry,
  issueEntries,
  pathSegments,
  searchEntries,
  sortEntries,
} from '../../web/src/lib/issue-search.js';
import { scoreSentence, tabCounts, tabParam } from '../../web/src/lib/report-tabs.js';

type Severity = IssueEntry['severity'];

function issue(severity: Severity, file: string | null, line: number, extra: object = {}) {
  return {
    message: `${severity} problem in ${file}`,
    severity,
    location: file === null ? null : { file, line },
    recommendation: '',
    fingerprint: `${severity}-${file}-${line}`,
    change: null,
    ...extra,
  };
}

const results = [
  {
    analyzer_id: 'sql-injection',
    analyzer_name: 'SQL Injection',
    issues: [issue('low', 'app/Models/User.php', 3), issue('critical', 'app/Http/Controllers/UserController.php', 130, { change: 'new' })],
    suppressed_issues: [
      {
        ...issue('high', 'app/Legacy.php', 1),
        fingerprint: undefined,
        suppression: { type: 'config', description: 'path: app/Legacy.php' },
      },
    ],
  },
  {
    analyzer_id: 'xss',
    analyzer_name: 'Cross-site scripting',
    issues: [issue('critical', 'resources/views/orders/index.blade.php', 9), issue('info', null, 0)],
  },
] as const;

describe('the report page’s issue lists', () => {
  it('flattens every issue with its analyzer; the new list keeps only the new, the suppressed list says why', () => {
    const all = issueEntries(results, 'issues');
    expect(all.map((entry) => [entry.analyzerName, entry.severity, entry.file])).toEqual([
      ['SQL Injection', 'low', 'app/Models/User.php'],
      ['SQL Injection', 'critical', 'app/Http/Controllers/UserController.php'],
      ['Cross-site scripting', 'critical', 'resources/views/orders/index.blade.php'],
      ['Cross-site scripting', 'info', null],
    ]);
    expect(new Set(all.map((entry) => entry.key)).size).toBe(4);
    expect(issueEntries(results, 'new').map((entry) => entry.line)).toEqual([130]);
    const suppressed = issueEntries(results, 'suppressed');
    expect(suppressed.map((entry) => [entry.file, entry.suppression, entry.key])).toEqual([
      ['app/Legacy.php', 'config: path: app/Legacy.php', 'sql-injection:0'],
    ]);
  });

  it('searches message, file and analyzer, in any case, every word anywhere', () => {
    const all = issueEntries(results, 'issues');
    const lines = (query: string) => searchEntries(all, query).map((entry) => entry.line);
    expect(lines('')).toHaveLength(4);
    expect(lines('   ')).toHaveLength(4);
    expect(lines('usercontroller')).toEqual([130]);
    expect(lines('CROSS-SITE')).toEqual([9, null]);
    expect(lines('critical blade')).toEqual([9]);
    expect(lines('xss models')).toEqual([]);
    expect(lines('sql-injection')).toEqual([3, 130]);
  });

  it('sorts and groups by severity, by file (no file last) or by analyzer, each group with its whole size', () => {
    const all = issueEntries(results, 'issues');
    const bySeverity = sortEntries(all, 'severity');
    expect(bySeverity.map((entry) => entry.line)).toEqual([130, 9, 3, null]);
    expect(groupsOf(bySeverity, 'severity').map((group) => [group.key, group.rows.length])).toEqual([
      ['critical', 2],
      ['low', 1],
      ['info', 1],
    ]);
    const byFile = sortEntries(all, 'file');
    expect(groupsOf(byFile, 'file').map((group) => group.key)).toEqual([
      'app/Http/Controllers/UserController.php',
      'app/Models/User.php',
      'resources/views/orders/index.blade.php',
      '',
    ]);
    const byAnalyzer = sortEntries(all, 'analyzer');
    expect(groupsOf(byAnalyzer, 'analyzer').map((group) => [group.key, group.rows.map((row) => row.severity)])).toEqual([
      ['Cross-site scripting', ['critical', 'info']],
      ['SQL Injection', ['critical', 'low']],
    ]);
    // A page that starts inside a group still names the group's whole size.
    expect(groupSizes(all, 'analyzer').get('SQL Injection')).toBe(2);
    expect(groupsOf(byAnalyzer.slice(3), 'analyzer')).toEqual([{ key: 'SQL Injection', rows: [byAnalyzer[3]] }]);
  });

  it('cuts a path after each slash, so it wraps between directories and never inside a name', () => {
    expect(pathSegments('app/Http/Controllers/UserController.php')).toEqual(['app/', 'Http/', 'Controllers/', 'UserController.php']);
    expect(pathSegments('/abs/dir/')).toEqual(['/', 'abs/', 'dir/']);
    expect(pathSegments('composer.json')).toEqual(['composer.json']);
    expect(pathSegments('')).toEqual(['']);
  });
});

describe('the report page’s sections and score', () => {
  it('reads the section from the URL, the overview for none or an unknown one', () => {
    expect(tabParam('new')).toBe('new');
    expect(tabParam('failed')).toBe('failed');
    expect(tabParam(undefined)).toBe('overview');
    expect(tabParam('everything')).toBe('overview');
  });

  it('counts each section; without a baseline nothing is new or fixed', () => {
    const report = {
      total_issues: 3972,
      changes: { new: 12, fixed: 4 },
      suppressed_issues: { total: 8 },
      results: [{ status: 'failed' }, { status: 'error' }, { status: 'warning' }, { status: 'skipped' }, { status: 'passed' }],
    };
    expect(tabCounts(report)).toEqual({ overview: null, new: 12, fixed: 4, issues: 3972, suppressed: 8, failed: 3 });
    expect(tabCounts({ ...report, changes: { new: null, fixed: null } })).toMatchObject({ new: null, fixed: null });
  });

  it('explains the score in one sentence: passed ÷ (total − skipped)', () => {
    expect(scoreSentence({ score: 90, total: 150, passed: 126, skipped: 10 })).toBe(
      'Score 90: 126 of the 140 analyzers that ran passed (150 in all, 10 skipped).',
    );
    expect(scoreSentence({ score: 45, total: 155, passed: 70, skipped: 0 })).toBe(
      'Score 45: 70 of the 155 analyzers that ran passed (155 in all).',
    );
    expect(scoreSentence({ score: 100, total: 3, passed: 0, skipped: 3 })).toBe('Score 100: every analyzer was skipped, so none failed.');
  });

  it('writes counts with the language’s thousands separators', () => {
    expect(formatNumber(3972)).toBe(new Intl.NumberFormat(undefined).format(3972));
    expect(formatNumber(3972)).toMatch(/^3\D?972$/);
  });
});
