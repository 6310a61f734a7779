/**
 * D4: the order of checks, run as one table of every /api/v1 endpoint through the same shared
 * checks (in the style of Unkey's common tests). Each check builds the request so that a later
 * check would also fail, and asserts that the earlier one answers.
 *
 * One app for the file (building one per test was most of the file's time): each test has its own
 * user, project, report and tokens (`makeWorld`), so its own user budget (D8), and its anonymous
 * requests come from an address of its own (`ownAddress`), so its own per-IP budget. The clock never
 * moves. Every answer is still checked against the OpenAPI document, after each test.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import type { Ability } from '../../src/auth/abilities.js';
import {
  JSON_UTF8,
  NO_TEAM,
  NOT_FOUND,
  SUBSCRIPTION_REQUIRED,
  TOKEN_LIMIT,
  UNAUTHENTICATED,
  expectApiHeaders,
  expectError,
  expectErrorLike,
  expectTooManyRequests,
  missingAbility,
} from '../helpers/contract.js';
import {
  ENDPOINTS,
  INVALID_PROJECT_BODY,
  MISSING_PROJECT,
  MISSING_REPORT,
  MISSING_TOKEN,
  type EndpointCase as Endpoint,
} from '../helpers/endpoints.js';
import type { TestContext, TestUser } from '../helpers/test-app.js';

const it = sharedAppTest()
  /** Every answer in this table is JSON with the rate-limit headers (D2, D8). */
  .extend(
    'send',
    ({ ctx }) =>
      async function send(options: Parameters<TestContext['request']>[0]): Promise<LightMyRequestResponse> {
        const response = await ctx.request(options);
        expectApiHeaders(response);
        return response;
      },
  );

// Drift from the OpenAPI document fails the test that caused it, not only the file's last (close()).
it.afterEach(({ ctx }) => {
  expect(ctx.contract.violations.splice(0), 'answers that drift from the OpenAPI document').toEqual([]);
});

/** A documentation address (RFC 5737) no other test of the file sends from: a fresh per-IP budget. */
let addresses = 0;
function ownAddress(): string {
  const n = addresses++;
  return `${['192.0.2', '198.51.100', '203.0.113'][Math.floor(n / 254)]}.${(n % 254) + 1}`;
}

const MALFORMED_JSON = '{"name": ';
const hasPathResource = (e: Endpoint) => e.path.includes(':');
const takesBody = (e: Endpoint) => e.method !== 'GET';

/** The abilities of a token that just lacks the endpoint's ability (D6 hierarchy). */
const abilitiesBelow: Record<Ability, Ability[]> = { read: [], write: ['read'], admin: ['read', 'write'] };

interface World {
  user: TestUser;
  projectId: string;
  /** A report of that project, for the report endpoints. */
  reportUuid: string;
  /** A second token of `user`, for DELETE /tokens/{token}. */
  spareTokenId: number;
}

async function makeWorld(ctx: TestContext, plan: 'solo' | null = 'solo'): Promise<World> {
  const user = await ctx.given.user({ plan });
  const { project } = await ctx.given.project(user, { name: 'Existing' });
  const report = await ctx.given.report(project.id);
  await ctx.given.token(user, { name: 'spare' });
  const spare = await ctx.db
    .selectFrom('personal_access_tokens')
    .select('id')
    .where('user_id', '=', user.id)
    .where('name', '=', 'spare')
    .executeTakeFirstOrThrow();
  return { user, projectId: project.id, reportUuid: report.uuid, spareTokenId: spare.id };
}

function urlOf(endpoint: Endpoint, world: World, options: { missing?: boolean; query?: string } = {}): string {
  const path = endpoint.path
    .replace(':project', options.missing ? MISSING_PROJECT : world.projectId)
    .replace(':report', options.missing ? MISSING_REPORT : world.reportUuid)
    .replace(':token', options.missing ? MISSING_TOKEN : String(world.spareTokenId));
  return `/api/v1${path}${options.query ?? endpoint.query ?? ''}`;
}

const label = (e: Endpoint) => `${e.method} /api/v1${e.path}`;

