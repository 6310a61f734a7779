/**
 * OWASP API Security Top 10 (2023), API2: Broken Authentication.
 *
 * - Guessing tokens: every request without a valid token counts against the client IP, 10 a minute
 *   (D8), on /api/v1 and on the client-package endpoints; the 11th guess gets 429 with Retry-After,
 *   while the real owner's token from the same address keeps working (it counts against its user or
 *   project, D8), and the next window gives the guesser 10 more tries, no more.
 * - Timing: a token is looked up by the SHA-256 of the whole plain text in one indexed equality
 *   (D9, D10), so how long a lookup takes cannot depend on how many leading characters of a guess
 *   match a real token. Proved structurally: the statements run for a near miss, a random guess and
 *   a one-character miss are the same SQL text, and their only parameter is the 64-hex hash.
 * - Guessing passwords (E7, D29): at most five attempts per email are judged in 15 minutes, however
 *   many are sent at once or from how many addresses, and a wrong current password counts as one;
 *   a sign-in counts against its address's 10 a minute whatever token or cookie it carries.
 * - Credentials come only from `Authorization: Bearer`, never from the query string, a cookie or
 *   another header (they would land in access logs and browser history).
 *
 * The 401 for missing, malformed, revoked and expired tokens, one by one, is in
 * test/auth/authentication.test.ts; the per-IP budget's bookkeeping in test/rate-limit/limits.test.ts
 * and test/client-api/client-rate-limit.test.ts. Here those answers are shown to be indistinguishable.
 */
import { crc32 } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect } from 'vitest';
import { test as appTest } from '../helpers/app-fixture.js';
import { createApp } from '../../src/app.js';
import type { Db } from '../../src/db/database.js';
import type { App } from '../../src/http/app-types.js';
import {
  PERSONAL_ACCESS_TOKEN,
  PROJECT_API_TOKEN,
  UNAUTHENTICATED,
  expectError,
  expectTooManyRequests,
  freshAddress,
  sha256,
} from '../helpers/contract.js';
import { clientCall, expectClientUnauthenticated, minimalReport, storedRows, upload } from '../helpers/client-wire.js';
import { send } from '../helpers/test-app.js';
import { INVALID_CREDENTIALS, PASSWORD, asSession, expectRefusedByLock, judged, postSignIn, signIn } from '../sessions/session-world.js';

const it = appTest
  .extend(
    'guessV1',
    ({ ctx }) =>
      (ip: string) =>
        ctx.request({ method: 'GET', url: '/api/v1/tokens', token: wellFormedToken(randomAlphanumeric(40)), remoteAddress: ip }),
  )
  /** Status and body of a GET /api/v1/tokens with `token`, from a fresh address. */
  .extend('answer', ({ ctx }) => async (token: string) => {
    const response = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token, remoteAddress: freshAddress() });
    return { status: response.statusCode, body: response.body };
  });

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomAlphanumeric = (length: number) =>
  Array.from({ length }, () => ALPHANUMERIC[Math.floor(Math.random() * ALPHANUMERIC.length)]).join('');
const checksum = (body: string) => crc32(body).toString(16).padStart(8, '0');
/** A personal access token with D9's shape and a correct checksum, so it reaches the database lookup. */
const wellFormedToken = (body: string) => `service_${body}${checksum(body)}`;
/** The character after `c` in the alphabet, so a changed character is always a real change. */
const other = (c: string) => ALPHANUMERIC[(ALPHANUMERIC.indexOf(c) + 1) % ALPHANUMERIC.length]!;

let apiToken: string;
it.beforeEach(async ({ ctx, user }) => {
  ({ apiToken } = await ctx.given.project(user, { name: 'Guarded' }));
});

