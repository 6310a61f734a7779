/**
 * WEBHOOK_DELIVERY_RETENTION_DAYS: deliveries done long ago are deleted; pending ones and each
 * webhook's newest (its `last_delivery`) stay. Run on both backends.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { loadConfig } from '../../src/config.js';
import { pruneWebhookDeliveries } from '../../src/webhooks/delivery-retention.js';

const it = appTest({ user: { plan: 'business' } })
  .extend('createWebhook', ({ ctx, projectId, user }) => async (): Promise<string> => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/webhooks`,
      token: user.token,
      body: { url: 'https://hooks.example.com/in', events: ['ping'] },
    });
    expect(response.statusCode).toBe(201);
    return response.json().webhook.id as string;
  })
  /** A ping delivery of `webhookId` created now (the fake clock), then set to `status`. */
  .extend(
    'delivery',
    ({ ctx, projectId, user }) =>
      async (webhookId: string, status: 'pending' | 'succeeded' | 'failed'): Promise<string> => {
        const response = await ctx.request({
          method: 'POST',
          url: `/api/v1/projects/${projectId}/webhooks/${webhookId}/ping`,
          token: user.token,
        });
        expect(response.statusCode).toBe(202);
        const id = response.json().data.id as string;
        await ctx.db.updateTable('webhook_deliveries').set({ status }).where('id', '=', id).execute();
        ctx.clock.advance(1000);
        return id;
      },
  )
  .extend(
    'remaining',
    ({ ctx }) =>
      async () =>
        (await ctx.db.selectFrom('webhook_deliveries').select('id').orderBy('id').execute()).map((row) => row.id).sort(),
  );

const DAY = 24 * 60 * 60 * 1000;

describe('webhook delivery retention', () => {
  it('deletes what is done and older than the retention; keeps pending ones and each webhook newest', async ({
    ctx,
    user,
    projectId,
    createWebhook,
    delivery,
    remaining,
  }) => {
    const [busy, quiet] = [await createWebhook(), await createWebhook()];
    await delivery(busy, 'succeeded');
    await delivery(busy, 'failed');
    const oldPending = await delivery(busy, 'pending');
    await delivery(quiet, 'succeeded');
    const quietNewest = await delivery(quiet, 'failed');
    ctx.clock.advance(40 * DAY);
    const recent = await delivery(busy, 'succeeded');

    expect(await pruneWebhookDeliveries({ db: ctx.db, clock: ctx.clock, retentionDays: 30 })).toBe(3);
    expect(await remaining()).toEqual([oldPending, quietNewest, recent].sort());
    // The quiet webhook still shows its last delivery.
    const shown = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/webhooks/${quiet}`, token: user.token });
    expect(shown.json().data.last_delivery).toMatchObject({ status: 'failed' });
    expect(await pruneWebhookDeliveries({ db: ctx.db, clock: ctx.clock, retentionDays: 30 })).toBe(0);
  });

  it('works in batches, and several instances at once share the work', async ({ ctx, createWebhook, remaining }) => {
    const webhookId = await createWebhook();
    const rows = Array.from({ length: 2_345 }, (_, i) => ({
      id: `0199a1b2-0000-7000-8000-${String(i).padStart(12, '0')}`,
      webhook_id: webhookId,
      event: 'ping',
      payload: '{}',
      status: 'succeeded' as const,
      attempts: 1,
      response_status: 204,
      error: null,
      next_attempt_at: null,
      claimed_until: null,
      created_at: new Date(ctx.clock.now().getTime() - 60 * DAY + i).toISOString(),
      delivered_at: null,
    }));
    for (let i = 0; i < rows.length; i += 400)
      await ctx.db
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 400))
        .execute();
    const runs = await Promise.all([1, 2, 3].map(() => pruneWebhookDeliveries({ db: ctx.db, clock: ctx.clock, retentionDays: 30 })));
    expect(runs.reduce((sum, n) => sum + n, 0)).toBe(2_344);
    expect(await remaining()).toEqual([rows.at(-1)!.id]);
  });

  it('keeps 30 days unless told, and refuses a retention below a day', () => {
    expect(loadConfig({}).webhookDeliveryRetentionDays).toBe(30);
    expect(loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '7' }).webhookDeliveryRetentionDays).toBe(7);
    expect(() => loadConfig({ WEBHOOK_DELIVERY_RETENTION_DAYS: '0' })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS/);
  });
});
