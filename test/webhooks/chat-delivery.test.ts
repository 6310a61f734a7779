/**
 * E11.5 end to end over HTTP: a webhook created through the API in a chat format is sent the
 * event as that service's message, signed over the body actually sent (E6's headers), with links
 * from PUBLIC_URL; switching it back to `standard` sends E6's own body. The worker runs in-process
 * on the test's fake clock; the receiver is on 127.0.0.1. Run on both backends.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { createWebhookSender, type WebhookSender } from '../../src/webhooks/outbound-http.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { givenUploader, result, uploadBody } from '../helpers/reports-world.js';
import { uploadOk } from '../helpers/client-wire.js';
import { signatureVerifies, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const PUBLIC_URL = 'https://scores.example.com';

describe('chat-format deliveries over HTTP (E11.5)', () => {
  let ctx: TestContext;
  let user: TestUser;
  let projectId: string;
  let apiToken: string;
  let receiver: Receiver;
  let sender: WebhookSender;
  let worker: DeliveryWorker;

  beforeEach(async () => {
    ctx = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', PUBLIC_URL } });
    ({ user, projectId, apiToken } = await givenUploader(ctx));
    receiver = await startReceiver();
    sender = createWebhookSender({ allowPrivateNetworks: true, timeoutMs: 2_000 });
    worker = createDeliveryWorker({
      db: ctx.db,
      clock: ctx.clock,
      sender,
      secrets: ctx.secrets,
      logger: ctx.app.log,
      concurrency: 4,
      random: () => 0.5,
      publicUrl: ctx.config.publicUrl,
    });
  });
  afterEach(async () => {
    await worker.stop(100);
    await sender.close();
    await receiver.close();
    await ctx.close();
  });

  const api = (method: 'POST' | 'PUT', url: string, body?: unknown) => ctx.request({ method, url, token: user.token, body });

  it('a slack webhook is sent the report as a Slack message, signed over that body, with a link to the report', async () => {
    const created = await api('POST', `/api/v1/projects/${projectId}/webhooks`, {
      url: receiver.url,
      events: ['report.created'],
      format: 'slack',
    });
    expect(created.statusCode, created.body).toBe(201);
    const { webhook, secret } = created.json() as { webhook: { id: string; format: string }; secret: string };
    expect(webhook.format).toBe('slack');

    const uploaded = await uploadOk(ctx, apiToken, uploadBody([result('csrf-protection', 'passed')]));
    expect(await worker.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    const delivery = await ctx.db.selectFrom('webhook_deliveries').select(['id', 'status']).executeTakeFirstOrThrow();
    expect(delivery.status).toBe('succeeded');
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Scoreboard-Webhooks/1',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(Math.floor(ctx.clock.now().getTime() / 1000)),
      'scoreboard-event': 'report.created',
    });
    expect(signatureVerifies(secret, request!)).toBe(true);

    const body = JSON.parse(request!.body);
    expect(Object.keys(body).sort()).toEqual(['blocks', 'text']);
    expect(body.text).toMatch(/^\*New report for .+: \d+\/100\*/);
    expect(body.blocks[0].type).toBe('header');
    const buttons = body.blocks.find((block: { type: string }) => block.type === 'actions').elements;
    expect(buttons[0]).toMatchObject({ type: 'button', url: `${PUBLIC_URL}/reports/${uploaded.report.uuid}` });
    expect(body.text).toContain(`<${PUBLIC_URL}/reports/${uploaded.report.uuid}|Open the report>`);
  });

  it('the format is read at each attempt: a ping to a discord webhook, then the same webhook as standard', async () => {
    const created = await api('POST', `/api/v1/projects/${projectId}/webhooks`, { url: receiver.url, events: ['ping'], format: 'discord' });
    const { webhook, secret } = created.json() as { webhook: { id: string }; secret: string };
    const ping = async () => expect((await api('POST', `/api/v1/projects/${projectId}/webhooks/${webhook.id}/ping`)).statusCode).toBe(202);

    await ping();
    expect(await worker.runOnce()).toBe(1);
    const discord = JSON.parse(receiver.received[0]!.body);
    expect(discord).toMatchObject({ allowed_mentions: { parse: [] }, embeds: [{ url: `${PUBLIC_URL}/projects/${projectId}` }] });
    expect(discord.content).toMatch(/^Ping from Scoreboard for /);
    expect(signatureVerifies(secret, receiver.received[0]!)).toBe(true);

    expect((await api('PUT', `/api/v1/projects/${projectId}/webhooks/${webhook.id}`, { format: 'standard' })).statusCode).toBe(200);
    await ping();
    expect(await worker.runOnce()).toBe(1);
    const standard = JSON.parse(receiver.received[1]!.body);
    expect(standard).toMatchObject({ type: 'ping', data: { project: { id: projectId }, webhook: { id: webhook.id } } });
    expect(signatureVerifies(secret, receiver.received[1]!)).toBe(true);
  });
});
