import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldErrors } from './api-error.js';

/**
 * Validator compiler shared by the server, the tests and every route.
 *
 * - JSON bodies are never coerced (D12: `"name": 12345` or `"fail_threshold": "50"` is a 422).
 * - Query strings are always strings on the wire, so they are coerced (`?page=2` is the integer 2).
 * - Path parameters are not validated by the schema: D9/D11 answer a malformed `{project}` or
 *   `{token}` with 404, so the resource lookups check them (the schema only documents them).
 */
function newAjv(coerceTypes: boolean): Ajv {
  // verbose: the error mapping reads each failing schema (`parentSchema`) to choose its message.
  const ajv = new Ajv({ allErrors: true, verbose: true, coerceTypes, useDefaults: true, removeAdditional: false, strict: false });
  (addFormats as unknown as (ajv: Ajv) => Ajv)(ajv);
  ajv.addFormat(HTTP_URL_FORMAT, { type: 'string', validate: isHttpUrl });
  return ajv;
}

/** The format of an absolute http(s) URL a browser would open as given (D24). */
export const HTTP_URL_FORMAT = 'http-url';

/**
 * D24: parses as a WHATWG URL (what browsers and Node do), with scheme http or https, a non-empty
 * host and a valid port, and no user name or password. `https://:@`, `https://%00`,
 * `https://[::1]:99999/` and `http://user:pass@evil.com@good.com/` all fail. Written with its `//`:
 * WHATWG would also read `https:host` or `https:\\host`, which nobody means as a repository link.
 */
export function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.hostname === '' || url.username !== '' || url.password !== '') return false;
  // WHATWG drops an empty user info (`https://:@host`) without a trace, and reads `http:///x` as the
  // host `x`: the authority as written must be there, without any `@`.
  const authority = text.slice(text.indexOf('//') + 2).split(/[/?#\\]/, 1)[0]!;
  return authority !== '' && !authority.includes('@');
}

const bodyAjv = newAjv(false);
const queryAjv = newAjv(true);
const acceptAll = () => true;

/** A validation error as Ajv and Fastify both report it. */
export interface SchemaValidationError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Fastify's validator compiler, written without Fastify: one route part's schema in, its check out. */
export const validatorCompiler = ({ schema, httpPart }: { schema: unknown; httpPart?: string }): ValidateFunction | (() => boolean) => {
  if (httpPart === 'params') return acceptAll;
  if (httpPart === 'body') return bodyAjv.compile(schema as object) as ValidateFunction;
  return decimalIntegersOnly(queryAjv.compile(schema as object) as ValidateFunction, schema as QuerySchema);
};

type QuerySchema = { properties?: Record<string, { type?: unknown }> };

/**
 * D27: an integer in the query string is decimal digits and nothing else. Ajv's coercion reads what
 * JavaScript's `Number()` reads: `1e300` (then Infinity, or a page number no link can be built for),
 * `0x10` as 16, ` 1` as 1, `+1`, `1.0`. Such a value fails as a value of the wrong type (422) before
 * Ajv sees it; the schema's bounds then apply to what is left.
 */
function decimalIntegersOnly(validate: ValidateFunction, schema: QuerySchema): ValidateFunction {
  const integerKeys = Object.entries(schema.properties ?? {})
    .filter(([, property]) => property.type === 'integer')
    .map(([key]) => key);
  const checked = ((data: unknown) => {
    const query = (data ?? {}) as Record<string, unknown>;
    const key = integerKeys.find((name) => typeof query[name] === 'string' && !/^[0-9]+$/.test(query[name] as string));
    if (key !== undefined) {
      checked.errors = [
        {
          instancePath: `/${key}`,
          schemaPath: `#/properties/${key}/type`,
          keyword: 'type',
          params: { type: 'integer' },
          message: 'must be decimal digits',
          parentSchema: schema.properties?.[key] ?? {},
        },
      ];
      return false;
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return checked;
}

/** Turns Ajv errors into D3's `errors` map: dotted field path -> Laravel-style messages. */
export function toFieldErrors(errors: readonly (ErrorObject | SchemaValidationError)[]): FieldErrors {
  const fieldErrors: FieldErrors = {};
  for (const error of errors as ErrorObject[]) {
    const segments = error.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
    const field = segments.join('.') || 'body';
    const message = messageFor(error, field.replace(/_/g, ' '));
    const list = (fieldErrors[field] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return fieldErrors;
}

const typeNames: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

function messageFor(error: ErrorObject, label: string): string {
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const limit = error.params.limit as number | undefined;
  switch (error.keyword) {
    case 'required':
      return `The ${label} field is required.`;
    case 'type': {
      // A value restricted to a list (framework_version, abilities.N) is simply "invalid" whatever its type.
      if (Array.isArray(schema.enum)) return `The selected ${label} is invalid.`;
      const expected =
        String(error.params.type)
          .split(',')
          .find((t) => t !== 'null') ?? 'string';
      return `The ${label} field must be ${typeNames[expected] ?? `of type ${expected}`}.`;
    }
    case 'enum':
    case 'const':
      return `The selected ${label} is invalid.`;
    case 'maxLength':
      return `The ${label} may not be greater than ${limit} characters.`;
    case 'minLength':
      return `The ${label} must be at least ${limit} characters.`;
    case 'format':
    case 'pattern':
      if (schema.format === HTTP_URL_FORMAT) return `The ${label} must be a valid URL.`;
      if (schema.format === 'email') return `The ${label} must be a valid email address.`;
      return `The ${label} format is invalid.`;
    case 'minimum':
    case 'maximum':
      if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number') {
        return `The ${label} must be between ${schema.minimum} and ${schema.maximum}.`;
      }
      return error.keyword === 'minimum' ? `The ${label} must be at least ${limit}.` : `The ${label} may not be greater than ${limit}.`;
    case 'minItems':
      return `The ${label} field must have at least ${limit} ${limit === 1 ? 'item' : 'items'}.`;
    case 'uniqueItems': {
      // Ajv names the two equal items (`j` comes first in the list), counted from 0 like the field paths.
      const { i, j } = error.params as { i: number; j: number };
      return `The ${label} field has a duplicate value: items ${Math.min(i, j)} and ${Math.max(i, j)} are equal.`;
    }
    case 'maxItems':
    case 'maxProperties': // a list sent as an object keyed by position (upload.schemas.ts)
      return `The ${label} field may not have more than ${limit} items.`;
    default:
      return `The ${label} field is invalid.`;
  }
}
