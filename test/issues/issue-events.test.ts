/**
 * E8.8 over HTTP: every change of an issue's state writes the audit event `issue.updated` (read
 * through the team's and the user's audit lists, E5) and sends the webhook event `issue.updated`
 * `{project, state}` (E6), signed, through the delivery worker to a receiver on 127.0.0.1; a refused
 * change writes neither.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { createWebhookSender, type WebhookSender } from '../../src/webhooks/outbound-http.js';
import { ISO_UTC } from '../helpers/contract.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { type Receiver, signatureVerifies, startReceiver } from '../helpers/webhook-receiver.js';
import { DEBUG, SQL, XSS, bulk, changesOf, ok, putState, uploadSpots } from './issues-world.js';

const USER_AGENT = 'scoreboard-issues-test/1.0';
const CLIENT_IP = '203.0.113.80';

describe('issue.updated: audit event and webhook event (E8.8)', () => {
  let ctx: TestContext;
  let owner: TestUser;
  let projectId: string;
  let fingerprints: { sql: string; xss: string; debug: string };
  let receiver: Receiver;
  let sender: WebhookSender;
  let worker: DeliveryWorker;

  beforeEach(async () => {
    // The receiver is on 127.0.0.1: without the setting its URL is a 422 (D32).
    ctx = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    owner = await ctx.given.user({ plan: 'business', name: 'Owner' });
    const created = await ctx.given.project(owner, { name: 'Shop' });
    projectId = created.project.id;
    const uuid = await uploadSpots(ctx, created.apiToken, [SQL, XSS, DEBUG]);
    const items = await changesOf(ctx, owner.token, uuid);
    const of = (message: string) => items.find((item) => item.message === message)!.fingerprint as string;
    fingerprints = { sql: of(SQL.message), xss: of(XSS.message), debug: of(DEBUG.message) };
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
      pollMs: 10,
      onAttempt: ctx.app.webhookMetrics.onAttempt,
    });
  });
  afterEach(async () => {
    await worker.stop(100);
    await sender.close();
    await receiver.close();
    await ctx.close();
  });

  const send = (method: 'PUT' | 'POST' | 'GET', url: string, token: string, body?: unknown) =>
    ctx.request({ method, url, token, body, headers: { 'user-agent': USER_AGENT }, remoteAddress: CLIENT_IP });
  const teamEvents = async (query = '?action=issue.updated') =>
    ok(await send('GET', `/api/v1/teams/${owner.teamId}/audit-events${query}`, owner.token)).data as Record<string, any>[];
  const createWebhook = async (events: string[], url = receiver.url) => {
    const response = await send('POST', `/api/v1/projects/${projectId}/webhooks`, owner.token, { url, events });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { webhook: { id: string }; secret: string };
  };

  it('writes issue.updated with the old and new status, assignee, comment and expiry, for the team and the actor', async () => {
    const tokenId = (
      await ctx.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', owner.id).executeTakeFirstOrThrow()
    ).id;
    ok(
      await send('PUT', `/api/v1/projects/${projectId}/issues/${fingerprints.sql}`, owner.token, {
        status: 'confirmed',
        assignee_id: owner.id,
      }),
    );
    ctx.clock.advance(1000);
    ok(
      await send('PUT', `/api/v1/projects/${projectId}/issues/${fingerprints.sql}`, owner.token, {
        status: 'accepted',
        comment: 'Until Q1',
        expires_at: '2027-01-01',
      }),
    );
    const [second, first] = await teamEvents();
    expect(first).toEqual({
      id: expect.any(Number),
      action: 'issue.updated',
      actor: { type: 'user', id: owner.id, email: owner.email, token_id: tokenId },
      target: { type: 'issue', id: fingerprints.sql },
      team_id: owner.teamId,
      ip: CLIENT_IP,
      user_agent: USER_AGENT,
      details: {
        project_id: projectId,
        status: { old: 'open', new: 'confirmed' },
        assignee_id: { old: null, new: owner.id },
        comment: { old: null, new: null },
        expires_at: { old: null, new: null },
      },
      created_at: '2026-11-21T10:00:00.000Z',
    });
    expect(second!.details).toEqual({
      project_id: projectId,
      status: { old: 'confirmed', new: 'accepted' },
      assignee_id: { old: owner.id, new: null },
      comment: { old: null, new: 'Until Q1' },
      expires_at: { old: null, new: '2027-01-01T00:00:00.000Z' },
    });
    // The actor's own list shows them too.
    const mine = ok(await send('GET', '/api/v1/user/audit-events?action=issue.updated', owner.token)).data as Record<string, any>[];
    expect(mine.map((event) => event.id)).toEqual([second!.id, first!.id]);
  });

  it('names an expired acceptance’s old status as open', async () => {
    const url = `/api/v1/projects/${projectId}/issues/${fingerprints.xss}`;
    ok(await send('PUT', url, owner.token, { status: 'accepted', comment: 'A day', expires_at: '2026-11-22T10:00:00Z' }));
    ctx.clock.advance(24 * 3600 * 1000);
    ok(await send('PUT', url, owner.token, { status: 'confirmed' }));
    const [latest] = await teamEvents();
    expect(latest!.details.status).toEqual({ old: 'open', new: 'confirmed' });
    expect(latest!.details.expires_at).toEqual({ old: '2026-11-22T10:00:00.000Z', new: null });
  });

  it('a bulk change writes one event per issue; a refused change writes none', async () => {
    const before = (await teamEvents('')).length;
    expect(
      (await bulk(ctx, owner.token, projectId, { fingerprints: [fingerprints.sql, 'f'.repeat(32)], status: 'confirmed' })).statusCode,
    ).toBe(422);
    expect((await putState(ctx, owner.token, projectId, fingerprints.sql, { status: 'wont_fix' })).statusCode).toBe(422);
    expect((await teamEvents('')).length).toBe(before);

    ok(
      await bulk(ctx, owner.token, projectId, {
        fingerprints: [fingerprints.debug, fingerprints.xss],
        status: 'wont_fix',
        comment: 'Legacy',
      }),
    );
    const events = await teamEvents();
    expect(events.map((event) => event.target)).toEqual([
      { type: 'issue', id: fingerprints.xss },
      { type: 'issue', id: fingerprints.debug },
    ]);
    for (const event of events) expect(event.details.status).toEqual({ old: 'open', new: 'wont_fix' });
  });

  it('delivers issue.updated {project, state} to subscribed webhooks, signed, with the state the PUT answered', async () => {
    const { webhook, secret } = await createWebhook(['issue.updated']);
    const unsubscribed = await createWebhook(['report.created', 'ping'], 'https://hooks.example.com/other');
    const answer = ok(
      await send('PUT', `/api/v1/projects/${projectId}/issues/${fingerprints.sql}`, owner.token, {
        status: 'false_positive',
        comment: 'Cast to int',
      }),
    );
    expect(await worker.runOnce()).toBe(1);
    await receiver.waitFor(1);
    const [request] = receiver.received;
    expect(request!.headers['scoreboard-event']).toBe('issue.updated');
    expect(signatureVerifies(secret, request!)).toBe(true);
    const payload = JSON.parse(request!.body);
    expect(payload).toEqual({
      type: 'issue.updated',
      timestamp: expect.stringMatching(ISO_UTC),
      data: { project: { id: projectId, name: 'Shop' }, state: answer.data },
    });
    const deliveries = ok(await send('GET', `/api/v1/projects/${projectId}/webhooks/${webhook.id}/deliveries`, owner.token)).data;
    expect(deliveries).toMatchObject([{ event: 'issue.updated', status: 'succeeded', response_status: 200 }]);
    const none = ok(await send('GET', `/api/v1/projects/${projectId}/webhooks/${unsubscribed.webhook.id}/deliveries`, owner.token)).data;
    expect(none).toEqual([]);
  });

  it('a bulk change sends one event per issue, each with its own state; a refused one sends none', async () => {
    await createWebhook(['issue.updated']);
    expect((await bulk(ctx, owner.token, projectId, { fingerprints: [fingerprints.sql], status: 'accepted' })).statusCode).toBe(422);
    expect(await worker.runOnce()).toBe(0);

    const answer = ok(await bulk(ctx, owner.token, projectId, { fingerprints: [fingerprints.sql, fingerprints.xss], status: 'confirmed' }));
    // The worker attempts a webhook's deliveries one at a time (D31): two runs.
    expect((await worker.runOnce()) + (await worker.runOnce())).toBe(2);
    await receiver.waitFor(2);
    const states = receiver.received.map((request) => JSON.parse(request.body).data.state);
    expect(states.sort((a, b) => a.fingerprint.localeCompare(b.fingerprint))).toEqual(
      [...answer.data].sort((a: any, b: any) => a.fingerprint.localeCompare(b.fingerprint)),
    );
    expect(new Set(receiver.received.map((request) => request.headers['webhook-id'])).size).toBe(2);
  });
});