describe.each(ENDPOINTS.map((e) => [label(e), e] as const))('D4 order of checks: %s', (_name, endpoint) => {
  let world: World;
  it.beforeEach(async ({ ctx }) => {
    world = await makeWorld(ctx);
  });

  const malformed = { body: MALFORMED_JSON, headers: { 'content-type': 'application/json' } };

  it('answers 401 with the exact envelope when there is no token or an unusable one (D4.3)', async ({ send }) => {
    const url = urlOf(endpoint, world);
    const remoteAddress = ownAddress();
    const anonymous = await send({ method: endpoint.method, url, body: endpoint.body, remoteAddress });
    expectError(anonymous, 401, UNAUTHENTICATED);
    expect(anonymous.headers['x-ratelimit-limit']).toBe('10');
    expect(anonymous.headers['x-ratelimit-remaining']).toBe('9');

    const garbage = await send({ method: endpoint.method, url, token: 'not-a-token', body: endpoint.body, remoteAddress });
    expectError(garbage, 401, UNAUTHENTICATED);
  });

  it('answers 429, not 401, to the 11th unauthenticated request from one IP (D4.2, D8)', async ({ send }) => {
    const url = urlOf(endpoint, world);
    const remoteAddress = ownAddress();
    for (let i = 1; i <= 10; i++) {
      const response = await send({ method: endpoint.method, url, body: endpoint.body, remoteAddress });
      expectError(response, 401, UNAUTHENTICATED);
      expect(response.headers['x-ratelimit-remaining']).toBe(String(10 - i));
    }
    const eleventh = await send({ method: endpoint.method, url, body: endpoint.body, remoteAddress });
    expectTooManyRequests(eleventh);
    expect(eleventh.headers['x-ratelimit-limit']).toBe('10');
  });

  it("answers 429 once the user's budget is spent, even where it would otherwise answer 403, 404 or 422 (D4.2)", async ({ ctx, send }) => {
    const weakToken = await ctx.given.token(world.user, { abilities: abilitiesBelow[endpoint.ability] });
    // Each doomed request fails at a different later step; first prove that, then spend the budget.
    const doomed: { request: Parameters<TestContext['request']>[0]; otherwise: number }[] = [];
    if (endpoint.ability !== 'read') {
      doomed.push({
        request: { method: endpoint.method, url: urlOf(endpoint, world), token: weakToken, body: endpoint.body },
        otherwise: 403,
      });
    }
    if (hasPathResource(endpoint)) {
      doomed.push({
        request: { method: endpoint.method, url: urlOf(endpoint, world, { missing: true }), token: world.user.token, body: endpoint.body },
        otherwise: 404,
      });
    }
    if (endpoint.invalidBody !== undefined || endpoint.invalidQuery !== undefined) {
      doomed.push({
        request: {
          method: endpoint.method,
          url: urlOf(endpoint, world, { query: endpoint.invalidQuery }),
          token: world.user.token,
          body: endpoint.invalidBody,
        },
        otherwise: 422,
      });
    }
    if (doomed.length === 0) {
      doomed.push({
        request: { method: endpoint.method, url: urlOf(endpoint, world), token: world.user.token },
        otherwise: endpoint.success,
      });
    }

    for (const { request, otherwise } of doomed) expect((await send(request)).statusCode).toBe(otherwise);

    let remaining = Number.POSITIVE_INFINITY;
    while (remaining > 0) {
      const spent = await send({ method: 'GET', url: '/api/v1/tokens', token: world.user.token });
      expect(spent.statusCode).toBe(200);
      remaining = Number(spent.headers['x-ratelimit-remaining']);
    }

    for (const { request } of doomed) {
      const response = await send(request);
      expectTooManyRequests(response);
      expect(response.headers['x-ratelimit-limit']).toBe('120');
    }
  });

  if (endpoint.subscription) {
    it('answers 403 Subscription Required before the ability, the body and the path resource (D4.4, D7)', async ({ ctx, send }) => {
      const lapsed = await makeWorld(ctx, null);
      expectError(
        await send({ method: endpoint.method, url: urlOf(endpoint, lapsed), token: lapsed.user.token, body: endpoint.body }),
        403,
        SUBSCRIPTION_REQUIRED,
      );

      const weakToken = await ctx.given.token(lapsed.user, { abilities: abilitiesBelow[endpoint.ability] });
      const worst = await send({
        method: endpoint.method,
        url: urlOf(endpoint, lapsed, { missing: true }),
        token: weakToken,
        ...(takesBody(endpoint) ? malformed : {}),
      });
      expectError(worst, 403, SUBSCRIPTION_REQUIRED);
    });
  } else {
    it('does not require a subscription (D7)', async ({ ctx, send }) => {
      const lapsed = await makeWorld(ctx, null);
      const response = await send({ method: endpoint.method, url: urlOf(endpoint, lapsed), token: lapsed.user.token, body: endpoint.body });
      expect(response.statusCode).toBe(endpoint.success);
    });
  }

  it(`answers 403 for a token without '${endpoint.ability}' before transport problems and the path resource (D4.5, D6)`, async ({
    ctx,
    send,
  }) => {
    const weakToken = await ctx.given.token(world.user, { abilities: abilitiesBelow[endpoint.ability] });
    const response = await send({
      method: endpoint.method,
      url: urlOf(endpoint, world, { missing: true }),
      token: weakToken,
      ...(takesBody(endpoint) ? malformed : {}),
    });
    expectError(response, 403, missingAbility(endpoint.ability));
  });

  if (takesBody(endpoint) && hasPathResource(endpoint)) {
    it('answers 400 for malformed JSON and 415 for a non-JSON body before 404 (D4.6 before D4.7)', async ({ send }) => {
      const url = urlOf(endpoint, world, { missing: true });
      expectErrorLike(await send({ method: endpoint.method, url, token: world.user.token, ...malformed }), 400, 'Bad Request', /JSON/);
      const form = await send({
        method: endpoint.method,
        url,
        token: world.user.token,
        body: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectErrorLike(form, 415, 'Unsupported Media Type', /JSON/);
    });
  }

  if (hasPathResource(endpoint)) {
    it('answers 404 for a missing resource before validating the body (D4.7 before D4.9)', async ({ send }) => {
      const response = await send({
        method: endpoint.method,
        url: urlOf(endpoint, world, { missing: true }),
        token: world.user.token,
        body: endpoint.invalidBody ?? endpoint.body,
      });
      expectError(response, 404, NOT_FOUND);
    });
  }

  it(`answers ${endpoint.success} with the rate-limit headers when every check passes`, async ({ ctx }) => {
    // Not `send`: a download (E3) is the one success that is not D2's JSON.
    const response = await ctx.request({
      method: endpoint.method,
      url: urlOf(endpoint, world),
      token: world.user.token,
      body: endpoint.body,
    });
    expect(response.statusCode).toBe(endpoint.success);
    expect(response.headers['content-type']).toBe(endpoint.contentType ?? JSON_UTF8);
    expect(response.headers['x-ratelimit-limit']).toBe('120');
    expect(response.headers['x-ratelimit-remaining']).toBe('119');
  });
});

// D4 steps 6-9 on the endpoints that have 403s of state. No endpoint has both a path resource and
// a 403 of state, so "404 before 403-state" has no request that could exercise it.
describe('D4 order of checks: 403s of state', () => {
  const malformed = { body: MALFORMED_JSON, headers: { 'content-type': 'application/json' } };

  it('answers 400 for malformed JSON to POST /projects before the no-team 403 (D4.6 before D4.8)', async ({ ctx }) => {
    const teamless = await ctx.given.user({ withTeam: false });
    const response = await ctx.request({ method: 'POST', url: '/api/v1/projects', token: teamless.token, ...malformed });
    expectApiHeaders(response);
    expectErrorLike(response, 400, 'Bad Request', /JSON/);
  });

  it('answers the no-team 403 before validating the body of POST /projects (D4.8 before D4.9)', async ({ ctx }) => {
    const teamless = await ctx.given.user({ withTeam: false });
    const response = await ctx.request({ method: 'POST', url: '/api/v1/projects', token: teamless.token, body: INVALID_PROJECT_BODY });
    expectApiHeaders(response);
    expectError(response, 403, NO_TEAM);
  });

  it('answers 400 for malformed JSON to POST /tokens before the token-limit 403 (D4.6 before D4.8)', async ({ ctx }) => {
    const user = await ctx.given.user();
    for (let i = 0; i < 9; i++) await ctx.given.token(user);
    const response = await ctx.request({ method: 'POST', url: '/api/v1/tokens', token: user.token, ...malformed });
    expectApiHeaders(response);
    expectErrorLike(response, 400, 'Bad Request', /JSON/);
  });

  it('answers the token-limit 403 before validating the body of POST /tokens (D4.8 before D4.9)', async ({ ctx }) => {
    const user = await ctx.given.user();
    for (let i = 0; i < 9; i++) await ctx.given.token(user);
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/tokens',
      token: user.token,
      body: { name: '', abilities: ['root'] },
    });
    expectApiHeaders(response);
    expectError(response, 403, TOKEN_LIMIT);
  });
});
