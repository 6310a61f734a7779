/**
 * D24: a request whose `Host` header is not a valid host[:port] gets 400; links (D16) are built from
 * the host only when PUBLIC_URL is unset, and then only from a host of that shape. The issue's
 * reproduction: `Host: evil.example/path?x=` was copied into every pagination link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_UTF8 } from '../helpers/contract.js';
import { sendRaw, type RawResponse } from '../helpers/raw-http.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';

const BAD_HOST = { error: 'Bad Request', message: 'The Host header must be a host name or IP address, with an optional port.' };

async function listening(ctx: TestContext): Promise<number> {
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const address = ctx.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return address.port;
}

const json = (response: RawResponse) => JSON.parse(response.body) as Record<string, any>;

describe('the Host header (D24)', () => {
  let ctx: TestContext;
  let user: TestUser;
  let apiToken: string;
  let port: number;
  beforeAll(async () => {
    ctx = await buildTestApp();
    user = await ctx.given.user({ plan: 'enterprise' });
    ({ apiToken } = await ctx.given.project(user, { name: 'Hosted' }));
    port = await listening(ctx);
  });
  afterAll(async () => ctx.close());

  const listProjects = (host: string | null, httpVersion: '1.0' | '1.1' = '1.1') =>
    sendRaw(port, { method: 'GET', target: '/api/v1/projects', host, httpVersion, headers: [['Authorization', `Bearer ${user.token}`]] });

  it.each([
    'evil.example/path?x=',
    'evil.example#x',
    'evil.example:80:80',
    'evil.example:99999',
    'evil.example:port',
    'user@evil.example',
    'evil example',
    '[::1',
    '[not-an-ip]:80',
    'evil.example\\x',
    '',
  ])('answers Host %j with 400 on /api/v1, rate-limit headers included', async (host) => {
    const response = await listProjects(host);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe(JSON_UTF8);
    expect(response.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
    expect(json(response)).toEqual(BAD_HOST);
  });

  it('answers a bad Host with 400 on the client package endpoints too, with success: false', async () => {
    const response = await sendRaw(port, {
      method: 'GET',
      target: '/api/project',
      host: 'evil.example/x',
      headers: [['Authorization', `Bearer ${apiToken}`]],
    });
    expect(response.status).toBe(400);
    expect(json(response)).toEqual({ success: false, ...BAD_HOST });
  });

  it('answers a bad Host with 400 everywhere else', async () => {
    for (const target of ['/healthz', '/api/v1/openapi.json', '/docs']) {
      const response = await sendRaw(port, { method: 'GET', target, host: 'evil.example/x' });
      expect({ target, status: response.status, body: json(response) }).toEqual({ target, status: 400, body: BAD_HOST });
    }
  });

  it.each([
    ['localhost', 'http://localhost'],
    ['127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['[::1]:8080', 'http://[::1]:8080'],
    ['scoreboard.example.com.', 'http://scoreboard.example.com.'],
    ['Scoreboard-01.Example.COM:443', 'http://Scoreboard-01.Example.COM:443'],
  ])('builds links from Host %j', async (host, origin) => {
    const response = await listProjects(host);
    expect(response.status).toBe(200);
    expect(json(response).links.first).toBe(`${origin}/api/v1/projects?page=1`);
  });

  it('builds links from the address it was reached at when an HTTP/1.0 client sends no Host, and still serves /healthz', async () => {
    const response = await listProjects(null, '1.0');
    expect(response.status).toBe(200);
    expect(json(response).links.first).toBe(`http://127.0.0.1:${port}/api/v1/projects?page=1`);
    expect((await sendRaw(port, { method: 'GET', target: '/healthz', host: null, httpVersion: '1.0' })).status).toBe(200);
  });

  it('answers an HTTP/1.1 request without Host with 400 in the envelope (RFC 9112 requires one)', async () => {
    const response = await listProjects(null);
    expect(response.status).toBe(400);
    expect(json(response)).toEqual({ error: 'Bad Request', message: 'An HTTP/1.1 request must carry a Host header.' });
  });
});

describe('behind a trusted proxy (TRUST_PROXY=true)', () => {
  let ctx: TestContext;
  let user: TestUser;
  let port: number;
  beforeAll(async () => {
    ctx = await buildTestApp({ env: { TRUST_PROXY: 'true' } });
    user = await ctx.given.user({ plan: 'enterprise' });
    port = await listening(ctx);
  });
  afterAll(async () => ctx.close());

  const listVia = (headers: [string, string][]) =>
    sendRaw(port, { method: 'GET', target: '/api/v1/projects', headers: [['Authorization', `Bearer ${user.token}`], ...headers] });

  it('holds X-Forwarded-Host to the same shape (400) and builds links from a good one', async () => {
    expect(json(await listVia([['X-Forwarded-Host', 'evil.example/path?x=']]))).toEqual(BAD_HOST);
    const response = await listVia([
      ['X-Forwarded-Host', 'scoreboard.example.com'],
      ['X-Forwarded-Proto', 'https'],
    ]);
    expect(json(response).links.first).toBe('https://scoreboard.example.com/api/v1/projects?page=1');
  });

  it('uses X-Forwarded-Proto only when it is http or https', async () => {
    const response = await listVia([
      ['X-Forwarded-Host', 'scoreboard.example.com'],
      ['X-Forwarded-Proto', 'javascript'],
    ]);
    expect(json(response).links.first).toBe('http://scoreboard.example.com/api/v1/projects?page=1');
  });
});

describe('with PUBLIC_URL set', () => {
  it('builds links from PUBLIC_URL, whatever valid Host the request names', async () => {
    const ctx = await buildTestApp({ env: { PUBLIC_URL: 'https://scoreboard.example.com' } });
    try {
      const user = await ctx.given.user();
      const port = await listening(ctx);
      const response = await sendRaw(port, {
        method: 'GET',
        target: '/api/v1/projects',
        host: 'other.example',
        headers: [['Authorization', `Bearer ${user.token}`]],
      });
      expect(json(response).links.first).toBe('https://scoreboard.example.com/api/v1/projects?page=1');
    } finally {
      await ctx.close();
    }
  });
});
