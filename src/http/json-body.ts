import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../wire/api-error.js';
import { isNestedDeeperThan, MAX_JSON_DEPTH, parseJsonBody } from '../wire/json-parse.js';
import { storableText, trimInvisible } from '../wire/storable-text.js';

/** Whether the request came with a body (D22: its credential is checked again once it has arrived). */
export function carriesBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

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

function trimStrings(value: unknown): unknown {
  if (typeof value === 'string') return storableText(trimInvisible(value));
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

/**
 * The JSON body parser (D5), in place of Fastify's, which answers every refusal of secure-json-parse
 * with one "invalid JSON" error: a body with a `__proto__` key (or `constructor.prototype`), which is
 * refused so that no handler can ever pollute a prototype, is told so in its own words.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
