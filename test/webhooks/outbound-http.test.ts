import { promises as dns } from 'node:dns';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { forbiddenAddressReason } from '../../src/webhooks/network-policy.js';
import { createWebhookSender, type ResolveHost, type WebhookSender } from '../../src/webhooks/outbound-http.js';
import { webhookUrlProblem } from '../../src/webhooks/webhook-url.js';

/**
 * E6: the webhook HTTP client against real receivers (node:http servers on 127.0.0.1), and the
 * address and URL rules it rests on.
 */

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Receiver {
  port: number;
  /** Requests received in full. */
  requests: SeenRequest[];
  /** TCP connections accepted. */
  connections: number;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A receiver that records each request and lets `answer` reply (or not). */
async function startReceiver(answer: (request: SeenRequest, response: ServerResponse) => void): Promise<Receiver> {
  const receiver: Receiver = { port: 0, requests: [], connections: 0, close: async () => {} };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const seen = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      receiver.requests.push(seen);
      answer(seen, response);
    });
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  cleanups.push(receiver.close);
  return receiver;
}

function sender(options: Parameters<typeof createWebhookSender>[0]): WebhookSender {
  const created = createWebhookSender(options);
  cleanups.push(() => created.close());
  return created;
}

const ping = { headers: { 'content-type': 'application/json' }, body: '{"type":"ping"}' };

describe('forbiddenAddressReason', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows %s', (address) => {
    expect(forbiddenAddressReason(address)).toBeNull();
  });

  it.each([
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['127.255.0.9', '127.255.0.9 is a loopback address'],
    ['::1', '::1 is a loopback address'],
    ['10.0.0.1', '10.0.0.1 is a private address'],
    ['172.16.5.4', '172.16.5.4 is a private address'],
    ['192.168.1.1', '192.168.1.1 is a private address'],
    ['169.254.169.254', '169.254.169.254 is a link-local address'],
    ['fe80::1', 'fe80::1 is a link-local address'],
    ['100.64.0.1', '100.64.0.1 is a shared (CGNAT) address'],
    ['fd00::1', 'fd00::1 is a unique-local address'],
    ['224.0.0.1', '224.0.0.1 is a multicast address'],
    ['ff02::1', 'ff02::1 is a multicast address'],
    ['0.0.0.0', '0.0.0.0 is an unspecified address'],
    ['0.1.2.3', '0.1.2.3 is an unspecified address'],
    ['::', ':: is an unspecified address'],
    ['255.255.255.255', '255.255.255.255 is the broadcast address'],
    ['192.0.2.1', '192.0.2.1 is a reserved (documentation or special-purpose) address'],
    ['198.18.0.1', '198.18.0.1 is a reserved (documentation or special-purpose) address'],
    ['240.0.0.1', '240.0.0.1 is a reserved (documentation or special-purpose) address'],
    ['2001:db8::1', '2001:db8::1 is a reserved (documentation or special-purpose) address'],
    ['fec0::1', 'fec0::1 is a site-local address'],
    ['::ffff:127.0.0.1', '::ffff:127.0.0.1 embeds 127.0.0.1 (IPv4-mapped), which is a loopback address'],
    ['::ffff:7f00:1', '::ffff:7f00:1 embeds 127.0.0.1 (IPv4-mapped), which is a loopback address'],
    ['::ffff:a9fe:a9fe', '::ffff:a9fe:a9fe embeds 169.254.169.254 (IPv4-mapped), which is a link-local address'],
    ['::7f00:1', '::7f00:1 embeds 127.0.0.1 (IPv4-compatible), which is a loopback address'],
    ['::ffff:0:a00:1', '::ffff:0:a00:1 embeds 10.0.0.1 (IPv4-translated), which is a private address'],
    ['64:ff9b::7f00:1', '64:ff9b::7f00:1 embeds 127.0.0.1 (NAT64), which is a loopback address'],
    ['64:ff9b:1::1', '64:ff9b:1::1 is a local-use NAT64 address'],
    ['2002:a00:1::1', '2002:a00:1::1 embeds 10.0.0.1 (6to4), which is a private address'],
    // Teredo keeps the client's address inverted: 80ff:fffe is 127.0.0.1.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', '2001:0:4136:e378:8000:63bf:80ff:fffe embeds 127.0.0.1 (Teredo), which is a loopback address'],
    ['2130706433', '2130706433 is a loopback address'],
    ['0x7f.1', '0x7f.1 is a loopback address'],
    ['[::1]', '[::1] is a loopback address'],
    ['example.com', 'example.com is not an IP address'],
    ['', ' is not an IP address'],
  ])('forbids %s', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });
});

