import { toUtcTimestamp } from '../clock.js';
import { invalidField } from './api-error.js';
import { storableText } from './storable-text.js';

/** `[]` (PHP's empty array), null or absent: an empty object. */
export function asObject(value: Record<string, unknown> | [] | null | undefined): Record<string, unknown> {
  if (value === null || value === undefined || Array.isArray(value)) return {};
  return value;
}

/**
 * The top-level text fields of a body are stored in text columns: made storable (NUL and unpaired
 * surrogates become U+FFFD, json-body.ts) so that PostgreSQL accepts what SQLite does. Nested text is
 * stored inside JSON, escaped, exactly as sent.
 */
export function withStorableText<T extends object>(input: T): T {
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => [key, typeof value === 'string' ? storableText(value) : value]),
  ) as T;
}

/**
 * D2: an ISO 8601 time (with an offset) in UTC. JSON Schema's `date-time` admits times Date cannot
 * hold or D2 cannot write: a leap second (`2026-12-31T23:59:60Z`), or an offset that moves the
 * instant out of the years 0000-9999. Those are refused like any other malformed time (422).
 */
export function utcTimestamp(text: string, field: string): string {
  const iso = toUtcTimestamp(Date.parse(text));
  if (iso === null) throw invalidField(field, `The ${label(field)} format is invalid.`);
  return iso;
}

/** D25: how far after the server's clock a client's own time may lie (clocks drift a little). */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;

/**
 * A time the client says something happened (`analyzed_at`, `occurred_at`), in UTC (D2). One more
 * than five minutes after `now` is refused (D25): a bogus date far ahead would otherwise pin
 * `latest_report` (D19) forever.
 */
export function pastTimestamp(text: string, field: string, now: Date): string {
  const iso = utcTimestamp(text, field);
  if (Date.parse(iso) > now.getTime() + MAX_FUTURE_SKEW_MS) throw invalidField(field, `The ${label(field)} must not be in the future.`);
  return iso;
}

const label = (field: string) => field.replace(/_/g, ' ');
