/**
 * E1 over HTTP: a report's git context, its baseline, its new/fixed/unchanged counts, the issue
 * changes in the detail, `/reports/{report}/changes`, `?branch=`, `/projects/{project}/branches`,
 * `fail_on_new` and the stored gate, as a client that knows only EXTENSIONS.md sees them.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { IDENTIFICATION_STATEMENT } from '../helpers/test-app.js';
import { expectApiHeaders } from '../helpers/contract.js';
import { REPORT_LIST_ITEM_KEYS } from '../helpers/reports-world.js';
import { loadFixture, SEVERITIES, type Severity, uploadOk } from '../helpers/client-wire.js';

const it = appTest({ user: { plan: 'business' } })
  .extend(
    'send',
    ({ apiToken, ctx }) =>
      async (payload: Record<string, unknown>) =>
        (await uploadOk(ctx, apiToken, payload)).report.uuid as string,
  )
  .extend('get', ({ ctx, user }) => async (url: string) => {
    const response = await ctx.request({ method: 'GET', url, token: user.token });
    expect(response.statusCode, response.body).toBe(200);
    expectApiHeaders(response);
    return response.json();
  })
  .extend(
    'detail',
    ({ get }) =>
      async (uuid: string) =>
        (await get(`/api/v1/reports/${uuid}`)).data,
  )
  .extend(
    'listed',
    ({ get, projectId }) =>
      async (query = '') =>
        (await get(`/api/v1/projects/${projectId}/reports${query}`)).data as Record<string, any>[],
  )
  .extend(
    'changes',
    ({ get }) =>
      async (uuid: string, query = '') =>
        get(`/api/v1/reports/${uuid}/changes${query}`),
  )
  .extend('setFailOnNew', ({ ctx, projectId, user }) => async (value: string | null) => {
    const response = await ctx.request({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}`,
      token: user.token,
      body: { name: 'Project', framework_version: '11', settings: { fail_on_new: value } },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.settings.fail_on_new).toBe(value);
  })
  .extend('statementsOf', ({ ctx, user }) => async (url: string) => {
    ctx.queries.length = 0;
    const response = await ctx.request({ method: 'GET', url, token: user.token });
    expect(response.statusCode, response.body).toBe(200);
    // Identifying the caller is the same whatever the reports hold (and the token cache's doing).
    return ctx.queries.filter((query) => !IDENTIFICATION_STATEMENT.test(query));
  });

type Git = { git_branch?: unknown; git_commit?: unknown; pr_number?: unknown; base_branch?: unknown };

/** An issue as the client sends it, at `file:line`, with the code of that line in its snippet. */
interface Spot {
  analyzer: string;
  severity: Severity;
  message: string;
  file?: string;
  line?: number;
  code?: string;
}

const MAIN = { git_branch: 'main', git_commit: 'a'.repeat(40) };

function body(spots: Spot[], git: Git = MAIN, analyzedAt = '2026-11-21T09:00:00Z'): Record<string, unknown> {
  const byAnalyzer = new Map<string, Spot[]>();
  for (const spot of spots) byAnalyzer.set(spot.analyzer, [...(byAnalyzer.get(spot.analyzer) ?? []), spot]);
  return {
    analyzed_at: analyzedAt,
    metadata: { php_version: '8.3.4', ...git },
    results: [...byAnalyzer].map(([analyzer, issues]) => ({
      analyzer_id: analyzer,
      status: 'failed',
      message: `${analyzer} found issues`,
      issues: issues.map((spot) => ({
        message: spot.message,
        severity: spot.severity,
        recommendation: '',
        ...(spot.file !== undefined && { location: { file: spot.file, line: spot.line } }),
        ...(spot.code !== undefined && {
          code_snippet: {
            file: `/srv/app/${spot.file}`,
            target_line: spot.line,
            lines: { [String(spot.line)]: `    ${spot.code}` },
            context_lines: 0,
          },
        }),
      })),
    })),
  };
}

