import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';

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

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  if (typeof schema !== 'object' || schema === null) return fastJsonStringify(schema as object) as Serializer;
  let serialize = compiled.get(schema);
  if (!serialize) {
    serialize = fastJsonStringify(schema as object) as Serializer;
    compiled.set(schema, serialize);
  }
  return serialize;
};