describe('webhookUrlProblem', () => {
  it.each([
    'https://hooks.example.com/scoreboard',
    'http://example.com',
    'https://example.com:8443/a/b?c=d',
    'http://203.0.113.9/hook',
    'http://[2001:db8::1]:8080/',
    `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`,
  ])('accepts %s', (url) => {
    expect(webhookUrlProblem(url)).toBeNull();
  });

  it.each([
    ['ftp://example.com/hook', 'The url must be an http or https URL.'],
    ['file:///etc/passwd', 'The url must be an http or https URL.'],
    ['javascript:alert(1)', 'The url must be an http or https URL.'],
    ['http://user:pw@example.com/', 'The url must not contain a user name or password.'],
    ['https://user@example.com/', 'The url must not contain a user name or password.'],
    ['http://', 'The url must be an absolute http or https URL.'],
    ['/relative/path', 'The url must be an absolute http or https URL.'],
    ['', 'The url must be an absolute http or https URL.'],
    ['http://exa mple.com/', 'The url must not contain spaces or control characters.'],
    ['http://example.com/\nx', 'The url must not contain spaces or control characters.'],
    [`https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`, 'The url must be at most 2048 characters long.'],
  ])('refuses %s', (url, problem) => {
    expect(webhookUrlProblem(url)).toBe(problem);
  });
});