const SQL = {
  analyzer: 'sql-injection',
  severity: 'critical',
  message: 'Raw SQL with user input',
  file: 'app/Orders.php',
  line: 40,
  code: 'DB::select("select * from orders where id = $id");',
} as const;
const XSS = {
  analyzer: 'xss-vulnerabilities',
  severity: 'high',
  message: 'Unescaped output',
  file: 'resources/views/a.blade.php',
  line: 7,
  code: '{!! $name !!}',
} as const;
const DEBUG = {
  analyzer: 'debug-mode',
  severity: 'medium',
  message: 'APP_DEBUG is true',
  file: '.env',
  line: 3,
  code: 'APP_DEBUG=true',
} as const;
const CSRF = {
  analyzer: 'csrf-protection',
  severity: 'low',
  message: 'Route without CSRF',
  file: 'routes/web.php',
  line: 12,
  code: "Route::post('/x', X::class);",
} as const;

describe('what changed between runs (E1)', () => {
  // The user and the project are made first, then the clock moves on.
  it.beforeEach(async ({ ctx, project: _madeFirst }) => {
    // The runs below are analysed on 2026-11-21; D25 refuses analysis times ahead of the clock.
    ctx.clock.advance(24 * 60 * 60 * 1000);
  });

  const issuesOf = (report: Record<string, any>) =>
    (report.results as Record<string, any>[]).flatMap((result) => result.issues as Record<string, any>[]);

  describe('git context (E1.1)', () => {
    it('records branch, commit, pull request and base branch from the metadata, trimmed', async ({ send, detail, listed }) => {
      const uuid = await send(body([SQL], { git_branch: '  feature/x  ', git_commit: ' abc123 ', pr_number: 42, base_branch: ' main' }));
      const shown = await detail(uuid);
      expect(shown).toMatchObject({ branch: 'feature/x', commit: 'abc123', pull_request: '42', base_branch: 'main' });
      const [item] = await listed();
      expect(item).toMatchObject({ branch: 'feature/x', commit: 'abc123', pull_request: '42', base_branch: 'main' });
    });

    it('records null for what is absent, empty, blank or not text', async ({ send, detail }) => {
      const uuid = await send(body([SQL], { git_branch: '   ', git_commit: '', pr_number: { n: 1 }, base_branch: null }));
      expect(await detail(uuid)).toMatchObject({ branch: null, commit: null, pull_request: null, base_branch: null });
    });

    it('reads the real client fixtures: report-full carries its branch and commit', async ({ projectId, send, detail }) => {
      const sent = loadFixture('report-full', projectId);
      const uuid = await send(sent);
      const shown = await detail(uuid);
      expect(shown.branch).toBe(sent.metadata.git_branch);
      expect(shown.commit).toBe(sent.metadata.git_commit);
    });
  });

  describe('list items and the detail (E1.5)', () => {
    it('a first report has no baseline: changes counts null, every issue change null, with a fingerprint', async ({
      send,
      detail,
      listed,
    }) => {
      const uuid = await send(body([SQL, XSS]));
      const shown = await detail(uuid);
      expect(shown.changes).toEqual({ baseline: null, new: null, fixed: null, unchanged: null });
      for (const issue of issuesOf(shown)) {
        expect(issue.fingerprint).toMatch(/^[0-9a-f]{32}$/);
        expect(issue.change).toBeNull();
      }
      const [item] = await listed();
      expect(Object.keys(item!).sort()).toEqual(REPORT_LIST_ITEM_KEYS);
      expect(item!.changes).toEqual(shown.changes);
    });

    it.for(['report-small', 'report-large'] as const)(
      'the same fixture (%s) uploaded twice on one branch: 0 new, 0 fixed, all unchanged, same fingerprints',
      async (name, { projectId, send, detail, listed }) => {
        const sent = loadFixture(name, projectId);
        const first = await send(sent);
        const second = await send({ ...sent, analyzed_at: new Date(Date.parse(sent.analyzed_at) + 3_600_000).toISOString() });
        const before = await detail(first);
        const after = await detail(second);
        const total = issuesOf(after).length;
        expect(total).toBeGreaterThan(0);
        expect(after.changes).toEqual({
          baseline: { uuid: first, analyzed_at: before.analyzed_at, branch: before.branch, commit: before.commit },
          new: 0,
          fixed: 0,
          unchanged: total,
        });
        expect(issuesOf(after).map((i) => i.fingerprint)).toEqual(issuesOf(before).map((i) => i.fingerprint));
        expect(issuesOf(after).every((i) => i.change === 'unchanged')).toBe(true);
        const [newest] = await listed();
        expect(newest!.uuid).toBe(second);
        expect(newest!.changes).toEqual(after.changes);
      },
    );

    it("the client's pull request run (report-full, PR 482 into main) is compared with main's latest run (report-small)", async ({
      projectId,
      send,
      detail,
      changes,
    }) => {
      const main = await send(loadFixture('report-small', projectId));
      const pr = await send(loadFixture('report-full', projectId));
      const base = issuesOf(await detail(main)).map((i) => i.fingerprint);
      const shown = await detail(pr);
      const mine = issuesOf(shown).map((i) => i.fingerprint);
      const unchanged = mine.filter((f) => base.includes(f)).length;
      expect(shown).toMatchObject({ branch: 'feature/checkout-hardening', pull_request: '482', base_branch: 'main' });
      expect(shown.changes).toMatchObject({
        baseline: { uuid: main, branch: 'main' },
        new: mine.length - unchanged,
        fixed: base.filter((f) => !mine.includes(f)).length,
        unchanged,
      });
      const listedChanges = await changes(pr, '?kind=fixed');
      expect(listedChanges.meta.total).toBe(shown.changes.fixed);
    });

    it('one issue removed, one added, one moved ten lines down: new 1, fixed 1, the moved one unchanged with its fingerprint', async ({
      send,
      detail,
      changes,
    }) => {
      const first = await send(body([SQL, XSS, DEBUG]));
      const moved = { ...SQL, line: SQL.line + 10 };
      const second = await send(body([moved, XSS, CSRF], MAIN, '2026-11-21T10:00:00Z'));
      const before = issuesOf(await detail(first));
      const shown = await detail(second);
      expect(shown.changes).toMatchObject({ new: 1, fixed: 1, unchanged: 2 });
      const after = issuesOf(shown);
      const byMessage = (list: Record<string, any>[], message: string) => list.find((i) => i.message === message)!;
      expect(byMessage(after, SQL.message).location.line).toBe(50);
      expect(byMessage(after, SQL.message).fingerprint).toBe(byMessage(before, SQL.message).fingerprint);
      expect(byMessage(after, SQL.message).change).toBe('unchanged');
      expect(byMessage(after, XSS.message).change).toBe('unchanged');
      expect(byMessage(after, CSRF.message).change).toBe('new');

      const listedChanges = await changes(second);
      expect(listedChanges.data.map((i: Record<string, any>) => [i.change, i.message])).toEqual([
        ['new', CSRF.message],
        ['fixed', DEBUG.message],
        ['unchanged', SQL.message],
        ['unchanged', XSS.message],
      ]);
      const fixed = listedChanges.data[1];
      expect(fixed).toEqual({
        fingerprint: byMessage(before, DEBUG.message).fingerprint,
        change: 'fixed',
        analyzer_id: 'debug-mode',
        analyzer_name: expect.any(String),
        category: expect.any(String),
        severity: 'medium',
        message: DEBUG.message,
        location: { file: '.env', line: 3 },
        // E8.3: a fixed issue carries its fingerprint's state too; nobody decided about this one.
        state: expect.objectContaining({ fingerprint: byMessage(before, DEBUG.message).fingerprint, status: 'open' }),
      });
    });

    it('an issue whose code line changed is another issue: fixed and new', async ({ send, detail }) => {
      await send(body([SQL]));
      const second = await send(
        body([{ ...SQL, code: 'DB::select("select * from orders where id = ?", [$id]);' }], MAIN, '2026-11-21T10:00:00Z'),
      );
      expect((await detail(second)).changes).toMatchObject({ new: 1, fixed: 1, unchanged: 0 });
    });

    it('duplicates count one by one: two copies then three is one new', async ({ send, detail }) => {
      const copy = { ...SQL, line: 60 };
      await send(body([SQL, copy]));
      const second = await send(body([SQL, copy, { ...SQL, line: 90 }], MAIN, '2026-11-21T10:00:00Z'));
      const shown = await detail(second);
      expect(shown.changes).toMatchObject({ new: 1, fixed: 0, unchanged: 2 });
      const fingerprints = issuesOf(shown).map((i) => i.fingerprint);
      expect(new Set(fingerprints).size).toBe(3);
    });
  });

  describe('baselines (E1.3)', () => {
    it('compares with the latest earlier report of the same branch, not another branch', async ({ send, detail }) => {
      const main1 = await send(body([SQL], MAIN, '2026-11-21T08:00:00Z'));
      await send(body([SQL, XSS, DEBUG], { git_branch: 'develop' }, '2026-11-21T09:00:00Z'));
      const main2 = await send(body([SQL, CSRF], MAIN, '2026-11-21T10:00:00Z'));
      expect((await detail(main2)).changes).toMatchObject({ baseline: { uuid: main1, branch: 'main' }, new: 1, fixed: 0, unchanged: 1 });
    });

    it('reports without a branch compare with reports without a branch (null matches null)', async ({ send, detail }) => {
      const first = await send(body([SQL], {}, '2026-11-21T08:00:00Z'));
      await send(body([XSS], MAIN, '2026-11-21T09:00:00Z'));
      const second = await send(body([SQL], {}, '2026-11-21T10:00:00Z'));
      expect((await detail(second)).changes).toMatchObject({ baseline: { uuid: first, branch: null }, new: 0, unchanged: 1 });
    });

    it('a pull request compares with the latest report of its base branch, not with its own branch', async ({ send, detail }) => {
      const pr = { git_branch: 'feature/pay', pr_number: '17', base_branch: 'main' };
      await send(body([SQL, XSS, DEBUG], { git_branch: 'feature/pay' }, '2026-11-21T07:00:00Z'));
      const main = await send(body([SQL, XSS], MAIN, '2026-11-21T08:00:00Z'));
      const uuid = await send(body([SQL, CSRF], pr, '2026-11-21T09:00:00Z'));
      const shown = await detail(uuid);
      expect(shown.changes).toEqual({
        baseline: { uuid: main, analyzed_at: '2026-11-21T08:00:00.000Z', branch: 'main', commit: MAIN.git_commit },
        new: 1,
        fixed: 1,
        unchanged: 1,
      });
    });

    it('a pull request without its base branch is compared like any report of its branch', async ({ send, detail }) => {
      const feature = await send(body([SQL], { git_branch: 'feature/pay' }, '2026-11-21T07:00:00Z'));
      await send(body([SQL, XSS], MAIN, '2026-11-21T08:00:00Z'));
      const uuid = await send(body([SQL], { git_branch: 'feature/pay', pr_number: 17 }, '2026-11-21T09:00:00Z'));
      expect((await detail(uuid)).changes).toMatchObject({ baseline: { uuid: feature }, new: 0, fixed: 0, unchanged: 1 });
    });

    it('a pull request whose base branch has no report has no baseline', async ({ send, detail }) => {
      const uuid = await send(body([SQL], { git_branch: 'feature/pay', pr_number: 17, base_branch: 'release' }));
      expect((await detail(uuid)).changes).toEqual({ baseline: null, new: null, fixed: null, unchanged: null });
    });

    it('a report uploaded out of order compares with the report before it in analysis time, and is chosen once', async ({
      send,
      detail,
    }) => {
      const early = await send(body([SQL], MAIN, '2026-11-21T08:00:00Z'));
      const late = await send(body([SQL, XSS, DEBUG], MAIN, '2026-11-21T12:00:00Z'));
      const middle = await send(body([SQL, XSS], MAIN, '2026-11-21T10:00:00Z'));
      expect((await detail(middle)).changes).toMatchObject({ baseline: { uuid: early }, new: 1, fixed: 0, unchanged: 1 });
      // Chosen once: the later report keeps the baseline it got at its upload.
      expect((await detail(late)).changes).toMatchObject({ baseline: { uuid: early }, new: 2, fixed: 0, unchanged: 1 });
    });

    it('the same analysis time: the earlier upload is the baseline', async ({ send, detail }) => {
      const first = await send(body([SQL]));
      // Another run (an identical body would be a retry of the first, stored once: D40).
      const second = await send({ ...body([SQL]), triggered_by: 'schedule' });
      expect((await detail(second)).changes).toMatchObject({ baseline: { uuid: first }, unchanged: 1 });
    });

    it('baseline deleted: the counts stay and baseline becomes null, in the list and the detail', async ({
      ctx,
      user,
      send,
      detail,
      listed,
      changes,
    }) => {
      const first = await send(body([SQL, DEBUG], MAIN, '2026-11-21T08:00:00Z'));
      const second = await send(body([SQL, XSS], MAIN, '2026-11-21T09:00:00Z'));
      const deleted = await ctx.request({ method: 'DELETE', url: `/api/v1/reports/${first}`, token: user.token });
      expect(deleted.statusCode).toBe(200);
      const shown = await detail(second);
      expect(shown.changes).toEqual({ baseline: null, new: 1, fixed: 1, unchanged: 1 });
      expect(
        issuesOf(shown)
          .map((i) => i.change)
          .sort(),
      ).toEqual(['new', 'unchanged']);
      expect((await listed())[0]!.changes).toEqual(shown.changes);
      // The fixed issue is still listed: it was recorded with the report.
      expect((await changes(second, '?kind=fixed')).data.map((i: Record<string, any>) => i.message)).toEqual([DEBUG.message]);
    });
  });

  describe('GET /reports/{report}/changes (E1.6)', () => {
    let uuid: string;
    it.beforeEach(async ({ send }) => {
      const info = { analyzer: 'composer-security', severity: 'info', message: 'Outdated package', file: 'composer.json' } as const;
      await send(body([SQL, DEBUG, info], MAIN, '2026-11-21T08:00:00Z'));
      uuid = await send(
        body(
          [
            { ...CSRF, line: 30 },
            CSRF,
            { analyzer: 'xss-vulnerabilities', severity: 'high', message: 'Unescaped output', file: 'a.php', line: 2 },
            XSS,
            SQL,
            { analyzer: 'env-file-security', severity: 'critical', message: 'No location' },
          ],
          MAIN,
          '2026-11-21T09:00:00Z',
        ),
      );
    });

    it('lists new, then fixed, then unchanged; each by severity, analyzer id, file, line', async ({ changes }) => {
      const answer = await changes(uuid);
      expect(
        answer.data.map((i: Record<string, any>) => [
          i.change,
          i.severity,
          i.analyzer_id,
          i.location?.file ?? null,
          i.location?.line ?? null,
        ]),
      ).toEqual([
        ['new', 'critical', 'env-file-security', null, null],
        ['new', 'high', 'xss-vulnerabilities', 'a.php', 2],
        ['new', 'high', 'xss-vulnerabilities', 'resources/views/a.blade.php', 7],
        ['new', 'low', 'csrf-protection', 'routes/web.php', 12],
        ['new', 'low', 'csrf-protection', 'routes/web.php', 30],
        ['fixed', 'medium', 'debug-mode', '.env', 3],
        ['fixed', 'info', 'composer-security', 'composer.json', null],
        ['unchanged', 'critical', 'sql-injection', 'app/Orders.php', 40],
      ]);
      expect(answer.meta).toMatchObject({ current_page: 1, total: 8 });
      const issueWithoutLocation = answer.data[0];
      expect(issueWithoutLocation.location).toBeNull();
    });

    it('filters by kind and severity, and keeps the filters in its links', async ({ changes }) => {
      expect((await changes(uuid, '?kind=fixed')).data.map((i: Record<string, any>) => i.analyzer_id)).toEqual([
        'debug-mode',
        'composer-security',
      ]);
      expect((await changes(uuid, '?kind=new&severity=high')).data).toHaveLength(2);
      expect((await changes(uuid, '?severity=critical')).data.map((i: Record<string, any>) => i.change)).toEqual(['new', 'unchanged']);
      const answer = await changes(uuid, '?kind=unchanged');
      expect(answer.data).toHaveLength(1);
      expect(answer.links.first).toContain('kind=unchanged');
    });

    it('pages by the D16 envelope', async ({ send, changes }) => {
      const many: Spot[] = Array.from({ length: 25 }, (_, i) => ({ ...CSRF, line: i + 1, code: `line ${i}` }));
      const big = await send(body(many, { git_branch: 'wide' }, '2026-11-21T11:00:00Z'));
      const page2 = await changes(big, '?page=2');
      expect(page2.meta).toMatchObject({ current_page: 2, last_page: 2, per_page: 20, total: 25 });
      expect(page2.data.map((i: Record<string, any>) => i.location.line)).toEqual([21, 22, 23, 24, 25]);
      expect(page2.data.every((i: Record<string, any>) => i.change === null)).toBe(true);
    });

    it.for(['?kind=old', '?kind=NEW', '?severity=urgent', '?severity=', '?kind='])('answers 422 to %s', async (query, { ctx, user }) => {
      const response = await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}/changes${query}`, token: user.token });
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json()).toMatchObject({ message: expect.any(String), errors: expect.any(Object) });
    });
  });

  describe('?branch= and /projects/{project}/branches (E1.6)', () => {
    it("lists one branch's reports, and with an empty name the reports without a branch", async ({ projectId, send, get, listed }) => {
      const a = await send(body([SQL], MAIN, '2026-11-21T08:00:00Z'));
      const b = await send(body([SQL], { git_branch: 'develop' }, '2026-11-21T09:00:00Z'));
      const c = await send(body([SQL], MAIN, '2026-11-21T10:00:00Z'));
      const d = await send(body([SQL], {}, '2026-11-21T11:00:00Z'));
      expect((await listed('?branch=main')).map((r) => r.uuid)).toEqual([c, a]);
      expect((await listed('?branch=develop')).map((r) => r.uuid)).toEqual([b]);
      expect((await listed('?branch=')).map((r) => r.uuid)).toEqual([d]);
      expect((await listed('?branch=nope')).map((r) => r.uuid)).toEqual([]);
      expect((await listed()).map((r) => r.uuid)).toEqual([d, c, b, a]);
      const page = await get(`/api/v1/projects/${projectId}/reports?branch=main`);
      expect(page.meta.total).toBe(2);
      expect(page.links.first).toContain('branch=main');
    });

    it('lists each branch once with its latest report, newest first, null for reports without a branch', async ({
      projectId,
      send,
      get,
      listed,
    }) => {
      await send(body([SQL], MAIN, '2026-11-21T08:00:00Z'));
      const develop = await send(body([SQL], { git_branch: 'develop' }, '2026-11-21T09:00:00Z'));
      const none = await send(body([SQL], {}, '2026-11-21T07:00:00Z'));
      const main = await send(body([SQL, XSS], MAIN, '2026-11-21T10:00:00Z'));
      // An older upload does not replace a branch's latest report.
      await send(body([XSS], { git_branch: 'develop' }, '2026-11-21T06:00:00Z'));
      const answer = await get(`/api/v1/projects/${projectId}/branches`);
      expect(Object.keys(answer)).toEqual(['data']);
      expect(answer.data.map((b: Record<string, any>) => [b.name, b.latest_report.uuid])).toEqual([
        ['main', main],
        ['develop', develop],
        [null, none],
      ]);
      const [first] = answer.data;
      expect(Object.keys(first.latest_report).sort()).toEqual(REPORT_LIST_ITEM_KEYS);
      expect(first.latest_report).toEqual((await listed('?branch=main'))[0]);
      // The dashboard asks for each branch's number of reports too (it opens on the branch with the most).
      const counted = await get(`/api/v1/projects/${projectId}/branches?include=report_count`);
      expect(counted.data.map((b: Record<string, any>) => [b.name, b.report_count, b.latest_report.uuid])).toEqual([
        ['main', 2, main],
        ['develop', 2, develop],
        [null, 1, none],
      ]);
      expect(Object.keys(counted.data[0]).sort()).toEqual(['latest_report', 'name', 'report_count']);
    });

    it('answers an empty list for a project without reports', async ({ projectId, get }) => {
      expect(await get(`/api/v1/projects/${projectId}/branches`)).toEqual({ data: [] });
    });
  });

  describe('fail_on_new and the stored gate (E1.7, E1.8)', () => {
    const levels: Severity[] = ['critical', 'high', 'medium', 'low'];
    const spotOf = (severity: Severity, n = 0): Spot => ({
      analyzer: 'sql-injection',
      severity,
      message: `${severity} ${n}`,
      file: 'a.php',
      line: n + 1,
    });

    it.for(levels)(
      'fail_on_new %s: a new issue at or above fails, one below passes, an unchanged one never counts',
      async (level, { ctx, apiToken, send, setFailOnNew }) => {
        await setFailOnNew(level);
        let at = Date.parse('2026-11-21T00:00:00Z');
        const next = () => new Date((at += 60_000)).toISOString();
        for (const severity of SEVERITIES) {
          // A baseline holding an issue of this severity, then a report adding a new one of it.
          const branch = { git_branch: `b-${severity}` };
          await send(body([spotOf(severity, 0)], branch, next()));
          const unchangedOnly = await uploadOk(ctx, apiToken, body([spotOf(severity, 0)], branch, next()));
          expect(unchangedOnly.gate.passed).toBe(true);
          const answer = await uploadOk(ctx, apiToken, body([spotOf(severity, 0), spotOf(severity, 1)], branch, next()));
          const blocks = SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(level);
          expect(answer.gate).toMatchObject({ passed: !blocks, fail_on_new: level });
          expect(answer.gate.reasons).toEqual(blocks ? [`1 new issue at or above ${level} severity.`] : []);
        }
      },
    );

    it('with no baseline every issue counts as new', async ({ ctx, apiToken, setFailOnNew }) => {
      await setFailOnNew('high');
      const answer = await uploadOk(ctx, apiToken, body([spotOf('high', 0), spotOf('critical', 1), spotOf('low', 2)]));
      expect(answer.gate).toMatchObject({ passed: false, reasons: ['2 new issues at or above high severity.'] });
    });

    it('never and null never fail on new issues', async ({ ctx, apiToken, setFailOnNew }) => {
      for (const value of ['never', null]) {
        await setFailOnNew(value);
        const answer = await uploadOk(ctx, apiToken, body([spotOf('critical', 0)], { git_branch: `x-${value}` }));
        expect(answer.gate).toMatchObject({ passed: true, fail_on_new: value, reasons: [] });
      }
    });

    it('refuses a fail_on_new outside the D14 values with 422', async ({ ctx, user, projectId }) => {
      const response = await ctx.request({
        method: 'PUT',
        url: `/api/v1/projects/${projectId}`,
        token: user.token,
        body: { name: 'Project', framework_version: '11', settings: { fail_on_new: 'info' } },
      });
      expect(response.statusCode).toBe(422);
      expect(response.json().errors).toHaveProperty(['settings.fail_on_new']);
    });

    it("stores the upload answer's gate with the report: {passed, reasons} in the list and the detail", async ({
      ctx,
      apiToken,
      detail,
      listed,
      setFailOnNew,
    }) => {
      await setFailOnNew('critical');
      const answer = await uploadOk(ctx, apiToken, body([SQL]));
      expect(answer.gate.passed).toBe(false);
      const stored = { passed: false, reasons: answer.gate.reasons, dismissed: 0 };
      expect((await detail(answer.report.uuid)).gate).toEqual(stored);
      expect((await listed())[0]!.gate).toEqual(stored);
      // The settings change later; the stored gate does not.
      await setFailOnNew(null);
      expect((await detail(answer.report.uuid)).gate).toEqual(stored);
    });

    it('a report stored before gates were recorded shows gate null', async ({ ctx, projectId, detail }) => {
      const old = await ctx.given.report(projectId);
      expect((await detail(old.uuid)).gate).toBeNull();
    });
  });

  describe('SQL statements (issue 13: the list and the detail stay constant)', () => {
    it('list, branches, detail and changes cost the same statements for 1 report of 1 issue as for 12 of 25 on 3 branches', async ({
      projectId,
      send,
      statementsOf,
    }) => {
      const one = await send(body([SQL], MAIN, '2026-11-21T00:00:00Z'));
      const urls = (uuid: string) => [
        `/api/v1/projects/${projectId}/reports`,
        `/api/v1/projects/${projectId}/reports?branch=main`,
        `/api/v1/projects/${projectId}/branches`,
        `/api/v1/reports/${uuid}`,
        `/api/v1/reports/${uuid}/changes`,
      ];
      const small = [];
      for (const url of urls(one)) small.push(await statementsOf(url));

      const many: Spot[] = Array.from({ length: 25 }, (_, i) => ({ ...CSRF, line: i + 1, code: `line ${i}` }));
      let last = one;
      for (let n = 1; n <= 12; n++) {
        const branch = ['main', 'develop', 'release'][n % 3]!;
        last = await send(body(many.slice(0, 25 - (n % 4)), { git_branch: branch }, `2026-11-21T${String(n).padStart(2, '0')}:00:00Z`));
      }
      const large = [];
      for (const url of urls(last)) large.push(await statementsOf(url));
      expect(large).toEqual(small);
      for (const statements of small) expect(statements.length).toBeGreaterThan(0);
    });
  });
});
