/**
 * D24: a request whose `Host` header is not a valid host[:port] gets 400; links (D16) are built from
 * the host only when PUBLIC_URL is unset, and then only from a host of that shape. The issue's
 * reproduction: `Host: evil.example/path?x=` was copied into every pagination link.
 */
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import { JSON_UTF8 } from '../helpers/contract.js';
import { sendRaw, type RawResponse } from '../helpers/raw-http.js';

const BAD_HOST = { error: 'Bad Request', message: 'The Host header must be a host name or IP address, with an optional port.' };

const json = (response: RawResponse) => JSON.parse(response.body) as Record<string, any>;

/** One listening app for the file, an enterprise user (many requests) with a project. */
const it = sharedAppTest({ user: { plan: 'enterprise' }, project: { name: 'Hosted' } }).extend(
  'listProjects',
  ({ port, user }) =>
    (host: string | null, httpVersion: '1.0' | '1.1' = '1.1') =>
      sendRaw(port, { method: 'GET', target: '/api/v1/projects', host, httpVersion, headers: [['Authorization', `Bearer ${user.token}`]] }),
);

/** Another app for the file, behind a trusted proxy. */
const proxiedIt = sharedAppTest({ env: { TRUST_PROXY: 'true' }, user: { plan: 'enterprise' } }).extend(
  'listVia',
  ({ port, user }) =>
    (headers: [string, string][]) =>
      sendRaw(port, { method: 'GET', target: '/api/v1/projects', headers: [['Authorization', `Bearer ${user.token}`], ...headers] }),
);

/** And one with PUBLIC_URL set. */
const publicUrlIt = sharedAppTest({ env: { PUBLIC_URL: 'https://scoreboard.example.com' } });

describe('the Host header (D24)', () => {
  it.for([
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
  ])('answers Host %j with 400 on /api/v1, rate-limit headers included', async (host, { listProjects }) => {
    const response = await listProjects(host);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe(JSON_UTF8);
    expect(response.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
    expect(json(response)).toEqual(BAD_HOST);
  });

  it('answers a bad Host with 400 on the client package endpoints too, with success: false', async ({ port, apiToken }) => {
    const response = await sendRaw(port, {
      method: 'GET',
      target: '/api/project',
      host: 'evil.example/x',
      headers: [['Authorization', `Bearer ${apiToken}`]],
    });
    expect(response.status).toBe(400);
    expect(json(response)).toEqual({ success: false, ...BAD_HOST });
  });

  it('answers a bad Host with 400 everywhere else', async ({ port }) => {
    for (const target of ['/healthz', '/api/v1/openapi.json', '/docs']) {
      const response = await sendRaw(port, { method: 'GET', target, host: 'evil.example/x' });
      expect({ target, status: response.status, body: json(response) }).toEqual({ target, status: 400, body: BAD_HOST });
    }
  });

  it.for([
    ['localhost', 'http://localhost'],
    ['127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['[::1]:8080', 'http://[::1]:8080'],
    ['scoreboard.example.com.', 'http://scoreboard.example.com.'],
    ['Scoreboard-01.Example.COM:443', 'http://Scoreboard-01.Example.COM:443'],
  ] as const)('builds links from Host %j', async ([host, origin], { listProjects }) => {
    const response = await listProjects(host);
    expect(response.status).toBe(200);
    expect(json(response).links.first).toBe(`${origin}/api/v1/projects?page=1`);
  });

  it('builds links from the address it was reached at when an HTTP/1.0 client sends no Host, and still serves /healthz', async ({
    port,
    listProjects,
  }) => {
    const response = await listProjects(null, '1.0');
    expect(response.status).toBe(200);
    expect(json(response).links.first).toBe(`http://127.0.0.1:${port}/api/v1/projects?page=1`);
    expect((await sendRaw(port, { method: 'GET', target: '/healthz', host: null, httpVersion: '1.0' })).status).toBe(200);
  });

  it('answers an HTTP/1.1 request without Host with 400 in the envelope (RFC 9112 requires one)', async ({ listProjects }) => {
    const response = await listProjects(null);
    expect(response.status).toBe(400);
    expect(json(response)).toEqual({ error: 'Bad Request', message: 'An HTTP/1.1 request must carry a Host header.' });
  });
});

describe('behind a trusted proxy (TRUST_PROXY=true)', () => {
  proxiedIt('holds X-Forwarded-Host to the same shape (400) and builds links from a good one', async ({ listVia }) => {
    expect(json(await listVia([['X-Forwarded-Host', 'evil.example/path?x=']]))).toEqual(BAD_HOST);
    const response = await listVia([
      ['X-Forwarded-Host', 'scoreboard.example.com'],
      ['X-Forwarded-Proto', 'https'],
    ]);
    expect(json(response).links.first).toBe('https://scoreboard.example.com/api/v1/projects?page=1');
  });

  proxiedIt('uses X-Forwarded-Proto only when it is http or https', async ({ listVia }) => {
    const response = await listVia([
      ['X-Forwarded-Host', 'scoreboard.example.com'],
      ['X-Forwarded-Proto', 'javascript'],
    ]);
    expect(json(response).links.first).toBe('http://scoreboard.example.com/api/v1/projects?page=1');
  });
});

describe('with PUBLIC_URL set', () => {
  publicUrlIt('builds links from PUBLIC_URL, whatever valid Host the request names', async ({ port, user }) => {
    const response = await sendRaw(port, {
      method: 'GET',
      target: '/api/v1/projects',
      host: 'other.example',
      headers: [['Authorization', `Bearer ${user.token}`]],
    });
    expect(json(response).links.first).toBe('https://scoreboard.example.com/api/v1/projects?page=1');
  });
});
