/**
 * E9.2 for E6's signing secrets: stored sealed (AES-256-GCM under SECRET_KEY, context
 * `webhook:<id>` / `webhook-previous:<id>`), opened by the delivery worker to sign; a secret stored
 * before E9.2 (plain) is used as it is and sealed by the data step at the next start with a key;
 * a key rotation (SECRET_KEY_PREVIOUS, then `scoreboard secrets:reencrypt`) keeps every webhook
 * signing. Both backends; the receivers check the signature with the plain secret the API gave.
 */
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { migrateToLatest } from '../../src/migrate.js';
import { createSecretBox, generateSecretKey, parseSecretKey, type SecretBox } from '../../src/secrets/secret-box.js';
import { createDeliveryWorker, type DeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { createWebhookSender, type WebhookSender } from '../../src/webhooks/outbound-http.js';
import { generateWebhookSecret } from '../../src/webhooks/signature.js';
import { webhookSecrets } from '../../src/webhooks/webhook-secrets.js';
import { BIN, runNode } from '../cli/cli-process.js';
import { givenUploader } from '../helpers/reports-world.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { signatureVerifies, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const K1 = generateSecretKey();
const K2 = generateSecretKey();
const K3 = generateSecretKey();
const boxOf = (current: string | null, previous: string | null = null) =>
  createSecretBox(current === null ? null : parseSecretKey(current), previous === null ? null : parseSecretKey(previous));

describe('webhook secrets sealed at rest (E9.2)', () => {
  let ctx: TestContext;
  let user: TestUser;
  let projectId: string;
  let receiver: Receiver;
  const senders: WebhookSender[] = [];
  const workers: DeliveryWorker[] = [];

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop(100)));
    await Promise.all(senders.splice(0).map((sender) => sender.close()));
    await receiver?.close();
    await ctx?.close();
  });

  /** The app, with the keys of `secrets` (default: from the configuration, as `serve` loads them). */
  async function start(secrets?: SecretBox) {
    ctx = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, ...(secrets && { deps: { secrets } }) });
    ({ user, projectId } = await givenUploader(ctx));
    receiver = await startReceiver();
  }

  /** A delivery worker with the keys of `secrets`: the service restarted with other keys. */
  function workerWith(secrets: SecretBox) {
    const sender = createWebhookSender({ allowPrivateNetworks: true, timeoutMs: 2_000 });
    senders.push(sender);
    const worker = createDeliveryWorker({ db: ctx.db, clock: ctx.clock, sender, secrets, logger: ctx.app.log, concurrency: 4 });
    workers.push(worker);
    return worker;
  }

  const hooks = () => `/api/v1/projects/${projectId}/webhooks`;
  async function createWebhook(): Promise<{ id: string; secret: string }> {
    const response = await ctx.request({ method: 'POST', url: hooks(), token: user.token, body: { url: receiver.url, events: ['ping'] } });
    expect(response.statusCode, response.body).toBe(201);
    return { id: response.json().webhook.id, secret: response.json().secret };
  }
  async function rotate(id: string): Promise<string> {
    const response = await ctx.request({ method: 'POST', url: `${hooks()}/${id}/rotate-secret`, token: user.token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().secret;
  }
  /** Pings the webhook and delivers it with `worker`: the request the receiver got. */
  async function pingDelivered(id: string, worker: DeliveryWorker) {
    const response = await ctx.request({ method: 'POST', url: `${hooks()}/${id}/ping`, token: user.token });
    expect(response.statusCode, response.body).toBe(202);
    const before = receiver.received.length;
    expect(await worker.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(before + 1);
    return receiver.received[before]!;
  }
  const stored = (id: string) =>
    ctx.db.selectFrom('webhooks').select(['secret', 'previous_secret']).where('id', '=', id).executeTakeFirstOrThrow();

  it('stores the secret sealed, never in plain text, and signs each delivery with it', async () => {
    await start();
    const { id, secret } = await createWebhook();
    const row = await stored(id);
    expect(ctx.secrets.isSealed(row.secret)).toBe(true);
    expect(row.secret).not.toContain(secret.slice('whsec_'.length, 30));
    expect(webhookSecrets(ctx.secrets).plain(id, row.secret, 'secret')).toBe(secret);

    const request = await pingDelivered(id, workerWith(ctx.secrets));
    expect(signatureVerifies(secret, request)).toBe(true);
    // The sealed text is not what signs.
    expect(signatureVerifies(row.secret, request)).toBe(false);
  });

  it('after a rotation signs with both secrets, each stored sealed under its own context', async () => {
    await start();
    const { id, secret: first } = await createWebhook();
    const second = await rotate(id);
    const row = await stored(id);
    expect(ctx.secrets.isSealed(row.secret) && ctx.secrets.isSealed(row.previous_secret!)).toBe(true);
    expect(webhookSecrets(ctx.secrets).plain(id, row.previous_secret!, 'previous')).toBe(first);
    // A sealed value copied into the other column (or another row) does not open there.
    expect(() => ctx.secrets.open(row.previous_secret!, `webhook:${id}`)).toThrow(/does not open/);

    const request = await pingDelivered(id, workerWith(ctx.secrets));
    expect(signatureVerifies(second, request)).toBe(true);
    expect(signatureVerifies(first, request)).toBe(true);
  });

  it('without a key (PostgreSQL without SECRET_KEY) keeps the secret plain and signs as before E9.2', async () => {
    await start(boxOf(null));
    const { id, secret } = await createWebhook();
    expect(await stored(id)).toEqual({ secret, previous_secret: null });
    const rotated = await rotate(id);
    expect(await stored(id)).toEqual({ secret: rotated, previous_secret: secret });
    const request = await pingDelivered(id, workerWith(boxOf(null)));
    expect(signatureVerifies(rotated, request) && signatureVerifies(secret, request)).toBe(true);
  });

  it('an upgrade: a secret stored before E9.2 signs as it is, and keeps its signature once the data step sealed it', async () => {
    await start(boxOf(K1));
    // As E6 stored them: plain, inserted as the release before E9.2 did (a rotation's previous one too).
    const id = uuidv7();
    const [secret, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const now = ctx.clock.now();
    await ctx.db
      .insertInto('webhooks')
      .values({
        id,
        project_id: projectId,
        url: receiver.url,
        events: JSON.stringify(['ping']),
        description: null,
        active: 1,
        secret,
        previous_secret: previous,
        previous_secret_until: new Date(now.getTime() + 3600_000).toISOString(),
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      })
      .execute();
    const before = await pingDelivered(id, workerWith(boxOf(K1)));
    expect(signatureVerifies(secret, before) && signatureVerifies(previous, before)).toBe(true);

    // The next start with a key: the data step seals both, to the same plain text.
    await migrateToLatest(ctx.db, { secrets: boxOf(K1) });
    const sealed = await stored(id);
    expect(boxOf(K1).isCurrent(sealed.secret) && boxOf(K1).isCurrent(sealed.previous_secret!)).toBe(true);
    expect(JSON.stringify(sealed)).not.toContain(secret.slice(6, 30));
    const after = await pingDelivered(id, workerWith(boxOf(K1)));
    expect(signatureVerifies(secret, after) && signatureVerifies(previous, after)).toBe(true);

    // Idempotent: the next start changes nothing.
    await migrateToLatest(ctx.db, { secrets: boxOf(K1) });
    expect(await stored(id)).toEqual(sealed);
    // Without a key it leaves them alone too.
    await migrateToLatest(ctx.db);
    expect(await stored(id)).toEqual(sealed);
  });

  it('a rotation: sealed under K1, K2 with K1 as previous signs, secrets:reencrypt moves every row to K2, then K2 alone signs', async () => {
    await start(boxOf(K1));
    const { id, secret: first } = await createWebhook();
    const second = await rotate(id);
    const { id: other, secret: otherSecret } = await createWebhook();
    // One of a connection's credentials, sealed as connections/ seals them.
    const connection = uuidv7();
    const credentials = JSON.stringify({ token: 'glpat-not-a-real-token-1234' });
    const now = ctx.clock.now().toISOString();
    await ctx.db
      .insertInto('connections')
      .values({
        id: connection,
        team_id: user.teamId!,
        provider: 'gitlab',
        name: 'GitLab',
        base_url: 'https://gitlab.com/api/v4',
        credentials: boxOf(K1).seal(credentials, `connection:${connection}`),
        credentials_hint: '1234',
        created_at: now,
        updated_at: now,
      })
      .execute();

    // Restarted with SECRET_KEY=K2 and SECRET_KEY_PREVIOUS=K1: what K1 sealed still opens and signs.
    const rotating = boxOf(K2, K1);
    const during = await pingDelivered(id, workerWith(rotating));
    expect(signatureVerifies(second, during) && signatureVerifies(first, during)).toBe(true);
    // K2 alone cannot open them yet: the worker sends nothing unsigned, and says why.
    await ctx.request({ method: 'POST', url: `${hooks()}/${other}/ping`, token: user.token });
    const received = receiver.received.length;
    expect(await workerWith(boxOf(K2)).runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(received);
    const failed = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'error'])
      .where('webhook_id', '=', other)
      .executeTakeFirstOrThrow();
    expect(failed).toEqual({ status: 'pending', error: 'the webhook secret cannot be opened with the configured keys; nothing was sent' });

    const result = await reencrypt({ SECRET_KEY: K2, SECRET_KEY_PREVIOUS: K1 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Rewritten under SECRET_KEY: 4 \(connections\.credentials 1, webhooks\.secret 2, webhooks\.previous_secret 1\)/,
    );
    for (const secret of [first, second, otherSecret, K1, K2]) expect(result.stdout).not.toContain(secret);

    const k2 = boxOf(K2);
    const rows = await ctx.db.selectFrom('webhooks').select(['id', 'secret', 'previous_secret']).execute();
    for (const row of rows) {
      expect(k2.isCurrent(row.secret)).toBe(true);
      if (row.previous_secret !== null) expect(k2.isCurrent(row.previous_secret)).toBe(true);
    }
    const { credentials: resealed } = await ctx.db
      .selectFrom('connections')
      .select('credentials')
      .where('id', '=', connection)
      .executeTakeFirstOrThrow();
    expect(k2.open(resealed, `connection:${connection}`)).toBe(credentials);

    // K2 alone now signs every webhook (the failed attempt's retry included).
    ctx.clock.advance(3600_000);
    expect((await ctx.request({ method: 'POST', url: `${hooks()}/${id}/ping`, token: user.token })).statusCode).toBe(202);
    const before = receiver.received.length;
    expect(await workerWith(k2).runOnce()).toBe(2);
    const sent = receiver.received.slice(before);
    expect(sent).toHaveLength(2);
    const toFirst = sent.find((request) => signatureVerifies(second, request))!;
    expect(signatureVerifies(first, toFirst)).toBe(true);
    expect(sent.filter((request) => request !== toFirst).every((request) => signatureVerifies(otherSecret, request))).toBe(true);
    // Run again: nothing left to do.
    expect((await reencrypt({ SECRET_KEY: K2 })).stdout).toMatch(/^Rewritten under SECRET_KEY: 0 .*already under it: 4\./);
  });

  it('secrets:reencrypt fails naming the rows (never a secret) whose value opens under neither key, and rewrites the others', async () => {
    await start(boxOf(K1));
    const { id: lost, secret: lostSecret } = await createWebhook();
    const { id: kept, secret: keptSecret } = await createWebhook();
    // Sealed under a key since lost (neither SECRET_KEY nor SECRET_KEY_PREVIOUS).
    await ctx.db
      .updateTable('webhooks')
      .set({ secret: boxOf(K3).seal(lostSecret, `webhook:${lost}`) })
      .where('id', '=', lost)
      .execute();

    const result = await reencrypt({ SECRET_KEY: K2, SECRET_KEY_PREVIOUS: K1 });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^Rewritten under SECRET_KEY: 1 /);
    expect(result.stderr).toBe(
      `scoreboard: 1 stored secret(s) open under neither SECRET_KEY nor SECRET_KEY_PREVIOUS and were left as they are: webhooks ${lost} (secret). ` +
        'Set SECRET_KEY_PREVIOUS to the key that sealed them and run again; a secret whose key is lost must be entered again (a webhook: rotate its secret; a connection: update its credentials).\n',
    );
    for (const secret of [lostSecret, keptSecret, K1, K2, K3]) expect(result.stdout + result.stderr).not.toContain(secret);
    expect(boxOf(K2).isCurrent((await stored(kept)).secret)).toBe(true);
    expect(boxOf(K3).open((await stored(lost)).secret, `webhook:${lost}`)).toBe(lostSecret);
  });

  /** `scoreboard secrets:reencrypt` as a process, on the test app's database. */
  function reencrypt(keys: Record<string, string>) {
    return runNode([BIN, 'secrets:reencrypt'], { cwd: tmpdir(), env: { PATH: process.env.PATH ?? '', ...ctx.store.env, ...keys } });
  }
});
