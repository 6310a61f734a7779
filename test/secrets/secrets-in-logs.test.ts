import { afterAll, beforeAll, describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { redactQuery, redactUrl } from '../../src/http/logging.js';
import { api, createSandbox, okJson, startServer, type RunningServer, type Sandbox } from '../cli/cli-process.js';
import { fixtureText } from '../helpers/client-wire.js';

const it = appTest({ log: 'trace' });

/**
 * Issue 7 / D9 / D10: no secret reaches the log — not the Authorization header, not a plain-text token
 * the API hands out once (`plain_text_token`, `api_token`), not a token a client puts in a URL —
 * whatever the log level. Checked on the service's own logger (the one `serve` builds, redaction
 * included) by capturing its stream, and on the stdout of a real `scoreboard serve` process.
 */

/** Every form in which a secret could leak: whole, without the `service_` prefix, its 40-char body. */
function fragmentsOf(secret: string): string[] {
  const body = secret.startsWith('service_') ? secret.slice(8, 48) : secret;
  return [...new Set([secret, body, body.slice(0, 20), body.slice(20)])].filter((fragment) => fragment.length >= 8);
}

function expectNoSecret(log: string, secrets: string[]): void {
  for (const secret of secrets) {
    for (const fragment of fragmentsOf(secret)) expect(log, `log contains ${fragment}`).not.toContain(fragment);
  }
}

describe('the service logger (trace level, captured stream)', () => {
  it('logs every request without the bearer value or the tokens in the answers', async ({ ctx, log }) => {
    const user = await ctx.given.user();
    const pat = (
      await ctx.request({ method: 'POST', url: '/api/v1/tokens', token: user.token, body: { name: 'CI', abilities: ['read'] } })
    ).json().plain_text_token as string;
    const created = (
      await ctx.request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: { name: 'Shop', framework_version: '11' } })
    ).json();
    const projectId: string = created.project.id;
    const rotated: string = (
      await ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/regenerate-token`, token: user.token })
    ).json().api_token;
    // The project token at work on the client package's endpoints, valid and refused.
    const upload = await ctx.request({
      method: 'POST',
      url: '/api/reports',
      token: rotated,
      body: fixtureText('report-small', projectId),
    });
    expect(upload.statusCode).toBe(201);
    await ctx.request({ method: 'GET', url: '/api/token/verify', token: rotated });
    await ctx.request({ method: 'GET', url: '/api/token/verify', token: created.api_token });
    // A read token refused by its ability, a malformed one, and tokens put in the URL by a careless client.
    await ctx.request({ method: 'DELETE', url: `/api/v1/projects/${projectId}`, token: pat });
    await ctx.request({ method: 'GET', url: '/api/v1/projects', token: 'service_not-a-real-token' });
    await ctx.request({ method: 'GET', url: `/api/v1/projects?token=${pat}&page=1` });
    await ctx.request({ method: 'GET', url: `/api/project?api_token=${rotated}` });

    expect(log.text).toMatch(/request completed/); // the stream really received the request logs
    expect(log.text).toContain('"url":"/api/v1/projects?token=[Redacted]&page=1"');
    expectNoSecret(log.text, [user.token, pat, created.api_token, rotated, 'service_not-a-real-token']);
  });

  it('logs a dashboard session without its password, cookie or CSRF token (E7)', async ({ ctx, log }) => {
    const user = await ctx.given.user();
    const password = 'a logged-nowhere passphrase';
    await ctx.given.password(user, password);
    const signIn = await ctx.request({ method: 'POST', url: '/api/v1/session', body: { email: user.email, password } });
    const secret = signIn.cookies[0]!.value;
    const csrf: string = signIn.json().data.csrf_token;
    const headers = { cookie: `scoreboard_session=${secret}`, 'x-csrf-token': csrf };
    await ctx.request({ method: 'POST', url: '/api/v1/session', body: { email: user.email, password: `${password} but wrong` } });
    const changed = await ctx.request({
      method: 'PUT',
      url: '/api/v1/user/password',
      headers,
      body: { current_password: password, password: 'another unlogged passphrase' },
    });
    expect(changed.statusCode).toBe(200);
    await ctx.request({ method: 'DELETE', url: '/api/v1/session', headers });
    ctx.app.log.info({ body: { password, current_password: password }, csrf_token: csrf, secret }, 'a careless debug line');

    expect(log.text).toMatch(/request completed/);
    expectNoSecret(log.text, [password, 'another unlogged passphrase', secret, csrf]);
  });

  it('redacts tokens by their shape wherever a URL carries them: a path segment, any query value, a fragment', async ({ ctx, log }) => {
    const user = await ctx.given.user();
    const { apiToken } = await ctx.given.project(user);
    const urls = [
      `/api/v1/projects/${user.token}`,
      `/api/v1/tokens/${apiToken}`,
      `/api/v1/projects?q=${user.token}`,
      `/api/v1/projects?auth=Bearer%20${apiToken}&page=1`,
      `/api/v1/projects?auth=Bearer+${apiToken}`,
      `/api/project?x=${apiToken}`,
      `/api/v1/projects#${user.token}`,
      `/nowhere/${user.token.slice(0, 30)}`,
    ];
    for (const url of urls) await ctx.request({ method: 'GET', url, token: user.token });
    expect(log.text).toMatch(/request completed/);
    expect(log.text).toContain('"url":"/api/v1/projects?auth=Bearer%20[Redacted]&page=1"');
    expectNoSecret(log.text, [user.token, apiToken]);
  });

  it('redacts token shapes in error messages and in messages logged by anything', async ({ ctx, log }) => {
    const user = await ctx.given.user();
    const { apiToken } = await ctx.given.project(user);
    ctx.app.log.error(new Error(`lookup failed for ${user.token}`), `while handling Bearer ${apiToken}`);
    ctx.app.log.warn({ detail: 'none' }, `token ${user.token} seen`);
    expect(log.text).toMatch(/lookup failed for \[Redacted\]/);
    expectNoSecret(log.text, [user.token, apiToken]);
  });

  it('redacts the secrets from any object a handler or plugin might log', async ({ ctx, log }) => {
    const user = await ctx.given.user();
    const { project, apiToken } = await ctx.given.project(user);
    const answer = { message: 'Token created', plain_text_token: user.token, token: { id: 1, name: 'CI' } };
    ctx.app.log.info({ req: { headers: { authorization: `Bearer ${user.token}` } } }, 'headers');
    ctx.app.log.info({ headers: { authorization: `Bearer ${apiToken}` } }, 'raw headers');
    ctx.app.log.info(answer, 'a token answer, top level');
    ctx.app.log.info({ res: { body: { project, api_token: apiToken } } }, 'a project answer, nested');
    ctx.app.log.info({ token: user.token }, 'a bare token field');

    expect(log.text.match(/\[Redacted\]/g)?.length).toBe(5);
    expectNoSecret(log.text, [user.token, apiToken]);
  });
});