describe('createWebhookSender', () => {
  it('POSTs the headers and body and returns the status and body', async () => {
    const receiver = await startReceiver((_, response) => response.writeHead(202, { 'content-type': 'text/plain' }).end('accepted'));
    const outcome = await sender({ allowPrivateNetworks: true }).send(`http://127.0.0.1:${receiver.port}/hooks/in?x=1`, {
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'Content-Length': '999' },
      body: '{"type":"ping","note":"é"}',
    });
    expect(outcome).toEqual({ status: 202, body: 'accepted' });
    expect(receiver.requests).toHaveLength(1);
    const [seen] = receiver.requests;
    expect(seen).toMatchObject({ method: 'POST', url: '/hooks/in?x=1', body: '{"type":"ping","note":"é"}' });
    expect(seen!.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'msg_1',
      // Counted by the sender, in bytes (é is two), whatever the caller said.
      'content-length': '27',
      host: `127.0.0.1:${receiver.port}`,
    });
  });

  it('returns a non-2xx status as it is', async () => {
    const receiver = await startReceiver((_, response) => response.writeHead(500).end('boom'));
    expect(await sender({ allowPrivateNetworks: true }).send(`http://127.0.0.1:${receiver.port}/`, ping)).toEqual({
      status: 500,
      body: 'boom',
    });
  });

  it('keeps the connection alive between deliveries', async () => {
    const receiver = await startReceiver((_, response) => response.end('ok'));
    const client = sender({ allowPrivateNetworks: true });
    expect(await client.send(`http://127.0.0.1:${receiver.port}/a`, ping)).toEqual({ status: 200, body: 'ok' });
    expect(await client.send(`http://127.0.0.1:${receiver.port}/b`, ping)).toEqual({ status: 200, body: 'ok' });
    expect(receiver.requests.map((request) => request.url)).toEqual(['/a', '/b']);
    expect(receiver.connections).toBe(1);
  });

  it('does not follow a redirect', async () => {
    const receiver = await startReceiver((request, response) => {
      if (request.url === '/target') response.end('followed');
      else response.writeHead(302, { location: `http://127.0.0.1:${receiver.port}/target` }).end();
    });
    const outcome = await sender({ allowPrivateNetworks: true }).send(`http://127.0.0.1:${receiver.port}/hook`, ping);
    expect(outcome).toEqual({ status: 302, body: '' });
    // Given time to follow, it would have by now.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.requests.map((request) => request.url)).toEqual(['/hook']);
  });

  it('reads at most 64 KiB of a response and then lets go of it', async () => {
    let receiverSawClose: () => void = () => {};
    const closed = new Promise<void>((resolve) => (receiverSawClose = resolve));
    const receiver = await startReceiver((_, response) => {
      response.on('close', () => receiverSawClose());
      // 1 MiB, and the response never ends: only reading no further settles the delivery.
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write(Buffer.alloc(1024 * 1024, 'a'));
    });
    const started = Date.now();
    const outcome = await sender({ allowPrivateNetworks: true }).send(`http://127.0.0.1:${receiver.port}/`, ping);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(outcome.status).toBe(200);
    expect(outcome.status !== null && outcome.body).toBe('a'.repeat(65_536));
    // The connection is cut, not drained for reuse.
    await closed;
  });

  it('gives up at the deadline when the receiver does not answer', async () => {
    const receiver = await startReceiver(() => {});
    const started = Date.now();
    const outcome = await sender({ allowPrivateNetworks: true, timeoutMs: 200 }).send(`http://127.0.0.1:${receiver.port}/`, ping);
    const elapsed = Date.now() - started;
    expect(outcome).toEqual({ status: null, error: 'timed out after 200 ms' });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2_000);
    expect(receiver.requests).toHaveLength(1);
  });

  it('gives up at the deadline when the body trickles', async () => {
    const receiver = await startReceiver((_, response) => {
      response.writeHead(200);
      response.write('still ');
    });
    const outcome = await sender({ allowPrivateNetworks: true, timeoutMs: 200 }).send(`http://127.0.0.1:${receiver.port}/`, ping);
    expect(outcome).toEqual({ status: null, error: 'timed out after 200 ms' });
  });

  it('reports a refused connection', async () => {
    const receiver = await startReceiver(() => {});
    await receiver.close();
    const outcome = await sender({ allowPrivateNetworks: true }).send(`http://127.0.0.1:${receiver.port}/`, ping);
    expect(outcome).toEqual({ status: null, error: 'connection refused' });
  });

  it('reports a host that does not resolve', async () => {
    const lookup: ResolveHost = async (hostname) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    };
    const outcome = await sender({ allowPrivateNetworks: false, lookup }).send('https://nowhere.example.test/', ping);
    expect(outcome).toEqual({ status: null, error: 'host not found: nowhere.example.test' });
  });

  describe('server-side request forgery', () => {
    /** Test names: one to loopback, one to a public address and loopback. */
    const lookup: ResolveHost = async (hostname) => {
      if (hostname === 'hooks.example.test') return [{ address: '127.0.0.1', family: 4 }];
      if (hostname === 'mixed.example.test') {
        return [
          { address: '93.184.215.14', family: 4 },
          { address: '127.0.0.1', family: 4 },
        ];
      }
      return dns.lookup(hostname, { all: true });
    };

    it.each([
      ['http://127.0.0.1:PORT/', 'a loopback address', /^127\.0\.0\.1 is a loopback address$/],
      ['http://10.0.0.1/', 'a private address', /^10\.0\.0\.1 is a private address$/],
      ['http://169.254.169.254/latest/meta-data', 'a link-local address', /^169\.254\.169\.254 is a link-local address$/],
      ['http://[::1]:PORT/', 'a loopback address', /^::1 is a loopback address$/],
      [
        'http://[::ffff:127.0.0.1]:PORT/',
        'a loopback address',
        /^::ffff:7f00:1 embeds 127\.0\.0\.1 \(IPv4-mapped\), which is a loopback address$/,
      ],
      [
        'http://[::127.0.0.1]:PORT/',
        'a loopback address',
        /^::7f00:1 embeds 127\.0\.0\.1 \(IPv4-compatible\), which is a loopback address$/,
      ],
      [
        'http://[64:ff9b::127.0.0.1]:PORT/',
        'a loopback address',
        /^64:ff9b::7f00:1 embeds 127\.0\.0\.1 \(NAT64\), which is a loopback address$/,
      ],
      ['http://localhost:PORT/', 'a loopback address', /^(127\.0\.0\.1|::1) is a loopback address$/],
      ['http://hooks.example.test:PORT/', 'a loopback address', /^127\.0\.0\.1 is a loopback address$/],
      ['http://mixed.example.test:PORT/', 'a loopback address', /^127\.0\.0\.1 is a loopback address$/],
      ['http://2130706433:PORT/', 'a loopback address', /^127\.0\.0\.1 is a loopback address$/],
      ['http://0x7f.1:PORT/', 'a loopback address', /^127\.0\.0\.1 is a loopback address$/],
      ['https://127.1:PORT/', 'a loopback address', /^127\.0\.0\.1 is a loopback address$/],
    ])('refuses %s without connecting: the error names the kind of address (D32), only the log the address', async (url, kind, detail) => {
      const receiver = await startReceiver((_, response) => response.end('reached'));
      const outcome = await sender({ allowPrivateNetworks: false, lookup }).send(url.replace('PORT', String(receiver.port)), ping);
      expect(outcome).toEqual({
        status: null,
        error: `The host resolves to ${kind}; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it.`,
        refused: { detail: expect.stringMatching(detail) },
      });
      expect(receiver.connections).toBe(0);
      expect(receiver.requests).toHaveLength(0);
    });

    it('connects to the address the lookup gave when private networks are allowed', async () => {
      const receiver = await startReceiver((_, response) => response.end('reached'));
      const outcome = await sender({ allowPrivateNetworks: true, lookup }).send(`http://hooks.example.test:${receiver.port}/`, ping);
      expect(outcome).toEqual({ status: 200, body: 'reached' });
      expect(receiver.requests[0]!.headers.host).toBe(`hooks.example.test:${receiver.port}`);
    });
  });
});