describe('API2 brute force over tokens hits the per-IP limit (D8)', () => {
  it('gives a guesser of personal access tokens 10 tries a minute, then 429 with Retry-After for every further guess', async ({
    ctx,
    guessV1,
  }) => {
    const ip = freshAddress();
    for (let i = 1; i <= 10; i++) expectError(await guessV1(ip), 401, UNAUTHENTICATED);
    for (let i = 11; i <= 15; i++) {
      const refused = await guessV1(ip);
      expectTooManyRequests(refused);
      expect(refused.headers['x-ratelimit-limit']).toBe('10');
    }
    // Malformed guesses and guesses on other endpoints are the same budget: no way around it.
    expectTooManyRequests(await ctx.request({ method: 'GET', url: '/api/v1/projects', token: 'service_x', remoteAddress: ip }));
    expectTooManyRequests(
      await ctx.request({ method: 'POST', url: '/api/v1/tokens', remoteAddress: ip, body: { name: 'x', abilities: ['read'] } }),
    );
  });

  it("keeps the real owner's token working from the guesser's address (it counts against the user, not the IP)", async ({
    ctx,
    user,
    guessV1,
  }) => {
    const ip = freshAddress();
    for (let i = 1; i <= 10; i++) await guessV1(ip);
    expectTooManyRequests(await guessV1(ip));

    const owner = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token, remoteAddress: ip });
    expect(owner.statusCode, owner.body).toBe(200);
    expect(owner.headers['x-ratelimit-limit']).toBe('120');
  });

  it('gives the guesser 10 more tries, no more, once the 60-second window has passed', async ({ ctx, guessV1 }) => {
    const ip = freshAddress();
    for (let i = 1; i <= 10; i++) await guessV1(ip);
    const retryAfter = expectTooManyRequests(await guessV1(ip));

    ctx.clock.advance(retryAfter * 1000 - 1000);
    expectTooManyRequests(await guessV1(ip));
    ctx.clock.advance(1000);
    for (let i = 1; i <= 10; i++) {
      const response = await guessV1(ip);
      expectError(response, 401, UNAUTHENTICATED);
      expect(response.headers['x-ratelimit-remaining']).toBe(String(10 - i));
    }
    expectTooManyRequests(await guessV1(ip));
  });

  it('gives a guesser of project API tokens 10 tries a minute on the client endpoints, storing nothing', async ({ ctx }) => {
    const ip = freshAddress();
    const guess = () => upload(ctx, randomAlphanumeric(40), minimalReport(), { remoteAddress: ip });
    for (let i = 1; i <= 10; i++) expectClientUnauthenticated(await guess());
    const refused = await guess();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ success: false, error: 'Too Many Requests', retry_after: expect.any(Number) });
    expect(refused.headers['retry-after']).toBe(String(refused.json().retry_after));
    expect((await clientCall(ctx, randomAlphanumeric(40), undefined, { url: '/api/token/verify', remoteAddress: ip })).statusCode).toBe(
      429,
    );
    expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 0 });

    // The project's real token still uploads from that address (it counts against the project).
    expect((await upload(ctx, apiToken, minimalReport(), { remoteAddress: ip })).statusCode).toBe(201);

    ctx.clock.advance(60_000);
    expectClientUnauthenticated(await guess());
  });
});

/*
 * D29: the attacks found on E7's sign-in, replayed. Each failed before D29: all 31 concurrent
 * guesses were judged and the right one signed in; a guess carrying the guesser's own token counted
 * against that user's budget (120 to 1,200 a minute) instead of the address's 10; wrong current
 * passwords were answered 422 without end.
 */
