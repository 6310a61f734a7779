/**
 * E9.2: a webhook's signing secret, sealed or plain, and the key that seals it never reach the log:
 * not when the webhook is created, rotated, pinged or delivered (failed attempts are logged), not
 * when a secret cannot be opened, and not in `serve`'s start-up line that says where the key came
 * from (the real process's stdout, LOG_LEVEL=trace).
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createSecretBox, generateSecretKey, parseSecretKey } from '../../src/secrets/secret-box.js';
import { createDeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { createWebhookSender } from '../../src/webhooks/outbound-http.js';
import { api, createSandbox, okJson, startServer, type RunningServer, type Sandbox } from '../cli/cli-process.js';
import { appTest } from '../helpers/app-fixture.js';
import { onPostgres } from '../helpers/test-backend.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const it = appTest({ log: 'trace', env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });

/** A secret whole, without its prefix, and in halves. */
function fragmentsOf(secret: string): string[] {
  const body = secret.replace(/^whsec_/, '');
  return [...new Set([secret, body, body.slice(0, 20), body.slice(20)])].filter((fragment) => fragment.length >= 8);
}

function expectNoSecret(log: string, secrets: string[]): void {
  for (const secret of secrets) {
    for (const fragment of fragmentsOf(secret)) expect(log, `log contains ${fragment}`).not.toContain(fragment);
  }
}

describe('webhook secrets in the log (E9.2)', () => {
  it('logs creating, rotating, pinging and failed deliveries without a secret, sealed or plain, or the key', async ({
    ctx,
    log,
    user,
    projectId,
  }) => {
    const receiver = await startReceiver({ status: 500 });
    const sender = createWebhookSender({ allowPrivateNetworks: true, timeoutMs: 2_000 });
    try {
      const hooks = `/api/v1/projects/${projectId}/webhooks`;
      const created = (
        await ctx.request({ method: 'POST', url: hooks, token: user.token, body: { url: receiver.url, events: ['ping'] } })
      ).json();
      const rotated: string = (
        await ctx.request({ method: 'POST', url: `${hooks}/${created.webhook.id}/rotate-secret`, token: user.token })
      ).json().secret;
      expect((await ctx.request({ method: 'POST', url: `${hooks}/${created.webhook.id}/ping`, token: user.token })).statusCode).toBe(202);
      const worker = (secrets = ctx.secrets) =>
        createDeliveryWorker({ db: ctx.db, clock: ctx.clock, sender, secrets, logger: ctx.app.log, concurrency: 1 });
      expect(await worker().runOnce()).toBe(1);
      // A key that opens nothing stored: the attempt is refused, and the warning says why without a secret.
      ctx.clock.advance(3600_000);
      expect(await worker(createSecretBox(parseSecretKey(generateSecretKey()))).runOnce()).toBe(1);

      expect(log.text).toMatch(/request completed/);
      expect(log.text).toMatch(/webhook attempt failed/);
      expect(log.text).toMatch(/neither SECRET_KEY nor SECRET_KEY_PREVIOUS/);
      const row = await ctx.db.selectFrom('webhooks').select(['secret', 'previous_secret']).executeTakeFirstOrThrow();
      expectNoSecret(log.text, [created.secret, rotated]);
      for (const sealed of [row.secret, row.previous_secret!]) expect(log.text).not.toContain(sealed.split(':')[4]!.slice(0, 16));
      if (ctx.config.secretKey) expect(log.text).not.toContain(ctx.config.secretKey);
    } finally {
      await sender.close();
      await receiver.close();
    }
  });
});

describe('scoreboard serve: the start-up line says where the key came from, never the key', () => {
  let sandbox: Sandbox;
  let server: RunningServer | undefined;
  const KEY = generateSecretKey();
  beforeAll(async () => {
    sandbox = await createSandbox();
  });
  afterAll(async () => {
    await server?.stop();
    await sandbox?.cleanup();
  });

  it.skipIf(onPostgres)('SQLite without SECRET_KEY: generates secret.key (0600) beside the database once, then reads it', async () => {
    server = await startServer(sandbox, { LOG_LEVEL: 'trace' });
    await server.stop();
    const keyFile = join(dirname(sandbox.store.sqliteFile!), 'secret.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, 'utf8').trim();
    expect(server.output()).toContain(
      `generated a key for stored secrets into ${keyFile} (mode 0600): back it up, apart from the database`,
    );
    expect(server.output()).toContain('"secret_key_source":"generated secret.key"');

    server = await startServer(sandbox, { LOG_LEVEL: 'trace' });
    await server.stop();
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(key);
    expect(server.output()).toContain(`stored secrets are sealed with the key in ${keyFile}`);
    expect(server.output().match(/secret_key_source/g)).toHaveLength(1);
    expect(server.output()).not.toContain(key);
    server = undefined;
  });

  it('with SECRET_KEY: says so once, and prints neither the key nor a webhook secret', async () => {
    server = await startServer(sandbox, { LOG_LEVEL: 'trace', SECRET_KEY: KEY, SECRET_KEY_PREVIOUS: generateSecretKey() });
    const { token } = await okJson<{ token: string }>(sandbox, 'users:create', '--email', 'keys@example.com', '--plan', 'business');
    const project = (await api(server, 'POST', '/api/v1/projects', token, { name: 'Shop', framework_version: '11' })).body.project;
    const hook = await api(server, 'POST', `/api/v1/projects/${project.id}/webhooks`, token, {
      url: 'https://hooks.example.com/x',
      events: ['ping'],
    });
    expect(hook.status).toBe(201);
    const rotated = await api(server, 'POST', `/api/v1/projects/${project.id}/webhooks/${hook.body.webhook.id}/rotate-secret`, token);
    expect(rotated.status).toBe(200);

    const output = server.output();
    expect(output).toContain('stored secrets are sealed with SECRET_KEY; SECRET_KEY_PREVIOUS opens what the previous key sealed');
    expect(output.match(/secret_key_source/g)).toHaveLength(1);
    expect(output).toMatch(/request completed/);
    expect(output).not.toContain(KEY);
    expectNoSecret(output, [hook.body.secret, rotated.body.secret]);
  });
});
