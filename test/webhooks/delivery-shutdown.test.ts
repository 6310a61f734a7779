/**
 * D39 with real `scoreboard serve` processes (dist/: `npm run build` first) on one database: a
 * SIGTERM while webhook attempts are in flight lets them finish (the receiver takes 7 s, past the
 * old 5 s grace), records every outcome before the database closes, and leaves nothing for another
 * instance to send again, so the receiver sees each delivery id once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { inTransaction } from '../../src/db/database.js';
import { recordPing } from '../../src/webhooks/webhook-events.js';
import { api, createSandbox, okJson, type RunningServer, type Sandbox } from '../cli/cli-process.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// D31 lets one webhook have 2 attempts in flight at most, one team 4 with this concurrency: two
// webhooks with two deliveries each are all in flight at once.
const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CONCURRENCY: '16' };
const DELIVERIES = 4;

describe('SIGTERM with webhook attempts in flight (D39)', { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  let receiver: Receiver;
  beforeAll(async () => {
    sandbox = await createSandbox();
    // Slower than the old 5 s grace, faster than the sender's own 10 s timeout.
    receiver = await startReceiver({ status: 200, delayMs: 7_000 });
  }, 30_000);
  afterAll(async () => {
    await Promise.all([a?.kill('SIGKILL'), b?.kill('SIGKILL')]);
    await receiver?.close();
    await sandbox?.cleanup();
  });

  it('the attempts finish and are recorded as succeeded; another instance sends none of them again', async () => {
    a = await startServerProcess(sandbox, ENV);
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
        url: `${receiver.url}${path}`,
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
    // Every attempt has reached the receiver, which holds each for 7 s: all are in flight on A.
    await receiver.waitFor(DELIVERIES, 20_000);

    const stopped = a.kill('SIGTERM');
    // Another instance is up while A drains, as in a rolling deploy.
    b = await startServerProcess(sandbox, ENV);
    expect(await stopped).toEqual({ code: 0, signal: null });
    expect(a.output()).not.toMatch(/could not record a webhook attempt/);

    const rows = await sandbox.withDb((db) =>
      db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts', 'response_status', 'claimed_until']).orderBy('id').execute(),
    );
    expect(rows.map((row) => ({ id: row.id, status: row.status, attempts: row.attempts, response_status: row.response_status }))).toEqual(
      [...ids].sort().map((id) => ({ id, status: 'succeeded', attempts: 1, response_status: 200 })),
    );

    // Were any claim left behind, B would take it once it expired: let that minute pass at once.
    await sandbox.withDb((db) =>
      db
        .updateTable('webhook_deliveries')
        .set({ claimed_until: '2000-01-01T00:00:00.000Z' })
        .where('claimed_until', 'is not', null)
        .execute(),
    );
    // B polls every second; a few of its rounds find nothing to send.
    await expect(receiver.waitFor(DELIVERIES + 1, 3_000)).rejects.toThrow(/receiver got 4 of 5/);
    const seen = receiver.received.map((request) => String(request.headers['webhook-id']));
    expect(seen.sort()).toEqual([...ids].sort());
  });
});
