/**
 * D25: an `analyzed_at` (or a failure notice's `occurred_at`) more than 5 minutes after the server's
 * clock is 422, so a bogus date cannot pin `latest_report` (D19) forever. The reproduction:
 * a report dated 9999-12-31 stayed `latest_report` for good.
 */
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import { expectClientValidationError, minimalReport, upload } from '../helpers/client-wire.js';

const it = sharedAppTest({ env: { UPLOAD_RATE_LIMIT: '1000' }, user: { plan: 'enterprise' } })
  /** What the project holds: its reports and failed runs. */
  .extend('heldByProject', ({ ctx }) => async () => ({
    reports: (await ctx.db.selectFrom('reports').select('id').where('project_id', '=', projectId).execute()).length,
    failures: (await ctx.db.selectFrom('run_failures').select('id').where('project_id', '=', projectId).execute()).length,
  }))
  .extend(
    'latestUuid',
    ({ ctx, user }) =>
      async () =>
        (await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}`, token: user.token })).json().data.latest_report?.uuid ??
        null,
  );

let projectId: string;
let apiToken: string;
it.beforeEach(async ({ ctx, user }) => {
  ({
    project: { id: projectId },
    apiToken,
  } = await ctx.given.project(user, { name: 'Dated' }));
});

/** The fake clock's now: 2026-11-21T10:00:00Z; five minutes later is the last accepted instant. */
const FIVE_MINUTES_LATER = '2026-11-21T10:05:00Z';
describe('dates from the future (D25)', () => {
  it.for([
    ['9999-12-31T23:59:59+00:00', "the issue's report from year 9999"],
    ['2026-11-21T10:05:01Z', 'one second past the five minutes'],
    ['2026-11-21T12:05:01+02:00', 'the same instant written with an offset'],
    ['2027-01-01T00:00:00Z', 'next year'],
  ])('refuses analyzed_at %s (%s) with 422, storing nothing', async ([analyzedAt], { ctx, heldByProject }) => {
    const response = await upload(ctx, apiToken, minimalReport({ analyzed_at: analyzedAt }));
    const body = expectClientValidationError(response, ['analyzed_at']);
    expect(body.errors.analyzed_at).toEqual(['The analyzed at must not be in the future.']);
    expect(body.message).toBe('The analyzed at must not be in the future.');
    expect(await heldByProject()).toEqual({ reports: 0, failures: 0 });
  });

  it('accepts a report dated up to five minutes ahead (clocks drift), and it becomes the latest', async ({ ctx, latestUuid }) => {
    const response = await upload(ctx, apiToken, minimalReport({ analyzed_at: FIVE_MINUTES_LATER }));
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().report.analyzed_at).toBe('2026-11-21T10:05:00.000Z');
    expect(await latestUuid()).toBe(response.json().report.uuid);
  });

  it('moves with the clock: a date refused now is accepted once its time has come', async ({ ctx }) => {
    const later = '2026-11-21T11:00:00Z';
    expectClientValidationError(await upload(ctx, apiToken, minimalReport({ analyzed_at: later })), ['analyzed_at']);
    ctx.clock.set('2026-11-21T10:55:00Z');
    expect((await upload(ctx, apiToken, minimalReport({ analyzed_at: later }))).statusCode).toBe(201);
  });

  it('refuses a failure notice whose occurred_at is in the future, storing nothing', async ({ ctx, heldByProject }) => {
    ctx.clock.set('2026-11-21T10:00:00Z');
    const response = await upload(
      ctx,
      apiToken,
      { failure_reason: 'uncaught_exception', occurred_at: '9999-12-31T23:59:59+00:00' },
      { url: '/api/reports/failure' },
    );
    const body = expectClientValidationError(response, ['occurred_at']);
    expect(body.errors.occurred_at).toEqual(['The occurred at must not be in the future.']);
    expect(await heldByProject()).toEqual({ reports: 0, failures: 0 });
    const ok = await upload(
      ctx,
      apiToken,
      { failure_reason: 'uncaught_exception', occurred_at: FIVE_MINUTES_LATER },
      { url: '/api/reports/failure' },
    );
    expect(ok.statusCode, ok.body).toBe(201);
  });
});
