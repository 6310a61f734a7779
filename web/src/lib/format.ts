/** Dates as the person's browser writes them (their language and time zone), or `fallback` when there is none. */
export function formatDate(iso: string | null | undefined, fallback = '—'): string {
  if (iso === null || iso === undefined) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? fallback : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The field errors of an input that stands for a list (`abilities` and `abilities.1` both belong to `abilities`). */
export function errorsUnder(fieldErrors: Record<string, string[]>, field: string): string[] {
  return Object.entries(fieldErrors)
    .filter(([key]) => key === field || key.startsWith(`${field}.`))
    .flatMap(([, messages]) => messages);
}

const NUMBER = new Intl.NumberFormat(undefined);

/** A count as the person's language writes it, with its thousands separators: `3,972` (or `3.972`, `3 972`). */
export function formatNumber(value: number): string {
  return NUMBER.format(value);
}
