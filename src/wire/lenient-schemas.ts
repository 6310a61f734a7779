import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';

/**
 * Schema builders for what a PHP sender encodes (CLIENT-WIRE.md "Quirks of a PHP sender"), for
 * Ajv, each typed for what it accepts so that `Static<>` gives a handler the body's real type. Each
 * "either" is a JSON Schema type list rather than an `anyOf`, so a wrong value gets one clear
 * message instead of one per alternative.
 */

/**
 * A PHP list whose filtered entries kept their keys arrives as an object `{"1": …, "2": …}`. A
 * `maxItems` bounds that object form too (as `maxProperties`), so the keyed form cannot bypass it.
 */
export const ListOrKeyedObject = <T extends TSchema>(item: T, options: { maxItems?: number } = {}) =>
  Type.Unsafe<Static<T>[] | Record<string, Static<T>>>({
    type: ['array', 'object'],
    items: item,
    additionalProperties: item,
    propertyNames: { pattern: '^(0|[1-9][0-9]{0,8})$' },
    ...(options.maxItems !== undefined && { maxItems: options.maxItems, maxProperties: options.maxItems }),
  });

/** An empty PHP associative array is encoded as `[]`: an object, or an empty array. */
export const ObjectOrEmptyArray = () => Type.Unsafe<Record<string, unknown> | []>({ type: ['object', 'array'], maxItems: 0 });

/** An object, or null (PHP writes an unset object as null). */
export const NullableObject = <T extends TSchema>(object: T): TUnsafe<Static<T> | null> =>
  Type.Unsafe<Static<T> | null>({ ...object, type: ['object', 'null'] });

/** Optional scalars: older clients leave fields out, and PHP writes unset ones as null. */
export const OptionalString = (options: Record<string, unknown> = {}) =>
  Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], ...options }));

/** PHP floats such as 2.0 arrive as the integer 2: any JSON number. */
export const OptionalNumber = (options: Record<string, unknown> = {}) =>
  Type.Optional(Type.Unsafe<number | null>({ type: ['number', 'null'], ...options }));

export const OptionalInteger = () => Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'] }));

/** One of `values`, or null. */
export const OptionalEnum = <T extends string>(values: readonly T[]) =>
  Type.Optional(Type.Unsafe<T | null>({ type: ['string', 'null'], enum: [...values, null] }));

/** ISO 8601 with an offset, as PHP's DATE_ATOM writes it. */
export const OptionalTimestamp = () => OptionalString({ format: 'date-time' });

/** What every upload of the client package says first (CLIENT-WIRE.md): its project and the versions it ran with. */
export const clientVersionFields = () => ({
  project_id: OptionalString({ maxLength: 255 }),
  laravel_version: OptionalString({ maxLength: 100 }),
  framework_version: OptionalString({ maxLength: 100 }),
  package_version: OptionalString({ maxLength: 100 }),
});
