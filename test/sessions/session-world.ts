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
