import type { FastifyRequest } from 'fastify';
import { badRequest } from './api-error.js';

/**
 * No v1 body goes deeper than two levels (`settings.fail_on`, `abilities.0`), a report upload about
 * six (`results.0.issues.0.code_snippet.lines`) plus what an analyzer puts in its issue metadata.
 * The limit keeps a hostile body of nested brackets from exhausting the stack of any recursive walk.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Runs before schema validation on routes that take a body.
 * - A JSON value that is not an object (`[]`, `"x"`, `null`) is a malformed body: 400 (D5).
 * - No body at all is validated as `{}`, so missing fields read as "required" (422).
 * - A body nested deeper than MAX_JSON_DEPTH is refused: 400.
 */
export async function requireJsonObjectBody(request: FastifyRequest): Promise<void> {
  if (!request.routeOptions.schema?.body) return;
  if (request.body === undefined) {
    request.body = {};
    return;
  }
  if (request.body === null || typeof request.body !== 'object' || Array.isArray(request.body)) {
    throw badRequest('The request body must be a JSON object.');
  }
  if (isNestedDeeperThan(request.body, MAX_JSON_DEPTH)) {
    throw badRequest(`The request body may not be nested more than ${MAX_JSON_DEPTH} levels deep.`);
  }
}

/**
 * `requireJsonObjectBody`, then D12 for /api/v1 bodies: strings are trimmed (and made storable) and a
 * string empty after trimming counts as absent. (Uploads are stored as sent: their code snippets keep
 * their spaces.)
 */
export async function normalizeJsonBody(request: FastifyRequest): Promise<void> {
  if (!request.routeOptions.schema?.body) return;
  await requireJsonObjectBody(request);
  request.body = trimStrings(request.body);
}

/** Recursion bounded by `levels`, whatever the input. */
function isNestedDeeperThan(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (levels === 0) return true;
  return Object.values(value).some((item) => isNestedDeeperThan(item, levels - 1));
}

/** NUL, or a UTF-16 surrogate without its other half. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text every column can hold, the same on both databases: PostgreSQL refuses NUL in text (a 500),
 * and an unpaired surrogate has no UTF-8 form (both drivers quietly write U+FFFD instead, so the
 * answer would not show what was stored). Both become U+FFFD here, before anything is stored.
 */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

function trimStrings(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value).trim();
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