describe('API2 password guesses cannot be raced or outsourced (D29)', () => {
  it('judges five of 31 wrong-then-right passwords sent at once from four addresses; the right one, sent last, is refused', async ({
    ctx,
  }) => {
    const victim = await ctx.given.user();
    await ctx.given.password(victim, PASSWORD);
    // Four addresses, each within D8's 10 a minute.
    const addresses = Array.from({ length: 4 }, () => freshAddress());
    const attempts = Array.from({ length: 31 }, (_, i) => (i === 30 ? PASSWORD : `wrong password ${i}`));
    const answers = await Promise.all(
      attempts.map((password, i) => postSignIn(ctx, victim.email, password, { remoteAddress: addresses[i % 4] })),
    );

    expect(judged(answers)).toHaveLength(5);
    expectRefusedByLock(answers.filter((r) => !judged([r]).length));
    expect(answers[30]!.statusCode).toBe(429);
    expect(await ctx.db.selectFrom('sessions').selectAll().execute()).toEqual([]);
    // Five failures lock the email for 15 minutes, the right password too.
    expectRefusedByLock([await postSignIn(ctx, victim.email, PASSWORD)]);
    ctx.clock.advance(15 * 60_000);
    expect((await postSignIn(ctx, victim.email, PASSWORD)).statusCode).toBe(201);
  });

  it("counts a sign-in carrying the guesser's valid personal access token against the address: the 11th in a minute is 429", async ({
    ctx,
    user,
  }) => {
    const remoteAddress = freshAddress();
    const answers: LightMyRequestResponse[] = [];
    for (let i = 0; i < 11; i++) {
      answers.push(await postSignIn(ctx, `victim${i}@example.com`, 'guessed password', { remoteAddress, token: user.token }));
    }
    for (const response of answers.slice(0, 10)) {
      expectError(response, 401, INVALID_CREDENTIALS);
      expect(response.headers['x-ratelimit-limit']).toBe('10');
    }
    expectTooManyRequests(answers[10]!);
    // The token's own budget was not touched.
    const own = await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token, remoteAddress });
    expect(own.statusCode).toBe(200);
    expect(own.headers['x-ratelimit-remaining']).toBe('119');
  });

  it("counts a sign-in carrying the guesser's session cookie against the address too", async ({ ctx, user }) => {
    const session = await signIn(ctx, user);
    const remoteAddress = freshAddress();
    const answers: LightMyRequestResponse[] = [];
    for (let i = 0; i < 11; i++) {
      const body = { email: `victim${i}@example.com`, password: 'guessed password' };
      answers.push(await asSession(ctx, session, { method: 'POST', url: '/api/v1/session', body, remoteAddress }));
    }
    expect(answers.slice(0, 10).map((r) => r.statusCode)).toEqual(Array(10).fill(401));
    expect(answers[0]!.headers['x-ratelimit-limit']).toBe('10');
    expectTooManyRequests(answers[10]!);
  });

  it('judges five of 20 wrong current passwords sent at once to PUT /api/v1/user/password; the rest are 429', async ({ ctx, user }) => {
    const session = await signIn(ctx, user);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        asSession(ctx, session, {
          method: 'PUT',
          url: '/api/v1/user/password',
          body: { current_password: `not it ${i} at all`, password: 'a brand new passphrase' },
        }),
      ),
    );
    expect(answers.filter((r) => r.statusCode === 422)).toHaveLength(5);
    expectRefusedByLock(answers.filter((r) => r.statusCode !== 422));
  });
});

