/** NUL, or a UTF-16 surrogate without its other half. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text every column can hold, the same on both databases: PostgreSQL refuses NUL in text (a 500),
 * and an unpaired surrogate has no UTF-8 form (both drivers quietly write U+FFFD instead, so the
 * answer would not show what was stored). Both become U+FFFD here, before anything is stored.
 */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

/**
 * D12's trimming: white space, and characters that show nothing: format characters (zero-width
 * spaces and joiners, bidirectional controls such as U+202E, U+180E), other default-ignorable code
 * points (U+3164 HANGUL FILLER, variation selectors), control characters, and U+2800 BRAILLE PATTERN
 * BLANK. A name made only of these reads as empty, so it counts as absent.
 */
const INVISIBLE_RUN_AT_START = /^[\p{White_Space}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}\u2800]+/u;
const INVISIBLE_CHARACTER = /^[\p{White_Space}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}\u2800]$/u;

/**
 * The end is scanned backwards one character at a time: a regular expression anchored at the end
 * (`[...]+$`) would try every start position of a long inner run, quadratic on a hostile 1 MiB body.
 */
export function trimInvisible(text: string): string {
  const start = INVISIBLE_RUN_AT_START.exec(text)?.[0].length ?? 0;
  let end = text.length;
  while (end > start) {
    const pair = end - 2 >= start && /[\uDC00-\uDFFF]/.test(text[end - 1]!) && /[\uD800-\uDBFF]/.test(text[end - 2]!);
    const width = pair ? 2 : 1;
    if (!INVISIBLE_CHARACTER.test(text.slice(end - width, end))) break;
    end -= width;
  }
  return text.slice(start, end);
}
