import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { CLIENT_POST_HEADERS, loadFixture } from '../helpers/client-wire.js';
import { expectError, expectNoInternals } from '../helpers/contract.js';
import type { RequestOptions } from '../helpers/test-app.js';

/**
 * What the fault tests share: the answer of a request the database failed (D38) and the requests
 * they send while it fails.
 */
export const UNAVAILABLE = {
  error: 'Service Unavailable',
  message: 'The service is temporarily unavailable. Please try again later.',
} as const;

/** D38: a database 503 asks the client to come back in 5 s (an instance serves again within 5 s, D37). */
export const DATABASE_RETRY_AFTER = '5';

/** The body of a database 503: the D3 envelope, with `success: false` on the client package's routes (CLIENT-WIRE.md). */
export function unavailableBody(clientPackage = false): Record<string, unknown> {
  return clientPackage ? { success: false, ...UNAVAILABLE } : { ...UNAVAILABLE };
}

/** A database 503: the envelope as JSON, `Retry-After: 5`, and nothing of the error's internals. */
export function expectDatabase503(response: LightMyRequestResponse, options: { client?: boolean } = {}): void {
  expectError(response, 503, unavailableBody(options.client));
  expect(response.headers['retry-after']).toBe(DATABASE_RETRY_AFTER);
  expectNoInternals(response);
}

export const newProject = (name: string) => ({ name, framework_version: '11', description: 'created during a fault test' });

/** `POST /api/reports` the way the client package sends it, with the full recorded report. */
export function uploadRequest(apiToken: string, projectId: string, analyzedAt = '2026-11-21T05:09:23+00:00'): RequestOptions {
  return {
    method: 'POST',
    url: '/api/reports',
    token: apiToken,
    headers: { ...CLIENT_POST_HEADERS },
    body: { ...loadFixture('report-full', projectId), analyzed_at: analyzedAt },
  };
}
