import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** D3 envelopes with fixed messages. */
export const UNAUTHENTICATED = { error: 'Unauthenticated', message: 'Authentication required.' } as const;
export const NOT_FOUND = { error: 'Not Found', message: 'The requested resource was not found.' } as const;
export const SUBSCRIPTION_REQUIRED = {
  error: 'Subscription Required',
  message: 'An active subscription is required to access the API.',
} as const;
export const NO_TEAM = { error: 'Forbidden', message: 'You must belong to a team to create projects.' } as const;
export const TOKEN_LIMIT = { error: 'Forbidden', message: 'You can have a maximum of 10 API tokens.' } as const;
export const TOO_MANY_MESSAGE = 'Rate limit exceeded. Please wait before making more requests.';

export const missingAbility = (ability: string) => ({
  error: 'Forbidden',
  message: `This token does not have the required '${ability}' ability.`,
});

export const JSON_UTF8 = 'application/json; charset=utf-8';

/** A project id that is a well-formed UUID v7 but names no project. */
export const MISSING_PROJECT = '0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b';
/** A token id that belongs to nobody. */
export const MISSING_TOKEN = '999999';

/** D2/D8: every /api/v1 answer is JSON and carries the rate-limit headers; Retry-After only on 429. */
export function expectApiHeaders(response: LightMyRequestResponse): void {
  expect(response.headers['content-type']).toBe(JSON_UTF8);
  expect(response.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
  expect(response.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  if (response.statusCode !== 429) expect(response.headers['retry-after']).toBeUndefined();
}

/** Exact status and exact D3 envelope (no extra keys). */
export function expectError(response: LightMyRequestResponse, status: number, envelope: { error: string; message: string }): void {
  expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body: envelope });
}

/** Status, title and a message matching `message` (for D3 rows whose sentence is not fixed). */
export function expectErrorLike(response: LightMyRequestResponse, status: number, error: string, message: RegExp): void {
  expect(response.statusCode).toBe(status);
  const body = response.json();
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(body.error).toBe(error);
  expect(body.message).toMatch(message);
}

/** D8: the 429 body and its Retry-After header agree; returns the seconds. */
export function expectTooManyRequests(response: LightMyRequestResponse): number {
  expect(response.statusCode).toBe(429);
  const body = response.json();
  expect(body).toEqual({ error: 'Too Many Requests', message: TOO_MANY_MESSAGE, retry_after: expect.any(Number) });
  expect(Number.isInteger(body.retry_after)).toBe(true);
  expect(body.retry_after).toBeGreaterThanOrEqual(1);
  expect(body.retry_after).toBeLessThanOrEqual(60);
  expect(response.headers['retry-after']).toBe(String(body.retry_after));
  expect(response.headers['x-ratelimit-remaining']).toBe('0');
  return body.retry_after as number;
}

/** D3: never a stack trace, file path, SQL or library internals in a body. */
export function expectNoInternals(response: LightMyRequestResponse): void {
  const body = response.body;
  expect(body).not.toMatch(/\n\s+at /);
  expect(body).not.toMatch(/\.(ts|js):\d+/);
  expect(body).not.toMatch(/node_modules|\/work\/|\/src\//);
  expect(body).not.toMatch(/\bstack\b/i);
  expect(body).not.toMatch(/SQLITE_|select .* from|FST_ERR/i);
}
