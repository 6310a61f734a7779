/**
 * Migration 0006: a report's results are stored Brotli-compressed, and reports stored before it,
 * with their results as plain JSON, read exactly as they did. What a client sees never depends on
 * how the row holds them.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { decodeResults } from '../../src/reports/results/results-encoding.js';
import { loadFixture, uploadOk } from '../helpers/client-wire.js';

const it = appTest({ user: { plan: 'business' } })
  .extend(
    'rowOf',
    ({ ctx }) =>
      (uuid: string) =>
        ctx.db.selectFrom('reports').select(['id', 'results', 'results_br']).where('uuid', '=', uuid).executeTakeFirstOrThrow(),
  )
  .extend('read', ({ ctx, user }) => async (path: string) => {
    const response = await ctx.request({ method: 'GET', url: path, token: user.token });
    expect(response.statusCode, response.body).toBe(200);
    return response.body;
  });

describe('how a report row holds its results (migration 0006)', () => {
  it('compresses an upload to a small part of its JSON, and the detail shows every result', async ({
    ctx,
    projectId,
    apiToken,
    rowOf,
    read,
  }) => {
    const sent = loadFixture('report-large', projectId);
    const { report } = await uploadOk(ctx, apiToken, sent);
    const row = await rowOf(report.uuid);
    expect(row.results).toBe('');
    const json = JSON.stringify(decodeResults(row));
    expect(row.results_br!.length).toBeLessThan(json.length / 10);
    const detail = JSON.parse(await read(`/api/v1/reports/${report.uuid}`)).data;
    expect(detail.results.map((r: { analyzer_id: string }) => r.analyzer_id)).toEqual(
      sent.results.map((r: { analyzer_id: string }) => r.analyzer_id),
    );
    expect(detail.results.flatMap((r: { issues: unknown[] }) => r.issues)).toHaveLength(sent.summary.total_issues);
  });

  it('answers the same for a row stored before 0006, with plain JSON results', async ({ ctx, projectId, apiToken, rowOf, read }) => {
    const { report } = await uploadOk(ctx, apiToken, loadFixture('report-full', projectId));
    const paths = [
      `/api/v1/reports/${report.uuid}`,
      `/api/v1/reports/${report.uuid}/export?format=sarif`,
      `/api/v1/reports/${report.uuid}/export?format=csv`,
    ];
    const compressed = await Promise.all(paths.map(read));

    const row = await rowOf(report.uuid);
    await ctx.db
      .updateTable('reports')
      .set({ results: JSON.stringify(decodeResults(row)), results_br: null })
      .where('id', '=', row.id)
      .execute();
    expect(await Promise.all(paths.map(read))).toEqual(compressed);
  });
});
