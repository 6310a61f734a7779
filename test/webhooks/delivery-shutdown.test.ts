/**
 * D39 with real `scoreboard serve` processes (dist/: `npm run build` first) on one database: a
 * SIGTERM while webhook attempts are in flight lets them finish (the receiver takes 7 s, past the
 * old 5 s grace), records every outcome before the database closes, and leaves nothing for another
 * instance to send again, so the receiver sees each delivery id once. With a shutdown deadline
 * shorter than the attempts, none is recorded as succeeded and another instance makes them again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { inTransaction } from '../../src/db/database.js';
import { recordPing } from '../../src/webhooks/webhook-events.js';
import { api, createSandbox, okJson, type RunningServer, type Sandbox } from '../cli/cli-process.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { eventually } from '../helpers/eventually.js';

// D31 lets one webhook have 2 attempts in flight at most, one team 4 with this concurrency: two
// webhooks with two deliveries each are all in flight at once.
const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CONCURRENCY: '16' };
const DELIVERIES = 4;

let sandbox: Sandbox | undefined;
let receiver: Receiver | undefined;
const servers: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill('SIGKILL')));
  await receiver?.close();
  await sandbox?.cleanup();
});

/** Instance A, with `DELIVERIES` pings all in flight on it: the receiver holds each for 7 s. */
async function attemptsInFlight(env: Record<string, string>) {
  sandbox = await createSandbox();
  // Slower than the old 5 s grace, faster than the sender's own 10 s timeout.
  const hooked = await startReceiver({ status: 200, delayMs: 7_000 });
  receiver = hooked;
  const a = await startServerProcess(sandbox, { ...ENV, ...env });
  servers.push(a);
  const owner = await okJson<{ token: string }>(sandbox, 'users:create', '--email', 'drain@example.com', '--plan', 'business');
  const project = await api(a as unknown as RunningServer, 'POST', '/api/v1/projects', owner.token, {
    name: 'Drained',
    framework_version: '11',
  });
  expect(project.status).toBe(201);
  const projectId = project.body.project.id as string;
  const webhookIds: string[] = [];
  for (const path of ['?hook=1', '?hook=2']) {
    const hook = await api(a as unknown as RunningServer, 'POST', `/api/v1/projects/${projectId}/webhooks`, owner.token, {
      url: `${hooked.url}${path}`,
      events: ['ping'],
    });
    expect(hook.status).toBe(201);
    webhookIds.push(hook.body.webhook.id);
  }
  const ids = await sandbox.withDb((db) =>
    inTransaction(db, async (trx) => {
      const made: string[] = [];
      for (let i = 0; i < DELIVERIES; i++) made.push(await recordPing(trx, systemClock, projectId, webhookIds[i % 2]!));
      return made;
    }),
  );
  await hooked.waitFor(DELIVERIES);
  return { a, ids: ids.sort(), receiver: hooked, sandbox };
}

const deliveryRows = (sandbox: Sandbox) =>
  sandbox.withDb((db) =>
    db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts', 'response_status']).orderBy('id').execute(),
  );

/** What a claim left behind would do after its minute, at once. */
const expireClaims = (sandbox: Sandbox) =>
  sandbox.withDb((db) =>
    db
      .updateTable('webhook_deliveries')
      .set({ claimed_until: '2000-01-01T00:00:00.000Z' })
      .where('claimed_until', 'is not', null)
      .execute(),
  );

const seenIds = (receiver: Receiver) => receiver.received.map((request) => String(request.headers['webhook-id'])).sort();

describe('SIGTERM with webhook attempts in flight (D39)', () => {
  it('the attempts finish and are recorded as succeeded; another instance sends none of them again', async () => {
    const { a, ids, receiver, sandbox } = await attemptsInFlight({});

    const stopped = a.kill('SIGTERM');
    // Another instance is up while A drains, as in a rolling deploy.
    servers.push(await startServerProcess(sandbox, ENV));
    expect(await stopped).toEqual({ code: 0, signal: null });
    expect(a.output()).not.toMatch(/could not record a webhook attempt|shutdown deadline reached/);

    expect(await deliveryRows(sandbox)).toEqual(ids.map((id) => ({ id, status: 'succeeded', attempts: 1, response_status: 200 })));

    await expireClaims(sandbox);
    // B polls every second; a few of its rounds find nothing to send.
    await expect(receiver.waitFor(DELIVERIES + 1, 3_000)).rejects.toThrow(/receiver got 4 of 5/);
    expect(seenIds(receiver)).toEqual(ids);
  });

  it('past a SHUTDOWN_TIMEOUT_MS shorter than the attempts, none is recorded as succeeded; another instance makes them again', async () => {
    const { a, ids, receiver, sandbox } = await attemptsInFlight({ SHUTDOWN_TIMEOUT_MS: '2000' });

    expect(await a.kill('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(a.output()).toMatch(/shutdown deadline reached with webhook delivery attempts in flight/);
    expect(await deliveryRows(sandbox)).toEqual(ids.map((id) => ({ id, status: 'pending', attempts: 1, response_status: null })));

    await expireClaims(sandbox);
    receiver.otherwise = { status: 200 };
    servers.push(await startServerProcess(sandbox, ENV));
    await receiver.waitFor(2 * DELIVERIES);
    await eventually(async () => (await deliveryRows(sandbox)).every((row) => row.status === 'succeeded'));
    expect(await deliveryRows(sandbox)).toEqual(ids.map((id) => ({ id, status: 'succeeded', attempts: 2, response_status: 200 })));
    // Each twice: the cut attempt (which the receiver may have acted on) and the one made again.
    expect(seenIds(receiver)).toEqual(ids.flatMap((id) => [id, id]));
  });
});