describe('API2 a token lookup compares the SHA-256 only, so timing reveals nothing', () => {
  interface Statement {
    sql: string;
    parameters: unknown[];
  }
  let statements: Statement[];
  let capturing: Db;
  let app: App;

  // A second app on the same store whose connection reports every statement with its parameters.
  it.beforeEach(async ({ ctx }) => {
    statements = [];
    capturing = ctx.store.open({ onQuery: (event) => statements.push({ sql: event.query.sql, parameters: [...event.query.parameters] }) });
    app = await createApp(ctx.config, { db: capturing, clock: ctx.clock });
    await app.ready();
  });
  afterEach(async () => {
    await app.close();
    await capturing.destroy();
  });

  /** Sends one request from a fresh address and returns the answer with the statements it ran. */
  async function observe(options: { url: string; method?: 'GET' | 'POST'; token: string; body?: unknown }) {
    statements = [];
    const response = await send(app, {
      method: options.method ?? 'GET',
      url: options.url,
      token: options.token,
      body: options.body,
      remoteAddress: freshAddress(),
    });
    return { response, statements: [...statements] };
  }

  /** Status, headers (but the date) and body, byte for byte. */
  const wire = (response: LightMyRequestResponse) => {
    const { date: _date, ...headers } = response.headers;
    return { status: response.statusCode, headers, body: response.body };
  };

  /** Every parameter is the 64-hex SHA-256 of `plain`, and no parameter or SQL text holds 9+ characters of it. */
  function expectOnlyTheHash(observed: Statement[], plain: string) {
    // The lookup itself ran (an unknown token is never served from the cache).
    expect(observed.filter((statement) => statement.parameters.length > 0).length).toBeGreaterThan(0);
    const pieces = Array.from({ length: plain.length - 8 }, (_, i) => plain.slice(i, i + 9));
    for (const statement of observed) {
      // Issue 15: on SQLite the token cache reads its change counter first, with no parameter at all.
      expect(statement.parameters).toEqual(/"auth_changes"/.test(statement.sql) ? [] : [sha256(plain)]);
      for (const text of [statement.sql, ...statement.parameters.map(String)]) {
        const leaked = pieces.filter((piece) => text.includes(piece));
        expect(leaked, `plain text in ${text}`).toEqual([]);
      }
    }
  }

  it('runs the same statement, with only the hash, for a 20-character prefix match, a random guess and a one-character miss', async ({
    ctx,
    user,
  }) => {
    expect(user.token).toMatch(PERSONAL_ACCESS_TOKEN);
    const body = user.token.slice(8, 48);
    const candidates = {
      // The first 20 characters (`service_` and 12 of the body) are the real token's.
      prefix: wellFormedToken(body.slice(0, 12) + randomAlphanumeric(28)),
      random: wellFormedToken(randomAlphanumeric(40)),
      // The real body with its last character changed (and a checksum that matches, so it is looked up).
      lastChar: wellFormedToken(body.slice(0, 39) + other(body[39]!)),
    };
    expect(candidates.prefix.slice(0, 20)).toBe(user.token.slice(0, 20));

    const observed = {
      prefix: await observe({ url: '/api/v1/tokens', token: candidates.prefix }),
      random: await observe({ url: '/api/v1/tokens', token: candidates.random }),
      lastChar: await observe({ url: '/api/v1/tokens', token: candidates.lastChar }),
    };
    for (const [name, { response, statements: ran }] of Object.entries(observed)) {
      expectError(response, 401, UNAUTHENTICATED);
      expectOnlyTheHash(ran, candidates[name as keyof typeof candidates]);
    }
    const texts = Object.values(observed).map((o) => o.statements.map((s) => s.sql));
    expect(texts[1]).toEqual(texts[0]);
    expect(texts[2]).toEqual(texts[0]);
    expect(wire(observed.random.response)).toEqual(wire(observed.prefix.response));
    expect(wire(observed.lastChar.response)).toEqual(wire(observed.prefix.response));

    // A real token is found by the very same statement, with its own hash. A token made now is in no
    // instance's cache (issue 15: making it also empties the cache), so its lookup runs.
    const lookup = observed.prefix.statements.find((statement) => statement.parameters.length > 0)!;
    const fresh = await ctx.given.token(user);
    const hit = await observe({ url: '/api/v1/tokens', token: fresh });
    expect(hit.response.statusCode).toBe(200);
    expect(hit.statements.find((statement) => statement.parameters.length > 0)).toEqual({ sql: lookup.sql, parameters: [sha256(fresh)] });
  });

  it('runs no statement at all for a token whose checksum is wrong, with the same 401 (D9)', async ({ user }) => {
    const wrongChecksum = user.token.slice(0, -1) + (user.token.endsWith('0') ? '1' : '0');
    const refused = await observe({ url: '/api/v1/tokens', token: wrongChecksum });
    const random = await observe({ url: '/api/v1/tokens', token: wellFormedToken(randomAlphanumeric(40)) });
    expect(refused.statements).toEqual([]);
    expect(wire(refused.response)).toEqual(wire(random.response));
  });

  it.each([
    ['GET', '/api/token/verify'],
    ['POST', '/api/reports'],
  ] as const)('does the same for project API tokens on %s %s', async (method, url) => {
    expect(apiToken).toMatch(PROJECT_API_TOKEN);
    const candidates = {
      prefix: apiToken.slice(0, 20) + randomAlphanumeric(20),
      random: randomAlphanumeric(40),
      lastChar: apiToken.slice(0, 39) + other(apiToken[39]!),
    };
    const body = method === 'POST' ? minimalReport() : undefined;
    const observed = {
      prefix: await observe({ method, url, token: candidates.prefix, body }),
      random: await observe({ method, url, token: candidates.random, body }),
      lastChar: await observe({ method, url, token: candidates.lastChar, body }),
    };
    for (const [name, { response, statements: ran }] of Object.entries(observed)) {
      expect(response.statusCode).toBe(401);
      expectOnlyTheHash(ran, candidates[name as keyof typeof candidates]);
    }
    const texts = Object.values(observed).map((o) => o.statements.map((s) => s.sql));
    expect(texts[1]).toEqual(texts[0]);
    expect(texts[2]).toEqual(texts[0]);
    expect(wire(observed.random.response)).toEqual(wire(observed.prefix.response));
    expect(wire(observed.lastChar.response)).toEqual(wire(observed.prefix.response));

    const hit = await observe({ method, url, token: apiToken, body });
    expect(hit.response.statusCode).toBeLessThan(300);
    expect(hit.statements[0]).toEqual({ sql: texts[0]![0], parameters: [sha256(apiToken)] });
  });
});

