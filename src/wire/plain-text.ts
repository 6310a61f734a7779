import { storableText } from './storable-text.js';

/**
 * Plain words made from what people typed (a project's name, an issue's message, a branch), for the
 * texts the service writes to other places: pull-request comments, tickets, chat messages, emails.
 * Each place escapes for its own markup; these only make the words fit a line and a limit.
 */

/** What a cut text ends with. */
export const ELLIPSIS = '…';

/** One line: no control or bidirectional control characters, runs of white space as one space, no unpaired surrogate. */
export function oneLine(text: string): string {
  return storableText(text)
    .replace(/[\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/[\s\p{Cc}]+/gu, ' ')
    .trim();
}

/**
 * `escape(raw)` when it fits in `max`, else the longest escaped prefix that fits with `…` after it:
 * an escape is never cut in half and the result, escapes included, fits. Lengths are UTF-16 units
 * (what JavaScript's `length` and JSON parsers count), and a character is never split.
 */
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

/** `1 issue`, `3 issues`. */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A commit as people read it: the first 12 characters of a full hash, anything else as given. */
export const shortCommit = (commit: string) => (/^[0-9a-f]{13,}$/i.test(commit) ? commit.slice(0, 12) : commit);

/** Text as HTML text or a quoted attribute's value. */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
