/**
 * OWASP API Security Top 10 (2023), API7: Server Side Request Forgery.
 *
 * A webhook URL is chosen by a project's owner, and the service sends requests to it (E6). Without
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS:
 * - a URL whose host is `localhost` or an IP literal in a refused range is a 422 at creation and at
 *   update (D32), whatever spelling the literal takes;
 * - a name that resolves to such an address is accepted (its resolution can change), and its
 *   delivery fails at its first attempt, never retried, with an error that says why but not where:
 *   neither the address the name resolved to nor anything else a user could map the network with.
 * The deeper address rules (every IPv6 form that embeds an IPv4 address, names with mixed answers)
 * are tested on the sender itself in test/webhooks/outbound-http.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { createWebhookSender, type ResolveHost } from '../../src/webhooks/outbound-http.js';
import { expectValidationError } from '../helpers/contract.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const HOUR = 3_600_000;
const refusal = (kind: string) => `The host resolves to ${kind}; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it.`;
const urlRefusal = (kind: string) => `The url must not point to ${kind}; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it.`;

describe('API7 server-side request forgery: webhook URLs and deliveries (E6, D32)', () => {
  let ctx: TestContext;
  let owner: TestUser;
  let projectId: string;
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    await ctx.close();
  });

  const given = async (env: Record<string, string> = {}) => {
    ctx = await buildTestApp({ env });
    owner = await ctx.given.user({ plan: 'business' });
    projectId = (await ctx.given.project(owner, { name: 'Shop' })).project.id;
  };
  const hooks = () => `/api/v1/projects/${projectId}/webhooks`;
  const create = (url: string) => ctx.request({ method: 'POST', url: hooks(), token: owner.token, body: { url, events: ['ping'] } });

  const LITERALS: [string, string][] = [
    ['http://localhost/hook', 'a loopback address'],
    ['http://LOCALHOST.:8080/hook', 'a loopback address'],
    ['https://api.localhost/hook', 'a loopback address'],
    ['http://127.0.0.1:8080/hook', 'a loopback address'],
    ['http://2130706433/hook', 'a loopback address'],
    ['http://0x7f.1/hook', 'a loopback address'],
    ['http://[::1]/hook', 'a loopback address'],
    ['http://[::ffff:127.0.0.1]/hook', 'a loopback address'],
    ['http://10.0.0.1/hook', 'a private address'],
    ['http://192.168.1.20/hook', 'a private address'],
    ['http://169.254.169.254/latest/meta-data', 'a link-local address'],
    ['http://100.64.0.1/hook', 'a shared (CGNAT) address'],
    ['http://[fd00::1]/hook', 'a unique-local address'],
    ['http://0.0.0.0/hook', 'an unspecified address'],
    ['http://224.0.0.1/hook', 'a multicast address'],
  ];

  describe('without WEBHOOK_ALLOW_PRIVATE_NETWORKS', () => {
    it('refuses a localhost or refused-range IP literal host with a 422 on url, at creation and at update', async () => {
      await given();
      for (const [url, kind] of LITERALS) {
        expectValidationError(await create(url), ['url'], { url: urlRefusal(kind) });
      }
      expect(await ctx.db.selectFrom('webhooks').selectAll().execute()).toEqual([]);

      const created = await create('https://hooks.example.com/in');
      expect(created.statusCode).toBe(201);
      const id = created.json().webhook.id as string;
      const update = await ctx.request({ method: 'PUT', url: `${hooks()}/${id}`, token: owner.token, body: { url: 'http://[::1]:9000/' } });
      expectValidationError(update, ['url'], { url: urlRefusal('a loopback address') });
      expect((await ctx.db.selectFrom('webhooks').select('url').executeTakeFirstOrThrow()).url).toBe('https://hooks.example.com/in');
    });

    it('fails a delivery to a name that resolves to a refused address at its first attempt, saying why but never where', async () => {
      await given();
      const receiver = await startReceiver();
      receivers.push(receiver);
      const names: Record<string, string> = {
        'hooks.internal.test': '127.0.0.1',
        'db.internal.test': '10.1.2.3',
        'metadata.internal.test': '169.254.169.254',
      };
      const lookup: ResolveHost = async (hostname) => [{ address: names[hostname]!, family: 4 }];
      const sender = createWebhookSender({ allowPrivateNetworks: false, lookup });
      const worker = createDeliveryWorker({
        db: ctx.db,
        clock: ctx.clock,
        sender,
        secrets: ctx.secrets,
        logger: ctx.app.log,
        concurrency: 4,
      });
      try {
        const expected: Record<string, string> = {
          'hooks.internal.test': refusal('a loopback address'),
          'db.internal.test': refusal('a private address'),
          'metadata.internal.test': refusal('a link-local address'),
        };
        for (const [name, error] of Object.entries(expected)) {
          const created = await create(`http://${name}:${receiver.port}/hook`);
          expect(created.statusCode, created.body).toBe(201);
          const id = created.json().webhook.id as string;
          const ping = await ctx.request({ method: 'POST', url: `${hooks()}/${id}/ping`, token: owner.token });
          expect(ping.statusCode).toBe(202);
          expect(await worker.runOnce()).toBe(1);

          const listed = await ctx.request({ method: 'GET', url: `${hooks()}/${id}/deliveries`, token: owner.token });
          expect(listed.statusCode).toBe(200);
          expect(listed.json().data).toEqual([
            expect.objectContaining({
              status: 'failed',
              attempts: 1,
              response_status: null,
              error,
              next_attempt_at: null,
              delivered_at: null,
            }),
          ]);
          // Neither the address nor the name: a user learns nothing of the network from it.
          expect(listed.body).not.toContain(names[name]!);
          expect(listed.body).not.toMatch(/"error":"[^"]*internal\.test/);
          const shown = await ctx.request({ method: 'GET', url: `${hooks()}/${id}`, token: owner.token });
          expect(shown.json().data.last_delivery).toMatchObject({ status: 'failed', response_status: null });
        }
        // Never retried: a day on, nothing is due.
        ctx.clock.advance(25 * HOUR);
        expect(await worker.runOnce()).toBe(0);
        expect(receiver.received).toHaveLength(0);
      } finally {
        await worker.stop(100);
        await sender.close();
      }
    });
  });

  it('with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true accepts loopback and private hosts (self-hosted receivers)', async () => {
    await given({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    for (const [url] of LITERALS) {
      const created = await create(url);
      expect(created.statusCode, `${url}: ${created.body}`).toBe(201);
      await ctx.request({ method: 'DELETE', url: `${hooks()}/${created.json().webhook.id}`, token: owner.token });
    }
  });
});
