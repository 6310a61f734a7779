import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { freshAddress } from '../helpers/contract.js';
import type { RequestOptions, TestContext, TestUser } from '../helpers/test-app.js';

export const PASSWORD = 'correct horse battery staple';
export const INVALID_CREDENTIALS = { error: 'Unauthenticated', message: 'These credentials do not match our records.' } as const;

export interface SignedIn {
  /** The `Cookie` header value: `scoreboard_session=<secret>`. */
  cookie: string;
  secret: string;
  csrf: string;
  response: LightMyRequestResponse;
}

/** `POST /api/v1/session` from a fresh address (its own D8 budget). */
export function postSignIn(ctx: TestContext, email: string, password: string, extra: Partial<RequestOptions> = {}) {
  return ctx.request({ method: 'POST', url: '/api/v1/session', body: { email, password }, remoteAddress: freshAddress(), ...extra });
}

/** Signs the user in (setting their password first unless told not to) and returns the cookie and CSRF token. */
export async function signIn(ctx: TestContext, user: TestUser, options: { setPassword?: boolean } = {}): Promise<SignedIn> {
  if (options.setPassword ?? true) await ctx.given.password(user, PASSWORD);
  const response = await postSignIn(ctx, user.email, PASSWORD);
  expect(response.statusCode, response.body).toBe(201);
  const cookie = response.cookies.find((c) => c.name === 'scoreboard_session');
  expect(cookie).toBeDefined();
  return { cookie: `scoreboard_session=${cookie!.value}`, secret: cookie!.value, csrf: response.json().data.csrf_token, response };
}

/** A request of the session: its cookie, and its CSRF token unless `csrf` says otherwise (null: none). */
export function asSession(ctx: TestContext, session: SignedIn, options: RequestOptions & { csrf?: string | null }) {
  const { csrf = session.csrf, headers, ...rest } = options;
  return ctx.request({
    ...rest,
    headers: { cookie: session.cookie, ...(csrf === null ? {} : { 'x-csrf-token': csrf }), ...headers },
  });
}

/** The answers whose password was judged (D29): a session or the wrong-credentials 401. */
export const judged = (answers: LightMyRequestResponse[]) => answers.filter((r) => r.statusCode === 201 || r.statusCode === 401);

/** Every refused attempt is D3's 429 with Retry-After equal to the body's retry_after, within 15 minutes. */
export function expectRefusedByLock(answers: LightMyRequestResponse[]) {
  for (const response of answers) {
    expect(response.statusCode, response.body).toBe(429);
    const retryAfter = Number(response.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(response.json()).toMatchObject({ error: 'Too Many Requests', retry_after: retryAfter });
  }
}
