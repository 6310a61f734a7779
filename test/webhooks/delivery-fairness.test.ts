/**
 * D31: deliveries are claimed fairly across teams. The attack replayed: one team's five webhooks
 * point at receivers that take the connection and never answer, eight pings each; another team's
 * ping to a healthy receiver must still start within 5 s, while the first team's attempts hang.
 * The worker runs in-process with the real 10 s deadline; the events are made over HTTP.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { createWebhookSender, type WebhookSender } from '../../src/webhooks/outbound-http.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

describe('fair delivery across teams (D31)', () => {
  let ctx: TestContext;
  let worker: DeliveryWorker | undefined;
  let sender: WebhookSender | undefined;
  const receivers: Receiver[] = [];

  beforeEach(async () => {
    ctx = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  });
  afterEach(async () => {
    await worker?.stop(100);
    await sender?.close();
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    await ctx.close();
  });

  const receiver = async (behaviour: Parameters<typeof startReceiver>[0]) => {
    const started = await startReceiver(behaviour);
    receivers.push(started);
    return started;
  };
  const api = (user: TestUser, method: 'GET' | 'POST', url: string, body?: unknown) =>
    ctx.request({ method, url: `/api/v1${url}`, token: user.token, ...(body !== undefined && { body }) });
  /** A webhook of `user`'s own project (their personal team) to `url`; its id. */
  const webhookOf = async (user: TestUser, projectId: string, url: string) => {
    const created = await api(user, 'POST', `/projects/${projectId}/webhooks`, { url, events: ['ping'] });
    expect(created.statusCode, created.body).toBe(201);
    return created.json().webhook.id as string;
  };
  const ping = async (user: TestUser, projectId: string, webhookId: string) => {
    const response = await api(user, 'POST', `/projects/${projectId}/webhooks/${webhookId}/ping`);
    expect(response.statusCode, response.body).toBe(202);
  };

  it("one team's 40 pings to receivers that never answer do not delay another team's ping to a healthy receiver", async () => {
    const attacker = await ctx.given.user({ plan: 'business' });
    const victim = await ctx.given.user({ plan: 'business' });
    const attackerProject = (await ctx.given.project(attacker, { name: 'Hanging' })).project.id;
    const victimProject = (await ctx.given.project(victim, { name: 'Healthy' })).project.id;

    const hanging = await Promise.all(Array.from({ length: 5 }, () => receiver('hang')));
    const healthy = await receiver({ status: 204 });
    const attackerHooks = [];
    for (const hang of hanging) attackerHooks.push(await webhookOf(attacker, attackerProject, hang.url));
    const victimHook = await webhookOf(victim, victimProject, healthy.url);
    // The attacker's 40 are older than the victim's one: oldest-first alone would make it wait.
    for (const hook of attackerHooks) for (let i = 0; i < 8; i++) await ping(attacker, attackerProject, hook);
    ctx.clock.advance(1_000);
    await ping(victim, victimProject, victimHook);

    sender = createWebhookSender({ allowPrivateNetworks: true });
    worker = createDeliveryWorker({
      db: ctx.db,
      clock: ctx.clock,
      sender,
      secrets: ctx.secrets,
      logger: ctx.app.log,
      concurrency: 8,
      pollMs: 50,
    });
    worker.start();

    // Within 5 s, and (the sender's deadline being 10 s) while every hanging attempt still hangs.
    await healthy.waitFor(1);
    const attackerAttempts = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'error'])
      .where('webhook_id', 'in', attackerHooks)
      .execute();
    expect(attackerAttempts).toHaveLength(40);
    expect(attackerAttempts.filter((row) => row.error !== null)).toEqual([]);
    // The hanging team holds a bounded share of the eight slots, never all of them.
    const inFlight = hanging.reduce((sum, hang) => sum + hang.received.length, 0);
    expect(inFlight).toBeGreaterThanOrEqual(1);
    expect(inFlight).toBeLessThanOrEqual(4);
  });
});
