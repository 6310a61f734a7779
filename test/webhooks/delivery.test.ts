/**
 * E6 deliveries, with the worker in-process on a fake clock (the whole retry schedule runs in
 * milliseconds) and receivers on 127.0.0.1 started by the tests. Run on both backends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/database.js';
import { createDeliveryQueue } from '../../src/webhooks/delivery-queue.js';
import { recordPing } from '../../src/webhooks/webhook-events.js';
import { createDeliveryWorker, RETRY_SCHEDULE_MS, type DeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { createWebhookSender, type ResolveHost, type WebhookSender } from '../../src/webhooks/outbound-http.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { givenUploader, result, uploadBody } from '../helpers/reports-world.js';
import { uploadOk } from '../helpers/client-wire.js';
import { signatureVerifies, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;

describe('webhook deliveries (E6)', () => {
  let ctx: TestContext;
  let user: TestUser;
  let projectId: string;
  let apiToken: string;
  let receiver: Receiver;
  const senders: WebhookSender[] = [];
  const workers: DeliveryWorker[] = [];

  beforeEach(async () => {
    // The receivers are on 127.0.0.1: without the setting, their URLs are a 422 (D32).
    ctx = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    ({ user, projectId, apiToken } = await givenUploader(ctx));
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop(100)));
    await Promise.all(senders.splice(0).map((sender) => sender.close()));
    await receiver.close();
    await ctx.close();
  });

  /** A worker on the test's database and fake clock; jitter off unless told, so due times are exact. */
  const workerWith = (
    options: { allowPrivateNetworks?: boolean; timeoutMs?: number; concurrency?: number; random?: () => number; lookup?: ResolveHost } = {},
  ) => {
    const sender = createWebhookSender({
      allowPrivateNetworks: options.allowPrivateNetworks ?? true,
      timeoutMs: options.timeoutMs ?? 2_000,
      ...(options.lookup && { lookup: options.lookup }),
    });
    senders.push(sender);
    const worker = createDeliveryWorker({
      db: ctx.db,
      clock: ctx.clock,
      sender,
      secrets: ctx.secrets,
      logger: ctx.app.log,
      concurrency: options.concurrency ?? 4,
      random: options.random ?? (() => 0.5),
      pollMs: 10,
      onAttempt: ctx.app.webhookMetrics.onAttempt,
    });
    workers.push(worker);
    return worker;
  };
  const createWebhook = async (url: string, events: string[] = ['report.created', 'ping']) => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/webhooks`,
      token: user.token,
      body: { url, events },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { webhook: { id: string }; secret: string };
  };
  const ping = async (webhookId: string): Promise<string> => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/webhooks/${webhookId}/ping`,
      token: user.token,
    });
    expect(response.statusCode, response.body).toBe(202);
    return response.json().data.id as string;
  };
  const delivery = async (webhookId: string, id: string) => {
    const response = await ctx.request({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/webhooks/${webhookId}/deliveries`,
      token: user.token,
    });
    expect(response.statusCode).toBe(200);
    return (response.json().data as Record<string, any>[]).find((d) => d.id === id)!;
  };
  const at = (from: string, ms: number) => new Date(new Date(from).getTime() + ms).toISOString();

  it('retries through the schedule after a 500, a timeout and a refused connection, then succeeds: one delivery id, signed each time', async () => {
    const { webhook, secret } = await createWebhook(receiver.url);
    const uploaded = await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'passed')]));
    const worker = workerWith({ timeoutMs: 300 });
    receiver.script = [{ status: 500 }, 'hang'];

    expect(await worker.runOnce()).toBe(1);
    const { id, created_at: createdAt } = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'created_at'])
      .executeTakeFirstOrThrow();
    expect(await delivery(webhook.id, id)).toMatchObject({
      event: 'report.created',
      status: 'pending',
      attempts: 1,
      response_status: 500,
      error: 'the receiver answered 500',
      next_attempt_at: at(createdAt, RETRY_SCHEDULE_MS[0]),
      delivered_at: null,
    });
    // Not due yet: nothing is attempted.
    expect(await worker.runOnce()).toBe(0);

    ctx.clock.set(at(createdAt, RETRY_SCHEDULE_MS[0]));
    expect(await worker.runOnce()).toBe(1);
    expect(await delivery(webhook.id, id)).toMatchObject({
      status: 'pending',
      attempts: 2,
      response_status: null,
      error: expect.stringMatching(/^timed out after/),
      next_attempt_at: at(createdAt, RETRY_SCHEDULE_MS[1]),
    });

    await receiver.down();
    ctx.clock.set(at(createdAt, RETRY_SCHEDULE_MS[1]));
    expect(await worker.runOnce()).toBe(1);
    expect(await delivery(webhook.id, id)).toMatchObject({
      status: 'pending',
      attempts: 3,
      error: 'connection refused',
      next_attempt_at: at(createdAt, RETRY_SCHEDULE_MS[2]),
    });

    await receiver.up();
    ctx.clock.set(at(createdAt, RETRY_SCHEDULE_MS[2]));
    expect(await worker.runOnce()).toBe(1);
    expect(await delivery(webhook.id, id)).toMatchObject({
      status: 'succeeded',
      attempts: 4,
      response_status: 200,
      error: null,
      next_attempt_at: null,
      delivered_at: ctx.clock.now().toISOString(),
    });

    // Three requests arrived (the refused one never did): the same id and body, each signed for its own time.
    expect(receiver.received).toHaveLength(3);
    const sentAt = [createdAt, at(createdAt, RETRY_SCHEDULE_MS[0]), at(createdAt, RETRY_SCHEDULE_MS[2])];
    receiver.received.forEach((request, i) => {
      expect(request.method).toBe('POST');
      expect(request.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'Scoreboard-Webhooks/1',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(new Date(sentAt[i]!).getTime() / 1000)),
        'scoreboard-event': 'report.created',
      });
      expect(signatureVerifies(secret, request)).toBe(true);
      expect(request.body).toBe(receiver.received[0]!.body);
    });
    const body = JSON.parse(receiver.received[0]!.body);
    expect(body).toMatchObject({
      type: 'report.created',
      timestamp: createdAt,
      data: { project: { id: projectId }, report: { uuid: uploaded.report.uuid } },
    });

    const metrics = (await ctx.request({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('scoreboard_webhook_deliveries_total{event="report.created",outcome="retrying"} 3');
    expect(metrics).toContain('scoreboard_webhook_deliveries_total{event="report.created",outcome="succeeded"} 1');
    expect(metrics).toContain('scoreboard_webhook_queue_depth 0');
  });

  it('fails the delivery after its last scheduled attempt; jitter keeps each retry within 10 % of its time', async () => {
    receiver.otherwise = { status: 503 };
    const { webhook } = await createWebhook(receiver.url);
    const id = await ping(webhook.id);
    const createdAt = ctx.clock.now().toISOString();
    const worker = workerWith({ random: () => 0.999 });
    for (let attempt = 1; attempt <= RETRY_SCHEDULE_MS.length + 1; attempt++) {
      expect(await worker.runOnce()).toBe(1);
      const shown = await delivery(webhook.id, id);
      expect(shown.attempts).toBe(attempt);
      if (attempt <= RETRY_SCHEDULE_MS.length) {
        const offset = new Date(shown.next_attempt_at).getTime() - new Date(createdAt).getTime();
        const planned = RETRY_SCHEDULE_MS[attempt - 1]!;
        expect(offset).toBeGreaterThan(planned * 1.09);
        expect(offset).toBeLessThanOrEqual(planned * 1.1);
        ctx.clock.set(shown.next_attempt_at);
      }
    }
    expect(await delivery(webhook.id, id)).toMatchObject({ status: 'failed', attempts: 7, response_status: 503, next_attempt_at: null });
    ctx.clock.advance(100 * HOUR);
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(7);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
  });

  it('does not follow a redirect: a 3xx is a failed attempt, and its target is never asked', async () => {
    const target = await startReceiver();
    try {
      receiver.script = [{ status: 302, headers: { location: target.url } }];
      const { webhook } = await createWebhook(receiver.url);
      const id = await ping(webhook.id);
      await workerWith().runOnce();
      expect(await delivery(webhook.id, id)).toMatchObject({ status: 'pending', attempts: 1, response_status: 302 });
      expect(target.received).toHaveLength(0);
    } finally {
      await target.close();
    }
  });

  it('refuses loopback receivers without WEBHOOK_ALLOW_PRIVATE_NETWORKS at the first attempt, never retried, saying why but not where (D32)', async () => {
    // Made while the setting was on, delivered after it was turned off; a name resolves to loopback too.
    const lookup: ResolveHost = async (hostname) =>
      hostname === 'hooks.example.test' ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '::1', family: 6 }];
    const urls = [
      receiver.url,
      `http://2130706433:${receiver.port}/hook`,
      `http://localhost:${receiver.port}/hook`,
      `http://hooks.example.test:${receiver.port}/hook`,
    ];
    const worker = workerWith({ allowPrivateNetworks: false, lookup });
    const refused: [string, string][] = [];
    for (const url of urls) {
      const { webhook } = await createWebhook(url);
      refused.push([webhook.id, await ping(webhook.id)]);
    }
    // One team's, so a few at a time (D31's share): each is attempted once.
    let attempted = 0;
    for (let round = await worker.runOnce(); round > 0; round = await worker.runOnce()) attempted += round;
    expect(attempted).toBe(urls.length);
    for (const [webhookId, id] of refused) {
      expect(await delivery(webhookId, id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        response_status: null,
        error: 'The host resolves to a loopback address; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it.',
        next_attempt_at: null,
      });
    }
    // The day E6 would have retried it: nothing is due.
    ctx.clock.advance(25 * HOUR);
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(0);
    const metrics = (await ctx.request({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain(`scoreboard_webhook_deliveries_total{event="ping",outcome="failed"} ${urls.length}`);
  });

  it('deleting a webhook stops its pending deliveries', async () => {
    const { webhook } = await createWebhook(receiver.url);
    await ping(webhook.id);
    await ping(webhook.id);
    const deleted = await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${projectId}/webhooks/${webhook.id}`, token: user.token });
    expect(deleted.statusCode).toBe(200);
    expect(await workerWith().runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });

  it('an attempt whose instance died (its claim left behind) is made again once the claim expires, with the same id', async () => {
    const { webhook, secret } = await createWebhook(receiver.url);
    const id = await ping(webhook.id);
    // Another instance claimed it and died: nothing is recorded but the claim.
    const now = ctx.clock.now();
    const [claimed] = await createDeliveryQueue(ctx.db).claimDue(now.toISOString(), at(now.toISOString(), 60 * SECOND), 10);
    expect(claimed!.id).toBe(id);
    const worker = workerWith();
    expect(await worker.runOnce()).toBe(0);
    ctx.clock.advance(60 * SECOND);
    expect(await worker.runOnce()).toBe(1);
    expect(await delivery(webhook.id, id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([id]);
    expect(signatureVerifies(secret, receiver.received[0]!)).toBe(true);
  });

  it('signs with the old and the new secret for 24 hours after a rotation, then with the new one only', async () => {
    const { webhook, secret: old } = await createWebhook(receiver.url);
    const rotated = await ctx.request({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/webhooks/${webhook.id}/rotate-secret`,
      token: user.token,
    });
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json().secret as string;
    const worker = workerWith();

    await ping(webhook.id);
    await worker.runOnce();
    const during = receiver.received[0]!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(signatureVerifies(old, during)).toBe(true);
    expect(signatureVerifies(fresh, during)).toBe(true);

    ctx.clock.advance(24 * HOUR + SECOND);
    await ping(webhook.id);
    await worker.runOnce();
    const after = receiver.received[1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(signatureVerifies(fresh, after)).toBe(true);
    expect(signatureVerifies(old, after)).toBe(false);
  });

  it('one slow receiver holds at most its share: the other webhook is delivered meanwhile; /readyz stays ready', async () => {
    const slow = await startReceiver('hang');
    try {
      const hooks = { slow: (await createWebhook(slow.url)).webhook.id, fast: (await createWebhook(receiver.url)).webhook.id };
      // The slow one's backlog is older than everything the fast one has: it must not hold it up.
      // Written to the outbox directly, as the changes that cause events do: more than D31's ten pings a minute.
      await inTransaction(ctx.db, async (trx) => {
        for (let i = 0; i < 30; i++) await recordPing(trx, ctx.clock, projectId, hooks.slow);
      });
      for (let i = 0; i < 5; i++) await ping(hooks.fast);
      const worker = workerWith({ concurrency: 3, timeoutMs: 10_000 });
      worker.start();
      await receiver.waitFor(5);
      // One attempt to one webhook at a time on an instance of three slots (D31's share).
      expect(slow.received.length).toBe(1);
      const ready = await ctx.request({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().status).toBe('ok');
      // The pings were all made at the fake clock's one instant: seven seconds on, they are that old.
      ctx.clock.advance(7_000);
      const metrics = (await ctx.request({ method: 'GET', url: '/metrics' })).body;
      // The slow webhook's thirty are still pending (one of them in flight), and perhaps the fast one's last, received but not yet recorded.
      expect(metrics).toMatch(/scoreboard_webhook_queue_depth 3[01]\n/);
      expect(metrics).toMatch(/scoreboard_webhook_oldest_pending_age_seconds 7\n/);
    } finally {
      await slow.close();
    }
  });
});