describe('API2 a token that was once valid is refused exactly like one never issued', () => {
  it('answers a revoked and an expired personal access token with the same 401 as a random one', async ({ ctx, user, answer }) => {
    const revoked = await ctx.given.token(user, { name: 'revoked' });
    const { id } = await ctx.db.selectFrom('personal_access_tokens').select('id').where('name', '=', 'revoked').executeTakeFirstOrThrow();
    expect((await ctx.request({ method: 'DELETE', url: `/api/v1/tokens/${id}`, token: user.token })).statusCode).toBe(200);
    const expired = await ctx.given.token(user, { name: 'expired', expiresAt: new Date(ctx.clock.now().getTime() + 60_000) });
    expect((await answer(expired)).status).toBe(200);
    ctx.clock.advance(60_000);

    const never = await answer(wellFormedToken(randomAlphanumeric(40)));
    expect(never).toEqual({ status: 401, body: JSON.stringify(UNAUTHENTICATED) });
    expect(await answer(revoked)).toEqual(never);
    expect(await answer(expired)).toEqual(never);
  });

  it('answers a regenerated-away project token with the same 401 as a random one', async ({ ctx, user }) => {
    const projectId = (await ctx.db.selectFrom('projects').select('id').executeTakeFirstOrThrow()).id;
    const regenerated = await ctx.request({ method: 'POST', url: `/api/v1/projects/${projectId}/regenerate-token`, token: user.token });
    expect(regenerated.statusCode).toBe(200);
    const old = await clientCall(ctx, apiToken, undefined, { url: '/api/token/verify', remoteAddress: freshAddress() });
    const never = await clientCall(ctx, randomAlphanumeric(40), undefined, { url: '/api/token/verify', remoteAddress: freshAddress() });
    expectClientUnauthenticated(old, { valid: false });
    expect(old.body).toBe(never.body);
  });
});

describe('API2 credentials are read from the Authorization header only', () => {
  it('refuses a valid personal access token in the query string, a cookie or another header (401)', async ({ ctx, user }) => {
    const token = encodeURIComponent(user.token);
    const attempts: { url: string; headers?: Record<string, string> }[] = [
      ...['token', 'api_token', 'access_token', 'bearer', 'auth', 'authorization'].map((name) => ({
        url: `/api/v1/tokens?${name}=${token}`,
      })),
      { url: '/api/v1/tokens', headers: { cookie: `token=${token}; api_token=${token}` } },
      { url: '/api/v1/tokens', headers: { 'x-api-key': user.token, 'x-auth-token': user.token, 'x-access-token': user.token } },
      { url: '/api/v1/tokens', headers: { 'proxy-authorization': `Bearer ${user.token}` } },
    ];
    for (const attempt of attempts) {
      const response = await ctx.request({ method: 'GET', ...attempt, remoteAddress: freshAddress() });
      expectError(response, 401, UNAUTHENTICATED);
    }
    // Control: the same token in the header works.
    expect((await ctx.request({ method: 'GET', url: '/api/v1/tokens', token: user.token })).statusCode).toBe(200);
  });

  it('refuses a valid project API token in the query string, a cookie or another header (401), storing nothing', async ({ ctx }) => {
    const attempts: { url: string; headers?: Record<string, string> }[] = [
      ...['token', 'api_token', 'access_token', 'project_token'].map((name) => ({ url: `/api/reports?${name}=${apiToken}` })),
      { url: '/api/reports', headers: { cookie: `api_token=${apiToken}` } },
      { url: '/api/reports', headers: { 'x-api-key': apiToken, 'x-api-token': apiToken } },
    ];
    for (const attempt of attempts) {
      const response = await upload(ctx, null, minimalReport(), { ...attempt, remoteAddress: freshAddress() });
      expectClientUnauthenticated(response);
    }
    expect(await storedRows(ctx)).toEqual({ reports: 0, failures: 0 });
  });

  it('refuses header values that smuggle a valid token next to something else (401)', async ({ ctx, user }) => {
    const values = [
      `Bearer ${user.token} ${user.token}`,
      `Bearer ${user.token},Bearer ${user.token}`,
      `Bearer ${user.token}, Basic eDp5`,
      `Bearer ${user.token}\u0000`,
      `Bearer "${user.token}"`,
      `Bearer=${user.token}`,
      `Bearer:${user.token}`,
    ];
    for (const authorization of values) {
      const response = await ctx.request({
        method: 'GET',
        url: '/api/v1/tokens',
        headers: { authorization },
        remoteAddress: freshAddress(),
      });
      expectError(response, 401, UNAUTHENTICATED);
    }
  });
});
