/**
 * The API contract as the tests see it: the fixed D3 error bodies, the D18 success messages, the
 * shapes of ids, timestamps and tokens, and the assertions shared by every test folder.
 */
import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Ability } from '../../src/auth/abilities.js';

// D2
export const JSON_UTF8 = 'application/json; charset=utf-8';

// D3: the envelopes with a fixed message.
export const UNAUTHENTICATED = { error: 'Unauthenticated', message: 'Authentication required.' } as const;
export const SUBSCRIPTION_REQUIRED = {
  error: 'Subscription Required',
  message: 'An active subscription is required to access the API.',
} as const;
export const NO_TEAM = { error: 'Forbidden', message: 'You must belong to a team to create projects.' } as const;
export const TOKEN_LIMIT = { error: 'Forbidden', message: 'You can have a maximum of 10 API tokens.' } as const;
export const NOT_FOUND = { error: 'Not Found', message: 'The requested resource was not found.' } as const;
export const TOO_MANY_MESSAGE = 'Rate limit exceeded. Please wait before making more requests.';
export const missingAbility = (ability: Ability) => ({
  error: 'Forbidden',
  message: `This token does not have the required '${ability}' ability.`,
});

// D18
export const PROJECT_CREATED = 'Project created successfully. Save the API token — it will only be shown once.';
export const PROJECT_DELETED = 'Project deleted successfully.';
export const API_TOKEN_REGENERATED = 'API token regenerated. Save the new token — it will only be shown once.';
export const TOKEN_CREATED = 'Token created successfully. Save the token — it will only be shown once.';
export const TOKEN_REVOKED = 'Token revoked successfully.';

/** D11: lowercase UUID, version 7 (RFC 9562 variant). */
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** D2: ISO 8601 in UTC with a Z suffix. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** D10: project API tokens are 40 characters from [A-Za-z0-9], no prefix. */
export const PROJECT_API_TOKEN = /^[A-Za-z0-9]{40}$/;

/** D9: personal access tokens are the prefix, a 40-character body, 8 lowercase hex digits of the CRC32 of the body. */
export const PERSONAL_ACCESS_TOKEN = /^service_([A-Za-z0-9]{40})([0-9a-f]{8})$/;

/** Hex SHA-256 of the UTF-8 text, as stored for tokens (D9, D10). */
export const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** D2: the body is JSON. */
export function expectJson(response: LightMyRequestResponse): void {
  expect(response.headers['content-type']).toBe(JSON_UTF8);
}

/** D2/D8: every /api/v1 answer is JSON and carries the rate-limit headers; Retry-After only on 429. */
export function expectApiHeaders(response: LightMyRequestResponse): void {
  expectJson(response);
  expect(response.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
  expect(response.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  if (response.statusCode !== 429) expect(response.headers['retry-after']).toBeUndefined();
}

/** Exact status and exactly the D3 envelope (no extra keys), as JSON (D2). */
export function expectError(response: LightMyRequestResponse, status: number, body: Record<string, unknown>): void {
  expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body });
  expectJson(response);
}

/** D3 404 envelope, exactly. */
export function expectNotFound(response: LightMyRequestResponse): void {
  expectError(response, 404, NOT_FOUND);
}

/** Status, title and a message matching `message` (for D3 rows whose sentence is not fixed). */
export function expectErrorLike(response: LightMyRequestResponse, status: number, error: string, message: RegExp): void {
  expect(response.statusCode).toBe(status);
  const body = response.json();
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(body.error).toBe(error);
  expect(body.message).toMatch(message);
}

/**
 * D3 422 envelope: `errors` keyed by exactly `fields` (dotted paths), each a non-empty list of
 * strings, and `message` repeating the first field message. `messages` pins exact field messages.
 */
export function expectValidationError(response: LightMyRequestResponse, fields: string[], messages: Record<string, string> = {}): void {
  expect(response.statusCode, response.body).toBe(422);
  expectJson(response);
  const body = response.json();
  expect(Object.keys(body).sort()).toEqual(['error', 'errors', 'message']);
  expectFieldErrors(body, fields);
  const first = Object.values(body.errors as Record<string, string[]>)[0]![0];
  expect(body.message).toBe(first);
  for (const [field, message] of Object.entries(messages)) expect(body.errors[field]).toContain(message);
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

let addressSequence = 0;
/**
 * A fresh client address: requests without a valid token are limited to 10 a minute per IP (D8),
 * so tests that send many of them use a new address each time to see the 401 rather than a 429.
 */
export function freshAddress(): string {
  addressSequence += 1;
  return `10.${(addressSequence >> 16) & 255}.${(addressSequence >> 8) & 255}.${addressSequence & 255}`;
}

/** D3's 422 body: `error` is `Validation Failed` and `errors` has exactly `fields`, each a non-empty list of strings. */
export function expectFieldErrors(body: Record<string, any>, fields: string[]): void {
  expect(body.error).toBe('Validation Failed');
  expect(Object.keys(body.errors).sort()).toEqual([...fields].sort());
  for (const field of fields) {
    expect(Array.isArray(body.errors[field])).toBe(true);
    expect(body.errors[field].length).toBeGreaterThan(0);
    for (const message of body.errors[field]) expect(typeof message).toBe('string');
  }
}
