import { BADGE_COLORS, type Badge } from './badge-content.js';

/**
 * E2.3: a badge drawn in shields.io's "flat" style, so it sits in a README beside other badges: a
 * grey label box and a coloured message box, 20 px high, rounded corners, a light gradient, white
 * Verdana 11 px text with a faint shadow. The SVG holds only shapes and text: no script, no style
 * element, no external reference, and every text is escaped, so nothing a label or message could
 * contain is ever markup.
 *
 * Box widths come from the width of their text. A browser is not there to measure it, so it is
 * summed from a table of Verdana 11 px advance widths (as shields' badge-maker does); `textLength`
 * then makes the renderer fit the text to exactly that width, whatever font it has.
 */

const HEIGHT = 20;
/** Space on each side of a text, in px. */
const PADDING = 5;
const LABEL_BACKGROUND = '#555';

/**
 * Advance widths of Verdana at 11 px (the font's units per em scaled to 11 px, rounded), for
 * printable ASCII. Approximate, and deterministic: the same text always gives the same badge.
 */
const VERDANA_11PX: ReadonlyMap<string, number> = new Map(
  (
    [
      [' ', 3.87],
      ['!', 4.33],
      ['"', 5.05],
      ['#', 9],
      ['$', 7],
      ['%', 11.84],
      ['&', 7.99],
      ["'", 2.95],
      ['()', 4.99],
      ['*', 7],
      ['+', 9],
      [',', 4],
      ['-', 4.99],
      ['.', 4],
      ['/', 4.99],
      ['0123456789', 7],
      [':;', 4.99],
      ['<=>', 9],
      ['?', 6],
      ['@', 11],
      ['A', 7.52],
      ['B', 7.54],
      ['C', 7.7],
      ['D', 8.52],
      ['E', 6.95],
      ['F', 6.33],
      ['G', 8.51],
      ['H', 8.27],
      ['IJ', 5.09],
      ['K', 7.54],
      ['L', 6.16],
      ['M', 9.27],
      ['N', 8.23],
      ['O', 8.66],
      ['P', 6.66],
      ['Q', 8.66],
      ['R', 7.64],
      ['S', 7.52],
      ['T', 6.69],
      ['U', 8.05],
      ['V', 7.52],
      ['W', 10.88],
      ['X', 7.54],
      ['Y', 6.69],
      ['Z', 7.54],
      ['[\\]', 4.99],
      ['^', 9],
      ['_', 7],
      ['`', 7],
      ['a', 6.74],
      ['b', 6.98],
      ['c', 5.98],
      ['d', 6.98],
      ['e', 6.57],
      ['f', 3.87],
      ['g', 6.98],
      ['h', 6.98],
      ['i', 3.02],
      ['j', 3.79],
      ['k', 6.51],
      ['l', 3.02],
      ['m', 10.71],
      ['n', 6.98],
      ['o', 6.69],
      ['p', 6.98],
      ['q', 6.98],
      ['r', 4.69],
      ['s', 5.72],
      ['t', 4.33],
      ['u', 6.98],
      ['v', 6.51],
      ['w', 9],
      ['x', 6.51],
      ['y', 6.51],
      ['z', 5.76],
      ['{', 6.98],
      ['|', 4.99],
      ['}', 6.98],
      ['~', 9],
    ] as const
  ).flatMap(([chars, width]) => [...chars].map((char) => [char, width] as const)),
);
/** Anything outside the table (accents, CJK, emoji) counts as wide as the widest letter, `m`. */
const FALLBACK_WIDTH = 10.71;

/** The width of `text` in Verdana 11 px, to a tenth of a pixel. */
export function textWidth(text: string): number {
  let width = 0;
  for (const char of text) width += VERDANA_11PX.get(char) ?? FALLBACK_WIDTH;
  return Math.round(width * 10) / 10;
}

/**
 * Text as XML character data or attribute value: the five characters with a meaning in XML become
 * references, and the control characters XML 1.0 does not allow (they would make the document
 * unreadable) become U+FFFD.
 */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']|[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, (char) => XML_ESCAPES[char] ?? '\ufffd');
}

const XML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The badge as a standalone SVG document. */
export function renderBadgeSvg(badge: Badge): string {
  const labelTextWidth = textWidth(badge.label);
  const messageTextWidth = textWidth(badge.message);
  const labelWidth = Math.round(labelTextWidth) + 2 * PADDING;
  const messageWidth = Math.round(messageTextWidth) + 2 * PADDING;
  const width = labelWidth + messageWidth;
  const title = escapeXml(`${badge.label}: ${badge.message}`);
  // Text is placed in tenths of a pixel (scale(.1)) for sub-pixel centring, as shields does.
  const text = (content: string, centre: number, length: number) => {
    const escaped = escapeXml(content);
    const x = Math.round(centre * 10);
    const textLength = Math.round(length * 10);
    return (
      `<text aria-hidden="true" x="${x}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="${textLength}">${escaped}</text>` +
      `<text x="${x}" y="140" transform="scale(.1)" fill="#fff" textLength="${textLength}">${escaped}</text>`
    );
  };
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${HEIGHT}" role="img" aria-label="${title}">` +
    `<title>${title}</title>` +
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` +
    `<clipPath id="r"><rect width="${width}" height="${HEIGHT}" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)">` +
    `<rect width="${labelWidth}" height="${HEIGHT}" fill="${LABEL_BACKGROUND}"/>` +
    `<rect x="${labelWidth}" width="${messageWidth}" height="${HEIGHT}" fill="${BADGE_COLORS[badge.color]}"/>` +
    `<rect width="${width}" height="${HEIGHT}" fill="url(#s)"/>` +
    `</g>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">` +
    text(badge.label, labelWidth / 2, labelTextWidth) +
    text(badge.message, labelWidth + messageWidth / 2, messageTextWidth) +
    `</g>` +
    `</svg>`
  );
}
