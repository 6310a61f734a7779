import type { FastifyRequest } from 'fastify';
import { badRequest } from './api-error.js';

/**
 * Runs before schema validation on routes that take a body.
 * - A JSON value that is not an object (`[]`, `"x"`, `null`) is a malformed body: 400 (D5).
 * - No body at all is validated as `{}`, so missing fields read as "required" (422).
 * - D12: strings are trimmed and a string empty after trimming counts as absent.
 */
export async function normalizeJsonBody(request: FastifyRequest): Promise<void> {
  if (!request.routeOptions.schema?.body) return;
  if (request.body === undefined) {
    request.body = {};
    return;
  }
  if (request.body === null || typeof request.body !== 'object' || Array.isArray(request.body)) {
    throw badRequest('The request body must be a JSON object.');
  }
  request.body = trimStrings(request.body);
}

function trimStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value)) return value.map(trimStrings);
  if (value !== null && typeof value === 'object') {
    // Object.fromEntries defines plain data properties, so no key can reach a prototype.
    return Object.fromEntries(
      Object.entries(value)
        .map(([key, item]) => [key, trimStrings(item)] as const)
        .filter(([, item]) => item !== ''),
    );
  }
  return value;
}
