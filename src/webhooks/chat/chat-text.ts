/**
 * E11.5: cutting text to a platform's limit after escaping it, so that an escape is never cut in
 * half and the result, escapes included, fits. Lengths are counted in UTF-16 units (what
 * JavaScript's `length` and the platforms' JSON parsers count), and a character is never split.
 */
export const ELLIPSIS = '…';

/** `escape(raw)` when it fits in `max`, else the longest escaped prefix that fits with `…` after it. */
export function clip(raw: string, max: number, escapeText: (text: string) => string = (text) => text): string {
  const whole = escapeText(raw);
  if (whole.length <= max) return whole;
  let out = '';
  for (const character of raw) {
    const next = out + escapeText(character);
    if (next.length + ELLIPSIS.length > max) break;
    out = next;
  }
  return out + ELLIPSIS;
}

/** One line: line breaks and runs of blanks become one space (a fact's value, a title). */
export function oneLine(raw: string): string {
  return raw.replace(/\s+/g, ' ').trim();
}
