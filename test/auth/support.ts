import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** D3 fixed bodies used across the auth and token tests. */
export const UNAUTHENTICATED = { error: 'Unauthenticated', message: 'Authentication required.' } as const;
export const SUBSCRIPTION_REQUIRED = {
  error: 'Subscription Required',
  message: 'An active subscription is required to access the API.',
} as const;
export const NOT_FOUND = { error: 'Not Found', message: 'The requested resource was not found.' } as const;
export const TOKEN_LIMIT = { error: 'Forbidden', message: 'You can have a maximum of 10 API tokens.' } as const;
export const missingAbility = (ability: 'read' | 'write' | 'admin') => ({
  error: 'Forbidden',
  message: `This token does not have the required '${ability}' ability.`,
});

/** D18 fixed success messages for tokens. */
export const TOKEN_CREATED = 'Token created successfully. Save the token — it will only be shown once.';
export const TOKEN_REVOKED = 'Token revoked successfully.';

/** Asserts the status and that the body is exactly the D3 envelope (JSON content type, D2). */
export function expectError(response: LightMyRequestResponse, status: number, body: Record<string, unknown>): void {
  expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body });
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
}

/** A 422 with one or more fields: `message` repeats the first field message (D3). */
export function expectValidationError(response: LightMyRequestResponse, fields: string[]): void {
  expect(response.statusCode).toBe(422);
  const body = response.json();
  expect(body.error).toBe('Validation Failed');
  expect(Object.keys(body.errors).sort()).toEqual([...fields].sort());
  for (const field of fields) {
    expect(Array.isArray(body.errors[field])).toBe(true);
    expect(body.errors[field].length).toBeGreaterThan(0);
    for (const message of body.errors[field]) expect(typeof message).toBe('string');
  }
  const first = Object.values(body.errors as Record<string, string[]>)[0]![0];
  expect(body.message).toBe(first);
  expect(Object.keys(body).sort()).toEqual(['error', 'errors', 'message']);
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

/** The D9 token shape: prefix, 40-character body, 8 lowercase hex digits of the CRC32 of the body. */
export const TOKEN_SHAPE = /^service_([A-Za-z0-9]{40})([0-9a-f]{8})$/;
