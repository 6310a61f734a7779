import fastJsonStringify from 'fast-json-stringify';

/**
 * Serialiser compiler: Fastify's own (fast-json-stringify, no shared schemas), compiled once per
 * response schema per process instead of once per route per app.
 *
 * Compiling the ~60 response shapes costs about 0.1 s of CPU per app. A serve process builds one
 * app, but the test suite builds thousands, each on the same module-level TypeBox schemas; the
 * compiled function depends on the schema object alone (the app adds no shared schemas with
 * addSchema, and passes no serialiser options), so sharing it is exact.
 */
type Serializer = (data: unknown) => string;
const compiled = new WeakMap<object, Serializer>();

export const serializerCompiler = ({ schema }: { schema: unknown }): Serializer => {
  if (typeof schema !== 'object' || schema === null) return fastJsonStringify(schema as object) as Serializer;
  let serialize = compiled.get(schema);
  if (!serialize) {
    serialize = fastJsonStringify(forSerialization(schema) as object) as Serializer;
    compiled.set(schema, serialize);
  }
  return serialize;
};

type Schema = Record<string, unknown>;

/**
 * The response schema as fast-json-stringify is given it, writing the same bytes for every answer
 * that matches it. fast-json-stringify picks an `anyOf` branch by validating the value against each
 * branch with Ajv, formats included: every project of a list page had its latest report checked for
 * a uuid and two date-times before being written (a tenth of the list endpoint's time in the
 * benchmark's profile). Two shapes say the same without a validation:
 * - an object or null (`Type.Union([X, Type.Null()])`) is the object with `nullable: true`;
 * - a choice of string constants (`Type.Union([Type.Literal('a'), ...])`) is a string.
 * The OpenAPI document and request validation keep the schemas as written.
 */
export function forSerialization(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forSerialization);
  if (typeof schema !== 'object' || schema === null) return schema;
  const node = schema as Schema;
  const options = Array.isArray(node.anyOf) ? (node.anyOf as Schema[]) : null;
  if (options && options.length > 0) {
    const { anyOf: _anyOf, ...siblings } = node;
    const annotationsOnly = Object.keys(siblings).every((key) => ANNOTATIONS.has(key));
    const objects = options.filter((option) => option.type === 'object');
    const nulls = options.filter((option) => option.type === 'null' && Object.keys(option).length === 1);
    if (annotationsOnly && options.length === 2 && objects.length === 1 && nulls.length === 1) {
      const { $id: _id, ...object } = forSerialization(objects[0]) as Schema;
      return { ...siblings, ...object, nullable: true };
    }
    if (annotationsOnly && options.every((option) => option.type === 'string' && typeof option.const === 'string')) {
      return { ...siblings, type: 'string' };
    }
  }
  const copy: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    // A property may be named like a keyword (`properties.anyOf`): only schemas are rewritten, and
    // enum/const/examples/default hold values.
    copy[key] = VALUES.has(key) ? value : key === 'properties' ? mapValues(value as Schema) : forSerialization(value);
  }
  return copy;
}

const ANNOTATIONS = new Set(['description', 'title', 'examples', '$id']);
const VALUES = new Set(['enum', 'const', 'examples', 'default', 'required', 'type']);

function mapValues(properties: Schema): Schema {
  const mapped: Schema = {};
  for (const [name, value] of Object.entries(properties)) mapped[name] = forSerialization(value);
  return mapped;
}

const EMPTY_DATA = '{"data":[]';

/**
 * A list answer whose items the database wrote as JSON already (projects.repository.ts): the
 * envelope goes through the route's own compiled serialiser, with no items, and the items are
 * spliced in, so nothing is serialised twice. `schema` is the route's 2xx schema, `data` its first
 * property. Sent as is: Fastify does not serialise a string whose content type is JSON.
 */
export function listJson<Envelope extends object>(schema: object, body: Envelope & { data: string[] }): string {
  const serialize = serializerCompiler({ schema });
  const envelope = serialize({ ...body, data: [] });
  if (!envelope.startsWith(EMPTY_DATA)) throw new Error('listJson: the schema must start with `data`');
  return `{"data":[${body.data.join(',')}]${envelope.slice(EMPTY_DATA.length)}`;
}

/** What Fastify sets for an answer it serialises. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
