import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { badRequest } from './api-error.js';

/**
 * No v1 body goes deeper than two levels (`settings.fail_on`, `abilities.0`), a report upload about
 * six (`results.0.issues.0.code_snippet.lines`) plus what an analyzer puts in its issue metadata.
 * The limit keeps a hostile body of nested brackets from exhausting the stack of any recursive walk.
 */
export const MAX_JSON_DEPTH = 32;

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

/** Recursion bounded by `levels`, whatever the input. */
export function isNestedDeeperThan(value: unknown, levels: number): boolean {
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

/**
 * D12's trimming: white space, and characters that show nothing: format characters (zero-width
 * spaces and joiners, bidirectional controls such as U+202E, U+180E), other default-ignorable code
 * points (U+3164 HANGUL FILLER, variation selectors), control characters, and U+2800 BRAILLE PATTERN
 * BLANK. A name made only of these reads as empty, so it counts as absent.
 */
const INVISIBLE_RUN_AT_START = /^[\p{White_Space}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}\u2800]+/u;
const INVISIBLE_CHARACTER = /^[\p{White_Space}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}\u2800]$/u;

/**
 * The end is scanned backwards one character at a time: a regular expression anchored at the end
 * (`[...]+$`) would try every start position of a long inner run, quadratic on a hostile 1 MiB body.
 */
export function trimInvisible(text: string): string {
  const start = INVISIBLE_RUN_AT_START.exec(text)?.[0].length ?? 0;
  let end = text.length;
  while (end > start) {
    const pair = end - 2 >= start && /[\uDC00-\uDFFF]/.test(text[end - 1]!) && /[\uD800-\uDBFF]/.test(text[end - 2]!);
    const width = pair ? 2 : 1;
    if (!INVISIBLE_CHARACTER.test(text.slice(end - width, end))) break;
    end -= width;
  }
  return text.slice(start, end);
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

/** A JSON body's value, or the 400 (D5) that says why there is none; see registerJsonBodyParser. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw emptyJsonBody();
  try {
    return secureJson.parse(text, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const prototypeKey = error instanceof SyntaxError && /forbidden prototype property/.test(error.message);
    throw badRequest(prototypeKey ? PROTOTYPE_KEY_MESSAGE : 'The request body is not valid JSON.');
  }
}

export const PROTOTYPE_KEY_MESSAGE = 'The request body may not contain "__proto__" or "constructor.prototype" keys.';

export const emptyJsonBody = () => badRequest('The request body is empty, but Content-Type says it is JSON.');
