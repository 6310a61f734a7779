import { toUtcTimestamp } from '../clock.js';

/**
 * D9: `expires_at` is an ISO 8601 date-time with an offset, or a date `YYYY-MM-DD` meaning 00:00:00
 * UTC of that day. Returns the instant, or null when the text is not such a date (including
 * impossible calendar dates such as 2026-02-30, which Date.parse would silently roll over).
 */
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;

export function parseExpiry(text: string): Date | null {
  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly) {
    const [, y, m, d] = dateOnly.map(Number) as [number, number, number, number];
    return isCalendarDate(y, m, d) ? new Date(Date.UTC(y, m - 1, d)) : null;
  }
  const dateTime = DATE_TIME.exec(text);
  if (!dateTime) return null;
  const [y, m, d, hh, mm, ss] = dateTime.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
  if (!isCalendarDate(y!, m!, d!) || hh! > 23 || mm! > 59 || ss! > 59) return null;
  const fraction = dateTime[7] ? `.${dateTime[7].slice(0, 3).padEnd(3, '0')}` : '';
  let offset = dateTime[8]!.toUpperCase();
  if (/^[+-]\d{2}$/.test(offset)) offset += ':00';
  if (/^[+-]\d{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  const iso = `${dateTime[1]}-${dateTime[2]}-${dateTime[3]}T${dateTime[4]}:${dateTime[5]}:${String(ss).padStart(2, '0')}${fraction}${offset}`;
  const instant = Date.parse(iso);
  // An offset may carry the instant past 9999-12-31 (or before year 0), which D2's format cannot write.
  return toUtcTimestamp(instant) === null ? null : new Date(instant);
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