describe('redactUrl', () => {
  const pat = `service_${'A1b2'.repeat(10)}0a1b2c3d`;
  const project = `${'Zz9'.repeat(13)}x`;
  it.each([
    ['/api/v1/projects?page=2', '/api/v1/projects?page=2'],
    [`/api/v1/projects/${pat}`, '/api/v1/projects/[Redacted]'],
    [`/x?q=${pat}&page=2`, '/x?q=[Redacted]&page=2'],
    [`/x?auth=Bearer%20${project}`, '/x?auth=Bearer%20[Redacted]'],
    [`/x/${project}/y`, '/x/[Redacted]/y'],
    [`/x#${pat}`, '/x#[Redacted]'],
    [`/x?api_token=${project}`, '/x?api_token=[Redacted]'],
    // UUIDs and ordinary words keep their shape.
    ['/api/v1/projects/019a8f4e-7c1d-7a4b-9f2e-3c5d6e7f8a9b', '/api/v1/projects/019a8f4e-7c1d-7a4b-9f2e-3c5d6e7f8a9b'],
    [`/x/${'a'.repeat(39)}`, `/x/${'a'.repeat(39)}`],
  ])('%s is logged as %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});

describe('redactQuery', () => {
  it.each([
    ['/api/v1/projects', '/api/v1/projects'],
    ['/api/v1/projects?page=2', '/api/v1/projects?page=2'],
    ['/api/project?api_token=abc&x=1', '/api/project?api_token=[Redacted]&x=1'],
    ['/x?Access-Token=abc', '/x?Access-Token=[Redacted]'],
    ['/x?api%5Ftoken=abc', '/x?api%5Ftoken=[Redacted]'],
    ['/x?password=p&secret=s', '/x?password=[Redacted]&secret=[Redacted]'],
    ['/x?%zz=1', '/x?%zz=1'],
  ])('%s is logged as %s', (url, logged) => {
    expect(redactQuery(url)).toBe(logged);
  });
});

describe('scoreboard serve at LOG_LEVEL=trace (stdout of the real process)', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  beforeAll(async () => {
    sandbox = await createSandbox();
    server = await startServer(sandbox, { LOG_LEVEL: 'trace' });
  });
  afterAll(async () => {
    await server?.stop();
    await sandbox?.cleanup();
  });

  it('prints no token it was sent or gave out', async () => {
    const { token } = await okJson<{ token: string }>(sandbox, 'users:create', '--email', 'logs@example.com');
    const pat = (await api(server, 'POST', '/api/v1/tokens', token, { name: 'CI', abilities: ['read', 'write'] })).body.plain_text_token;
    const created = (await api(server, 'POST', '/api/v1/projects', pat, { name: 'Shop', framework_version: '11' })).body;
    const upload = await fetch(`${server.url}/api/reports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.api_token}`, 'content-type': 'application/json' },
      body: fixtureText('report-small', created.project.id),
    });
    expect(upload.status).toBe(201);
    expect((await api(server, 'GET', `/api/project?api_token=${created.api_token}`, 'not-a-token')).status).toBe(401);

    expect(server.output()).toMatch(/request completed/);
    expectNoSecret(server.output(), [token, pat, created.api_token]);
  });
});
