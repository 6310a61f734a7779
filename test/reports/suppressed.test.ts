/**
 * E8.6 over HTTP: `GET /api/v1/reports/{report}/suppressed?type=inline|config|baseline&page=N`, the
 * issues the client package suppressed (CLIENT-WIRE.md `results[].suppressed_issues`), in upload
 * order. The oracle is the report detail, which shows every result's suppressed issues as stored.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { loadFixture, uploadOk } from '../helpers/client-wire.js';
import { NOT_FOUND, expectError, expectValidationError } from '../helpers/contract.js';
import { MISSING_REPORT } from '../helpers/endpoints.js';
import { result, uploadBody } from '../helpers/reports-world.js';

const it = appTest({ user: { plan: 'business' } })
  .extend(
    'suppressedOf',
    ({ ctx, user }) =>
      (uuid: string, query = '', token: string | undefined = user.token) =>
        ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}/suppressed${query}`, token }),
  )
  /** Uploads `results` (each `[analyzer, suppressed issues]`); returns the report uuid. */
  .extend(
    'uploadSuppressed',
    ({ ctx, apiToken }) =>
      async (results: [string, Record<string, unknown>[]][]): Promise<string> =>
        (
          await uploadOk(
            ctx,
            apiToken,
            uploadBody(results.map(([analyzer, suppressed]) => result(analyzer, 'passed', [], { suppressed_issues: suppressed }))),
          )
        ).report.uuid as string,
  );

const suppressedIssue = (message: string, type: unknown, extra: Record<string, unknown> = {}) => ({
  message,
  severity: 'medium',
  recommendation: 'Look again.',
  location: { file: 'app/X.php', line: 3 },
  ...(type !== undefined && { suppression: { type, description: `${message}, suppressed` } }),
  ...extra,
});

