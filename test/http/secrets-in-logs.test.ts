import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestContext } from '../helpers/test-app.js';

// D9/D10: plain-text tokens are never logged, whatever the log level.
describe('secrets in logs', () => {
  let ctx: TestContext;
  let logged: string;
  beforeEach(async () => {
    logged = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged += String(chunk);
        done();
      },
    });
    ctx = await buildTestApp({ deps: { logger: pino({ level: 'trace' }, sink) } });
  });
  afterEach(async () => ctx.close());

  it('logs requests at trace level without any personal access token or project API token', async () => {
    const user = await ctx.given.user();
    const created = await ctx.request({ method: 'POST', url: '/api/v1/tokens', token: user.token, body: { name: 'CI', abilities: ['read'] } });
    const project = await ctx.request({ method: 'POST', url: '/api/v1/projects', token: user.token, body: { name: 'Shop', framework_version: '11' } });
    const rotated = await ctx.request({
      method: 'POST',
      url: `/api/v1/projects/${project.json().project.id}/regenerate-token`,
      token: created.json().plain_text_token,
    });
    await ctx.request({ method: 'GET', url: '/api/v1/projects', token: 'service_not-a-real-token' });

    expect(logged).toMatch(/incoming request/); // the sink did receive the request logs
    const secrets = [user.token, created.json().plain_text_token, project.json().api_token];
    expect(rotated.statusCode).toBe(403); // a read token may not rotate; its value is still a secret
    for (const secret of secrets) expect(logged).not.toContain(secret);
    expect(logged).not.toContain('service_not-a-real-token');
  });
});
