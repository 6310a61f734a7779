import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';
import { loadFixture, uploadOk } from '../helpers/client-wire.js';
import { addWebhook, downToAndBack, expectTokenVerifies, givenReleaseData, readsOf } from './upgrade-world.js';

/**
 * Migrations 0008 (D28's stored answers), 0009 (report retention's index) and 0010 (webhooks) on a
 * live database: what the previous release wrote (a database at 0007) reads the same after
 * `scoreboard migrate`: tokens, projects with their settings and latest report, report lists,
 * each report's detail and changes, the audit log; and the new features start empty.
 */
describe('migrations 0008 to 0010 on a database written by the release before them', () => {
  it('reads tokens, projects, settings and reports the same after the upgrade', async ({ ctx }) => {
    const { user, projectId, apiToken, uuids } = await givenReleaseData(ctx, ['report-small', 'report-large', 'report-large']);
    const readAll = readsOf(ctx, user, [
      '/api/v1/tokens',
      `/api/v1/projects/${projectId}`,
      '/api/v1/projects',
      `/api/v1/projects/${projectId}/reports`,
      `/api/v1/projects/${projectId}/trend`,
      '/api/v1/user/audit-events',
      ...uuids.flatMap((uuid) => [`/api/v1/reports/${uuid}`, `/api/v1/reports/${uuid}/changes`]),
    ]);
    const before = await readAll();

    // Back to the previous release's schema: its database has no stored answers at all.
    await downToAndBack(ctx, '0007-teams-and-audit');
    expect(await ctx.db.selectFrom('report_bodies').select('id').execute()).toEqual([]);
    // Down to 0007 really removed the new tables: they are back, empty.
    expect(await ctx.db.selectFrom('webhooks').select('id').execute()).toEqual([]);
    expect(await ctx.db.selectFrom('webhook_deliveries').select('id').execute()).toEqual([]);

    expect(await readAll()).toEqual(before);
    // The answers are stored again as they are read.
    expect(await ctx.db.selectFrom('report_bodies').select('id').execute()).toHaveLength(uuids.length);
    // The client package's token still names its project.
    await expectTokenVerifies(ctx, apiToken, projectId);
    // The upgraded project takes webhooks, and its uploads reach them.
    await addWebhook(ctx, user, projectId);
    await uploadOk(ctx, apiToken, loadFixture('report-small', projectId));
    expect(await ctx.db.selectFrom('webhook_deliveries').select('event').execute()).toEqual([{ event: 'report.created' }]);
  });
});
