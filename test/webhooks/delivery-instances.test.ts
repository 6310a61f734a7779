/**
 * E6 with real `scoreboard serve` processes (dist/: `npm run build` first): two instances on one
 * PostgreSQL schema make each attempt once, and a `kill -9` during deliveries loses none. The
 * events are written to the outbox directly (`recordEvent`, as the changes that cause them do), so
 * that hundreds are due at once, beyond any user's rate limit.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { inTransaction } from '../../src/db/database.js';
import { recordPing } from '../../src/webhooks/webhook-events.js';
import { api, createSandbox, okJson, startServer, type RunningServer, type Sandbox } from '../cli/cli-process.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { onPostgres } from '../helpers/test-backend.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

/** A user, a project and a webhook (to `receiver`, for pings) through the API of `server`. */
async function givenWebhook(sandbox: Sandbox, server: { url: string }, receiver: Receiver, email: string) {
  const owner = await okJson<{ token: string }>(sandbox, 'users:create', '--email', email, '--plan', 'business');
  const project = await api(server as RunningServer, 'POST', '/api/v1/projects', owner.token, { name: 'Hooked', framework_version: '11' });
  expect(project.status).toBe(201);
  const hook = await api(server as RunningServer, 'POST', `/api/v1/projects/${project.body.project.id}/webhooks`, owner.token, {
    url: receiver.url,
    events: ['ping'],
  });
  expect(hook.status).toBe(201);
  return { projectId: project.body.project.id as string, webhookId: hook.body.webhook.id as string };
}

/** `count` ping events for the webhook, in one transaction: all due at once. */
async function recordPings(sandbox: Sandbox, projectId: string, webhookId: string, count: number): Promise<string[]> {
  return sandbox.withDb((db) =>
    inTransaction(db, async (trx) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push(await recordPing(trx, systemClock, projectId, webhookId));
      return ids;
    }),
  );
}

const deliveryRows = (sandbox: Sandbox) =>
  sandbox.withDb((db) => db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts']).execute());

describe.skipIf(!onPostgres)('two instances on one PostgreSQL deliver each attempt once', () => {
  let sandbox: Sandbox;
  let a: RunningServer;
  let b: RunningServer;
  let receiver: Receiver;
  beforeAll(async () => {
    sandbox = await createSandbox();
    a = await startServer(sandbox, ENV);
    b = await startServer(sandbox, ENV);
    // Slow enough that both instances are busy at once.
    receiver = await startReceiver({ status: 204, delayMs: 20 });
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await receiver?.close();
    await sandbox?.cleanup();
  });

  it('200 events make exactly 200 first attempts, each delivery once', async () => {
    const { projectId, webhookId } = await givenWebhook(sandbox, a, receiver, 'two-instances@example.com');
    const ids = await recordPings(sandbox, projectId, webhookId, 200);
    await receiver.waitFor(200);
    // Time for a second attempt of anything, were one made.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const seen = receiver.received.map((request) => String(request.headers['webhook-id']));
    expect(seen).toHaveLength(200);
    expect(new Set(seen)).toEqual(new Set(ids));
    const rows = await deliveryRows(sandbox);
    expect(rows.filter((row) => row.status === 'succeeded' && row.attempts === 1)).toHaveLength(200);
  });
});

describe('kill -9 during deliveries', () => {
  let sandbox: Sandbox;
  let server: ServerProcess | undefined;
  let receiver: Receiver;
  beforeAll(async () => {
    sandbox = await createSandbox();
    receiver = await startReceiver({ status: 200, delayMs: 50 });
  });
  afterEach(async () => {
    await server?.kill('SIGTERM');
  });
  afterAll(async () => {
    await receiver?.close();
    await sandbox?.cleanup();
  });

  it('loses no event: after a restart every one is delivered, a retried one under the same id', async () => {
    server = await startServerProcess(sandbox, ENV);
    const { projectId, webhookId } = await givenWebhook(sandbox, server, receiver, 'killed@example.com');
    const ids = await recordPings(sandbox, projectId, webhookId, 60);
    await receiver.waitFor(10);
    await server.kill('SIGKILL');
    const before = receiver.received.length;
    expect(before).toBeLessThan(60);

    // The dead instance's claims would expire after a minute: let that minute pass at once.
    await sandbox.withDb((db) =>
      db
        .updateTable('webhook_deliveries')
        .set({ claimed_until: '2000-01-01T00:00:00.000Z' })
        .where('claimed_until', 'is not', null)
        .execute(),
    );
    server = await server.restart();
    await receiver.waitFor(60, 60_000).catch(() => undefined);
    for (let i = 0; i < 100; i++) {
      const rows = await deliveryRows(sandbox);
      if (rows.every((row) => row.status === 'succeeded')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const rows = await deliveryRows(sandbox);
    expect(rows.map((row) => row.status)).toEqual(Array(60).fill('succeeded'));
    const seen = receiver.received.map((request) => String(request.headers['webhook-id']));
    // At least once each; a delivery cut by the kill may have been seen twice, under its own id.
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(seen.length - 60).toBeLessThanOrEqual(rows.filter((row) => row.attempts > 1).length);
  });

  it('SIGTERM during deliveries: the attempts in flight finish and are recorded; a restart delivers the rest, none twice', async () => {
    await receiver.close();
    receiver = await startReceiver({ status: 200, delayMs: 50 });
    server = await startServerProcess(sandbox, ENV);
    const { projectId, webhookId } = await givenWebhook(sandbox, server, receiver, 'stopped@example.com');
    const ids = await recordPings(sandbox, projectId, webhookId, 40);
    await receiver.waitFor(5);
    expect(await server.kill('SIGTERM')).toEqual({ code: 0, signal: null });
    // Nothing was left claimed: the stopped instance recorded every attempt it made.
    const left = await sandbox.withDb((db) =>
      db.selectFrom('webhook_deliveries').selectAll().where('claimed_until', 'is not', null).where('status', '=', 'pending').execute(),
    );
    expect(left).toEqual([]);

    server = await server.restart();
    await receiver.waitFor(40);
    const seen = receiver.received.map((request) => String(request.headers['webhook-id']));
    expect(seen).toHaveLength(40);
    expect(new Set(seen)).toEqual(new Set(ids));
  });
});
