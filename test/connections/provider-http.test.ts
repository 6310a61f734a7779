import { afterEach, describe, expect, it } from 'vitest';
import { createProviderHttp, type ProviderHttp, providerMessage, retryAfterSeconds } from '../../src/connections/provider-http.js';
import { addGitHub } from '../stand-ins/github.js';
import { addJira } from '../stand-ins/jira.js';
import { addLinear } from '../stand-ins/linear.js';
import { type StandIn, startStandIn } from '../stand-ins/stand-in-server.js';

/** E9.1: the provider client against stand-ins on 127.0.0.1: headers sent, failures as values, bounds held. */

const TOKEN = 'ghp_secretTokenValue1234';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(
  options: { timeoutMs?: number; allowPrivateNetworks?: boolean } = {},
): Promise<{ standIn: StandIn; http: ProviderHttp }> {
  const standIn = await startStandIn();
  const http = createProviderHttp({ allowPrivateNetworks: options.allowPrivateNetworks ?? true, timeoutMs: options.timeoutMs ?? 5_000 });
  cleanups.push(
    () => standIn.close(),
    () => http.close(),
  );
  return { standIn, http };
}

const github = (baseUrl: string, token = TOKEN) => ({ provider: 'github' as const, base_url: baseUrl, credentials: { token } });

