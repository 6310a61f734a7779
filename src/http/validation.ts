import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
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
  return ajv;
}

const bodyAjv = newAjv(false);
const queryAjv = newAjv(true);
const acceptAll = () => true;

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'params') return acceptAll;
  if (httpPart === 'body') return bodyAjv.compile(schema as object) as ValidateFunction;
  return refuseNonFiniteNumbers(queryAjv.compile(schema as object) as ValidateFunction, schema as QuerySchema);
};

type QuerySchema = { properties?: Record<string, { type?: unknown }> };

/**
 * Ajv coerces `?page=1e309` (or `Infinity`, or 400 nines) to Infinity and then accepts it as an
 * integer: the handler would get a page it cannot serialise (a 500). A query value that coerced to a
 * number that is not finite fails as a value of the wrong type instead (422).
 */
function refuseNonFiniteNumbers(validate: ValidateFunction, schema: QuerySchema): ValidateFunction {
  const checked = ((data: unknown) => {
    if (!validate(data)) {
      checked.errors = validate.errors;
      return false;
    }
    const key = Object.entries((data ?? {}) as Record<string, unknown>).find(
      ([, value]) => typeof value === 'number' && !Number.isFinite(value),
    )?.[0];
    if (key === undefined) {
      checked.errors = null;
      return true;
    }
    const type = schema.properties?.[key]?.type ?? 'number';
    checked.errors = [
      {
        instancePath: `/${key}`,
        schemaPath: `#/properties/${key}/type`,
        keyword: 'type',
        params: { type },
        message: 'must be finite',
        parentSchema: schema.properties?.[key] ?? {},
      },
    ];
    return false;
  }) as ValidateFunction;
  return checked;
}

/** Turns Ajv errors into D3's `errors` map: dotted field path -> Laravel-style messages. */
export function toFieldErrors(errors: readonly (ErrorObject | FastifySchemaValidationError)[]): FieldErrors {
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
      const expected = String(error.params.type).split(',').find((t) => t !== 'null') ?? 'string';
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
      return schema.format === 'uri' ? `The ${label} must be a valid URL.` : `The ${label} format is invalid.`;
    case 'minimum':
    case 'maximum':
      if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number') {
        return `The ${label} must be between ${schema.minimum} and ${schema.maximum}.`;
      }
      return error.keyword === 'minimum'
        ? `The ${label} must be at least ${limit}.`
        : `The ${label} may not be greater than ${limit}.`;
    case 'minItems':
      return `The ${label} field must have at least ${limit} ${limit === 1 ? 'item' : 'items'}.`;
    case 'maxItems':
    case 'maxProperties': // a list sent as an object keyed by position (upload.schemas.ts)
      return `The ${label} field may not have more than ${limit} items.`;
    default:
      return `The ${label} field is invalid.`;
  }
}
