import { gzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { upload, uploadOk } from '../helpers/client-wire.js';
import { result, setGate, uploadBody } from '../helpers/reports-world.js';
import { pruneUploadReceipts } from '../../src/reports/receipt-retention.js';
import { addWebhook } from '../db/upgrade-world.js';

/**
 * D40: a client that lost the answer to a timeout sends the same upload again. An upload whose
 * project, `analyzed_at` and body are identical to a report stored in the last 24 hours answers 201
 * with that report instead of storing a second one.
 */
const it = appTest({ user: { plan: 'enterprise' } }).extend('reportCount', ({ ctx, user, projectId }) => async () => {
  const response = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/reports`, token: user.token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().meta.total as number;
});

const body = (analyzedAt = '2026-11-21T09:00:00+00:00') =>
  JSON.stringify(uploadBody([result('csrf-protection', 'failed', ['high'])], { analyzed_at: analyzedAt }));

describe('a retried upload (D40)', () => {
  it('answers the first upload again, the same 201 body, and stores one report', async ({ ctx, apiToken, reportCount }) => {
    const first = await upload(ctx, apiToken, body());
    const second = await upload(ctx, apiToken, body());
    expect(first.statusCode, first.body).toBe(201);
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(await reportCount()).toBe(1);
  });

  it('answers with the gate as it was decided, even after the settings change', async ({ ctx, user, projectId, apiToken }) => {
    await setGate(ctx, user, projectId, { fail_on: 'high' });
    const first = await uploadOk(ctx, apiToken, body());
    expect(first.gate.passed).toBe(false);
    await setGate(ctx, user, projectId, { fail_on: null });
    expect(await uploadOk(ctx, apiToken, body())).toEqual(first);
  });

  it('is the same upload gzip-compressed or not: the body is compared as JSON bytes', async ({ ctx, apiToken, reportCount }) => {
    const first = await uploadOk(ctx, apiToken, body());
    const again = await upload(ctx, apiToken, gzipSync(body()), { headers: { 'content-encoding': 'gzip' } });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().report.id).toBe(first.report.id);
    expect(await reportCount()).toBe(1);
  });

  it('sends report.created to webhooks once', async ({ ctx, user, projectId, apiToken }) => {
    const webhookId = await addWebhook(ctx, user, projectId);
    await uploadOk(ctx, apiToken, body());
    await uploadOk(ctx, apiToken, body());
    const deliveries = await ctx.db.selectFrom('webhook_deliveries').select('event').where('webhook_id', '=', webhookId).execute();
    expect(deliveries.map((row) => row.event)).toEqual(['report.created']);
  });

  it('stores two uploads that differ in analyzed_at, or in any byte of the body', async ({ ctx, apiToken, reportCount }) => {
    const first = await uploadOk(ctx, apiToken, body('2026-11-21T09:00:00+00:00'));
    const later = await uploadOk(ctx, apiToken, body('2026-11-21T10:00:00+00:00'));
    const spaced = await uploadOk(ctx, apiToken, `${body('2026-11-21T09:00:00+00:00')} `);
    expect(new Set([first.report.id, later.report.id, spaced.report.id]).size).toBe(3);
    expect(await reportCount()).toBe(3);
  });

  it("stores the same body for another project: a project's uploads are its own", async ({ ctx, user, apiToken, reportCount }) => {
    const other = await ctx.given.project(user, { name: 'Other' });
    const first = await uploadOk(ctx, apiToken, body());
    const elsewhere = await uploadOk(ctx, other.apiToken, body());
    expect(elsewhere.report.id).not.toBe(first.report.id);
    expect(await reportCount()).toBe(1);
  });

  it('stores it again after 24 hours', async ({ ctx, apiToken, reportCount }) => {
    const first = await uploadOk(ctx, apiToken, body());
    ctx.clock.advance(24 * 60 * 60 * 1000 - 1000);
    expect((await uploadOk(ctx, apiToken, body())).report.id).toBe(first.report.id);
    ctx.clock.advance(2000);
    const after = await uploadOk(ctx, apiToken, body());
    expect(after.report.id).not.toBe(first.report.id);
    expect(await reportCount()).toBe(2);
    // ... and the new one is what a retry finds from then on.
    expect((await uploadOk(ctx, apiToken, body())).report.id).toBe(after.report.id);
  });

  it('stores it again once the first report was deleted', async ({ ctx, user, apiToken, reportCount }) => {
    const first = await uploadOk(ctx, apiToken, body());
    const deleted = await ctx.request({ method: 'DELETE', url: `/api/v1/reports/${first.report.uuid}`, token: user.token });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const again = await uploadOk(ctx, apiToken, body());
    expect(again.report.id).not.toBe(first.report.id);
    expect(await reportCount()).toBe(1);
  });

  it('stores one report when identical uploads race', async ({ ctx, apiToken, reportCount }) => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => upload(ctx, apiToken, body())));
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(201);
    expect(new Set(answers.map((answer) => answer.json().report.id)).size).toBe(1);
    expect(await reportCount()).toBe(1);
  });
});

describe('upload receipts (D40)', () => {
  it('are deleted a day after they were received, and the upload is then new again', async ({ ctx, apiToken, reportCount }) => {
    const first = await uploadOk(ctx, apiToken, body());
    ctx.clock.advance(60 * 60 * 1000);
    const second = await uploadOk(ctx, apiToken, body('2026-11-21T10:00:00+00:00'));
    ctx.clock.advance(23 * 60 * 60 * 1000 + 1000);
    expect(await pruneUploadReceipts({ db: ctx.db, clock: ctx.clock, retentionDays: 1 })).toBe(1);
    expect((await uploadOk(ctx, apiToken, body())).report.id).not.toBe(first.report.id);
    expect((await uploadOk(ctx, apiToken, body('2026-11-21T10:00:00+00:00'))).report.id).toBe(second.report.id);
    expect(await reportCount()).toBe(3);
  });
});
