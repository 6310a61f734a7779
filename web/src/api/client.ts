import createClient, { type Middleware } from 'openapi-fetch';
import { type ApiProblem, problemOf, unreachable } from './problems.js';
import type { paths } from './schema.js';

/**
 * The one way the pages reach the API: openapi-fetch, typed by schema.d.ts (generated from the
 * service's own OpenAPI document by `npm run web:api-types`), on this origin with the session cookie.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

/** The session's CSRF token, kept in memory only (never in storage a script of another page could read). */
let csrfToken: string | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** E7: every non-GET request authenticated by the session carries the session's CSRF token. */
const csrfHeader: Middleware = {
  onRequest({ request }) {
    if (csrfToken !== null && !SAFE_METHODS.has(request.method)) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
};
api.use(csrfHeader);

type Unauthenticated = () => void;
let onUnauthenticated: Unauthenticated = () => {};

/** What to do when the API says the session is gone (the app sends the person to sign in). */
export function whenUnauthenticated(handler: Unauthenticated): void {
  onUnauthenticated = handler;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful answer; otherwise throws an ApiProblem, after sending the person to
 * sign in on a 401 (unless `expect401`: the sign-in form's wrong password is its own error).
 */
export async function call<T>(request: Promise<Answer<T>>, options: { expect401?: boolean } = {}): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await request;
  } catch {
    throw unreachable();
  }
  const { response } = answer;
  if (response.ok) return answer.data as T;
  const problem: ApiProblem = problemOf(response.status, answer.error, response.headers.get('retry-after'));
  if (response.status === 401 && !options.expect401) onUnauthenticated();
  throw problem;
}