describe('provider HTTP client', () => {
  it('sends the method, path, query, JSON body and the documented headers', async () => {
    const { standIn, http } = await setUp();
    const base = addGitHub(standIn, { token: TOKEN, login: 'octocat' });
    standIn.route('POST', '/repos/o/r/issues', () => ({ status: 201, body: { number: 5 } }));
    const result = await http.request({
      connection: github(base),
      method: 'POST',
      path: '/repos/o/r/issues',
      query: { a: 'b c' },
      body: { title: 'T' },
    });
    expect(result).toMatchObject({ ok: true, answer: { status: 201, json: { number: 5 } } });
    const [request] = standIn.received;
    expect(request).toMatchObject({ method: 'POST', path: '/repos/o/r/issues', json: { title: 'T' } });
    expect(request!.query.get('a')).toBe('b c');
    expect(request!.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'content-type': 'application/json',
    });
    expect(request!.headers['user-agent']).toMatch(/Scoreboard/);
  });

  it("gives the provider's own error text, never the credential", async () => {
    const { standIn, http } = await setUp();
    const base = addGitHub(standIn, { token: 'other', login: 'octocat' });
    expect(await http.request({ connection: github(base), method: 'GET', path: '/user' })).toEqual({
      ok: false,
      failure: { kind: 'http', status: 401, message: 'Bad credentials' },
    });
    standIn.script.push({ status: 422, body: { message: `token ${TOKEN} is wrong` } });
    const echoed = await http.request({ connection: github(base), method: 'GET', path: '/user' });
    expect(JSON.stringify(echoed)).not.toContain(TOKEN);
    expect(echoed).toMatchObject({ ok: false, failure: { message: 'token [redacted] is wrong' } });
  });

  it('reads Retry-After on 429 and 503', async () => {
    const { standIn, http } = await setUp();
    standIn.script.push({ status: 429, body: { message: 'API rate limit exceeded' }, headers: { 'retry-after': '30' } });
    standIn.script.push({ status: 503, rawBody: 'down', headers: { 'retry-after': '7' } });
    expect(await http.request({ connection: github(standIn.url), method: 'GET', path: '/user' })).toEqual({
      ok: false,
      failure: { kind: 'http', status: 429, retryAfterSeconds: 30, message: 'API rate limit exceeded' },
    });
    expect(await http.request({ connection: github(standIn.url), method: 'GET', path: '/user' })).toMatchObject({
      ok: false,
      failure: { kind: 'http', status: 503, retryAfterSeconds: 7, message: 'The provider answered 503 (a provider error).' },
    });
  });

  it('ends a hang in a timeout and a 10 MiB answer in too-large', async () => {
    const { standIn, http } = await setUp({ timeoutMs: 300 });
    standIn.script.push('hang');
    expect(await http.request({ connection: github(standIn.url), method: 'GET', path: '/user' })).toMatchObject({
      ok: false,
      failure: { kind: 'timeout' },
    });
    standIn.script.push({ huge: 10 * 1024 * 1024 });
    const before = process.memoryUsage().rss;
    const result = await http.request({ connection: github(standIn.url), method: 'GET', path: '/user' });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'too-large', status: 200 } });
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a private address unless private networks are allowed, and says a closed port is a network failure', async () => {
    const { standIn } = await setUp();
    const strict = createProviderHttp({ allowPrivateNetworks: false });
    cleanups.push(() => strict.close());
    expect(await strict.request({ connection: github(standIn.url), method: 'GET', path: '/user' })).toMatchObject({
      ok: false,
      failure: { kind: 'refused' },
    });
    expect(standIn.received).toHaveLength(0);
    const { http } = await setUp();
    expect(await http.request({ connection: github('http://127.0.0.1:1'), method: 'GET', path: '/user' })).toMatchObject({
      ok: false,
      failure: { kind: 'network', message: 'connection refused' },
    });
  });

  it('treats a GraphQL answer with errors as a failure (Linear), and reads Jira messages', async () => {
    const { standIn, http } = await setUp();
    const base = addLinear(standIn, { api_key: 'lin_api_key', name: 'Lin' });
    const connection = { provider: 'linear' as const, base_url: base, credentials: { api_key: 'lin_api_wrong' } };
    expect(await http.request({ connection, method: 'POST', path: '/graphql', body: { query: '{ viewer { id name } }' } })).toEqual({
      ok: false,
      failure: { kind: 'http', status: 400, message: 'Authentication required, not authenticated' },
    });
    standIn.script.push({ status: 200, body: { data: null, errors: [{ message: 'Entity not found' }] } });
    expect(
      await http.request({
        connection: { ...connection, credentials: { api_key: 'lin_api_key' } },
        method: 'POST',
        path: '/graphql',
        body: { query: '{ x }' },
      }),
    ).toMatchObject({ ok: false, failure: { kind: 'http', status: 200, message: 'Entity not found' } });

    const jira = await startStandIn();
    cleanups.push(() => jira.close());
    const site = addJira(jira, { email: 'a@b.c', api_token: 'atl-token', displayName: 'A' });
    const wrong = { provider: 'jira' as const, base_url: site, credentials: { email: 'a@b.c', api_token: 'nope-nope' } };
    expect(await http.request({ connection: wrong, method: 'GET', path: '/rest/api/3/myself' })).toMatchObject({
      ok: false,
      failure: { status: 401, message: 'You are not authenticated. Authentication required to perform this operation.' },
    });
  });
});

describe('provider messages', () => {
  it('reads each documented error shape', () => {
    expect(providerMessage({ message: 'Not Found', documentation_url: 'x' })).toBe('Not Found');
    expect(providerMessage({ message: { title: ["can't be blank"] } })).toBe("title can't be blank");
    expect(providerMessage({ type: 'error', error: { message: 'Repository not found', detail: 'x/y' } })).toBe('Repository not found; x/y');
    expect(providerMessage({ errorMessages: ['Issue does not exist'], errors: { summary: 'Field required' } })).toBe(
      'Issue does not exist; summary: Field required',
    );
    expect(providerMessage({ errors: [{ message: 'Bad' }] })).toBe('Bad');
    expect(providerMessage({ error: 'invalid_token', error_description: 'Token was revoked' })).toBe('Token was revoked; invalid_token');
    expect(providerMessage('text')).toBeNull();
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterSeconds('120')).toBe(120);
    expect(retryAfterSeconds(new Date(61_000).toUTCString(), 0)).toBe(61);
    expect(retryAfterSeconds('soon')).toBeNull();
    expect(retryAfterSeconds(undefined)).toBeNull();
  });
});
