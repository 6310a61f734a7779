/** Every "now" in the service comes from here, so tests can move time instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * D2's form of an instant (`2026-11-21T12:00:00.000Z`), or null when it has none: not a time at all
 * (NaN), or outside the years 0000-9999, which `toISOString` would write as `+010000-...`.
 */
export function toUtcTimestamp(instant: number): string | null {
  if (Number.isNaN(instant)) return null;
  const iso = new Date(instant).toISOString();
  return /^\d{4}-/.test(iso) ? iso : null;
}
