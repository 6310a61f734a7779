import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';

/**
 * The contract check that runs on every in-process response (test/helpers/openapi-contract.ts)
 * must be able to fail: a route that answers outside its document is reported.
 */
describe('the OpenAPI contract check', () => {
  it.afterEach(({ ctx }) => {
    ctx.contract.violations.length = 0; // the drifts below are on purpose
  });

  it('accepts the answers of a documented route that keeps to its document', async ({ ctx }) => {
    const user = await ctx.given.user();
    expect((await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token })).statusCode).toBe(200);
    expect((await ctx.request({ method: 'GET', url: '/api/v1/tokens' })).statusCode).toBe(401);
    expect(ctx.contract.violations).toEqual([]);
  });

  it('reports an undocumented status, a body that does not match, and a missing required header', ({ ctx }) => {
    const request = { routeOptions: { url: '/api/v1/tokens' }, method: 'GET' } as any;
    const reply = (status: number, headers: Record<string, string>) =>
      ({ statusCode: status, getHeader: (name: string) => headers[name.toLowerCase()] }) as any;
    const json = { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '119' };

    ctx.contract.check(request, reply(418, json), '{}');
    ctx.contract.check(request, reply(200, json), JSON.stringify({ data: [{ id: 'one' }] }));
    ctx.contract.check(request, reply(200, { 'content-type': json['content-type'] }), JSON.stringify({ data: [] }));
    ctx.contract.check(
      request,
      reply(401, json),
      JSON.stringify({ error: 'Unauthenticated', message: 'Authentication required.', stack: 'x' }),
    );

    const reported = ctx.contract.violations.join('\n');
    expect(reported).toMatch(/GET \/api\/v1\/tokens -> 418: status not documented/);
    expect(reported).toMatch(/-> 200: body does not match the document/);
    expect(reported).toMatch(/-> 200: required header X-RateLimit-Limit missing/);
    expect(reported).toMatch(/-> 401: body does not match the document: .*additional properties/);
    expect(ctx.contract.violations).toHaveLength(5);
  });
});
