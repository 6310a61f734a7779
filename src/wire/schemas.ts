import { Type, type TUnsafe } from 'typebox';

/**
 * Wire shapes shared by every feature. Nullable values are written as JSON Schema type arrays
 * (`["string","null"]`), which both Ajv and OpenAPI 3.1 read natively, and which give one clear
 * validation error instead of the three an `anyOf` would.
 */
export function Nullable<T>(type: 'string' | 'integer' | 'number', options: Record<string, unknown> = {}): TUnsafe<T | null> {
  return Type.Unsafe<T | null>({ ...options, type: [type, 'null'] });
}

export const NullableString = (options: Record<string, unknown> = {}) => Nullable<string>('string', options);

/** D2: UTC ISO 8601 with milliseconds and `Z`. */
export const NullableTimestamp = (description?: string) =>
  NullableString({ format: 'date-time', ...(description ? { description } : {}), examples: ['2026-11-21T10:00:00.000Z'] });

/** D3: the envelope of every non-2xx answer. */
export const ErrorResponse = Type.Object(
  {
    error: Type.String({ examples: ['Not Found'] }),
    message: Type.String({ examples: ['The requested resource was not found.'] }),
  },
  { $id: 'ErrorResponse' },
);

export const MessageResponse = Type.Object({ message: Type.String() });
