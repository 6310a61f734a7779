/** Every "now" in the service comes from here, so tests can move time instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** D2: timestamps leave the service as UTC ISO 8601 with milliseconds and a `Z`. */
export function toTimestamp(date: Date): string {
  return date.toISOString();
}