describe('GET /api/v1/reports/{report}/suppressed (E8.6)', () => {
  it("lists the report's suppressed issues in upload order, as the detail shows them (report-full.json)", async ({
    ctx,
    user,
    projectId,
    apiToken,
    suppressedOf,
  }) => {
    const uuid = (await uploadOk(ctx, apiToken, loadFixture('report-full', projectId))).report.uuid as string;
    const detail = (await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}`, token: user.token })).json().data;
    const expected = (detail.results as Record<string, any>[]).flatMap((r) =>
      (r.suppressed_issues as Record<string, any>[]).map((issue) => ({
        analyzer_id: r.analyzer_id,
        analyzer_name: r.analyzer_name,
        category: r.category,
        severity: issue.severity,
        message: issue.message,
        location: issue.location,
        suppression: { type: issue.suppression.type, description: issue.suppression.description },
      })),
    );
    expect(expected).toHaveLength(8);

    const response = await suppressedOf(uuid);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.data).toEqual(expected);
    expect(body.meta).toMatchObject({ current_page: 1, per_page: 20, total: 8, last_page: 1, from: 1, to: 8 });
    // The fixture has a suppressed issue without a location, and one with a column.
    expect(expected.some((item) => item.location === null)).toBe(true);
    expect(expected.some((item) => item.location?.column !== undefined)).toBe(true);

    // Each type alone, as many as the detail counts of it.
    for (const type of ['inline', 'config', 'baseline'] as const) {
      const filtered = (await suppressedOf(uuid, `?type=${type}`)).json();
      expect(filtered.data).toEqual(expected.filter((item) => item.suppression.type === type));
      expect(filtered.meta.total).toBe(detail.suppressed_issues[type]);
      expect(filtered.links.first).toBe(`http://localhost:80/api/v1/reports/${uuid}/suppressed?type=${type}&page=1`);
    }
  });

  it('pages by 20, keeping the filter in the links; a page past the end is empty', async ({ suppressedOf, uploadSuppressed }) => {
    const inline = (i: number) => suppressedIssue(`Inline ${i}`, 'inline');
    const config = (i: number) => suppressedIssue(`Config ${i}`, 'config');
    const uuid = await uploadSuppressed([
      ['sql-injection', Array.from({ length: 25 }, (_, i) => (i % 5 === 0 ? config(i) : inline(i)))],
      ['debug-mode', Array.from({ length: 20 }, (_, i) => inline(100 + i))],
    ]);

    const first = (await suppressedOf(uuid)).json();
    expect(first.meta).toMatchObject({ total: 45, last_page: 3, from: 1, to: 20 });
    expect(first.data.map((item: any) => item.message)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i % 5 === 0 ? `Config ${i}` : `Inline ${i}`)),
    );
    const third = (await suppressedOf(uuid, '?page=3')).json();
    expect(third.data.map((item: any) => item.message)).toEqual(Array.from({ length: 5 }, (_, i) => `Inline ${115 + i}`));
    expect(third.data.every((item: any) => item.analyzer_id === 'debug-mode')).toBe(true);
    expect(third.links.next).toBeNull();
    expect((await suppressedOf(uuid, '?page=4')).json()).toMatchObject({ data: [], meta: { total: 45, from: null, to: null } });

    const inlineOnly = (await suppressedOf(uuid, '?type=inline&page=2')).json();
    expect(inlineOnly.meta).toMatchObject({ total: 40, current_page: 2, last_page: 2, from: 21, to: 40 });
    expect(inlineOnly.data.every((item: any) => item.suppression.type === 'inline')).toBe(true);
    expect(inlineOnly.links.prev).toBe(`http://localhost:80/api/v1/reports/${uuid}/suppressed?type=inline&page=1`);
    const configOnly = (await suppressedOf(uuid, '?type=config')).json();
    expect(configOnly.data.map((item: any) => item.message)).toEqual(['Config 0', 'Config 5', 'Config 10', 'Config 15', 'Config 20']);
  });

  it('lists a suppression of another type, or without one, unfiltered only; text it cannot read is null', async ({
    suppressedOf,
    uploadSuppressed,
  }) => {
    const uuid = await uploadSuppressed([
      [
        'sql-injection',
        [
          suppressedIssue('Other type', 'ignore-file'),
          suppressedIssue('No suppression object', undefined),
          suppressedIssue('Odd description', 'baseline', { suppression: { type: 'baseline', description: 42 } }),
          suppressedIssue('Empty object as PHP sends it', undefined, { suppression: [] }),
        ],
      ],
    ]);
    const all = (await suppressedOf(uuid)).json().data;
    expect(all.map((item: any) => [item.message, item.suppression])).toEqual([
      ['Other type', { type: 'ignore-file', description: 'Other type, suppressed' }],
      ['No suppression object', { type: null, description: null }],
      ['Odd description', { type: 'baseline', description: null }],
      ['Empty object as PHP sends it', { type: null, description: null }],
    ]);
    for (const type of ['inline', 'config']) expect((await suppressedOf(uuid, `?type=${type}`)).json().data).toEqual([]);
    expect((await suppressedOf(uuid, '?type=baseline')).json().data.map((item: any) => item.message)).toEqual(['Odd description']);
  });

  it('is an empty list for a report without suppressed issues (an older client sends none)', async ({ ctx, apiToken, suppressedOf }) => {
    const uuid = (await uploadOk(ctx, apiToken, uploadBody([result('debug-mode', 'failed', ['high'])]))).report.uuid as string;
    const body = (await suppressedOf(uuid)).json();
    expect(body.data).toEqual([]);
    expect(body.meta).toMatchObject({ total: 0, last_page: 1, from: null, to: null });
  });

  it('answers 422 for a type or page it does not know', async ({ suppressedOf, uploadSuppressed }) => {
    const uuid = await uploadSuppressed([['sql-injection', [suppressedIssue('x', 'inline')]]]);
    for (const query of ['?type=ignored', '?type=INLINE', '?type=', '?type=inline&type=config']) {
      expectValidationError(await suppressedOf(uuid, query), ['type']);
    }
    for (const query of ['?page=0', '?page=x']) expectValidationError(await suppressedOf(uuid, query), ['page']);
  });

  it("answers 404 for another team's report, a missing one and a malformed id, before the type's 422", async ({
    ctx,
    suppressedOf,
    uploadSuppressed,
  }) => {
    const uuid = await uploadSuppressed([['sql-injection', [suppressedIssue('x', 'inline')]]]);
    const stranger = await ctx.given.user({ plan: 'business' });
    for (const query of ['', '?type=inline', '?type=bad']) {
      expectError(await suppressedOf(uuid, query, stranger.token), 404, NOT_FOUND);
      expectError(await suppressedOf(MISSING_REPORT, query), 404, NOT_FOUND);
      expectError(await suppressedOf('not-a-uuid', query), 404, NOT_FOUND);
    }
    expect((await suppressedOf(uuid, '', stranger.token)).body).toBe((await suppressedOf(MISSING_REPORT)).body);
  });

  it('lets every member of the team read, a readonly one too (D15 view)', async ({ ctx, user, suppressedOf, uploadSuppressed }) => {
    const uuid = await uploadSuppressed([['sql-injection', [suppressedIssue('x', 'inline')]]]);
    const reader = await ctx.given.user({ plan: 'solo', abilities: ['read'] });
    await ctx.given.member(user.teamId!, reader, 'readonly');
    const response = await suppressedOf(uuid, '', reader.token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.map((item: any) => item.message)).toEqual(['x']);
  });
});
