/**
 * E2.3, the pure parts: what a badge says (colour thresholds, gate, `none`), how it is drawn (shields'
 * flat style, widths from the text, escaped text, no script), the shields.io endpoint JSON, and
 * RFC 9110's If-None-Match comparison.
 */
import { describe, expect, it } from 'vitest';
import { gateBadge, scoreBadge, scoreColor, toShieldsEndpoint } from '../../src/badges/badge-content.js';
import { escapeXml, renderBadgeSvg, textWidth } from '../../src/badges/badge-svg.js';
import { ifNoneMatchMatches, strongEntityTag } from '../../src/http/entity-tag.js';

describe('score colours (E2.3)', () => {
  it.each([
    [100, 'brightgreen'],
    [90, 'brightgreen'],
    [89, 'green'],
    [75, 'green'],
    [74, 'yellow'],
    [60, 'yellow'],
    [59, 'orange'],
    [40, 'orange'],
    [39, 'red'],
    [0, 'red'],
  ] as const)('score %i is %s', (score, color) => {
    expect(scoreColor(score)).toBe(color);
    expect(scoreBadge(score)).toEqual({ label: 'score', message: String(score), color });
  });

  it('says none in lightgrey without a score', () => {
    expect(scoreBadge(null)).toEqual({ label: 'score', message: 'none', color: 'lightgrey' });
  });
});

describe('gate badge (E2.3, E1.8)', () => {
  it('says passed in brightgreen, failed in red, none in lightgrey', () => {
    expect(gateBadge(true)).toEqual({ label: 'gate', message: 'passed', color: 'brightgreen' });
    expect(gateBadge(false)).toEqual({ label: 'gate', message: 'failed', color: 'red' });
    expect(gateBadge(null)).toEqual({ label: 'gate', message: 'none', color: 'lightgrey' });
  });
});

describe("shields.io's endpoint format", () => {
  it('has schemaVersion 1, the label, the message and the colour name', () => {
    expect(toShieldsEndpoint(scoreBadge(87))).toEqual({ schemaVersion: 1, label: 'score', message: '87', color: 'green' });
    expect(toShieldsEndpoint(scoreBadge(null))).toEqual({ schemaVersion: 1, label: 'score', message: 'none', color: 'lightgrey' });
  });
});

describe('the SVG (flat style)', () => {
  /** The boxes of a rendered badge: the label's and the message's width and fill. */
  const boxes = (svg: string) => {
    const [, labelWidth, labelFill] = /<rect width="(\d+)" height="20" fill="(#[0-9a-f]+)"\/>/.exec(svg)!;
    const [, x, messageWidth, messageFill] = /<rect x="(\d+)" width="(\d+)" height="20" fill="(#[0-9a-f]+)"\/>/.exec(svg)!;
    return { labelWidth: Number(labelWidth), labelFill, x: Number(x), messageWidth: Number(messageWidth), messageFill };
  };

  it('is an accessible image: role, aria-label and title say what it shows', () => {
    const svg = renderBadgeSvg(scoreBadge(87));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="20" role="img" aria-label="score: 87">/);
    expect(svg).toContain('<title>score: 87</title>');
    expect(svg.endsWith('</svg>')).toBe(true);
  });

  it('draws a #555 label box and a message box in the colour, side by side, as wide as the whole', () => {
    const svg = renderBadgeSvg(scoreBadge(95));
    const { labelWidth, labelFill, x, messageWidth, messageFill } = boxes(svg);
    expect(labelFill).toBe('#555');
    expect(messageFill).toBe('#4c1');
    expect(x).toBe(labelWidth);
    expect(svg).toContain(`width="${labelWidth + messageWidth}" height="20" role="img"`);
  });

  it.each([
    [scoreBadge(95), '#4c1'],
    [scoreBadge(80), '#97ca00'],
    [scoreBadge(65), '#dfb317'],
    [scoreBadge(45), '#fe7d37'],
    [scoreBadge(10), '#e05d44'],
    [scoreBadge(null), '#9f9f9f'],
    [gateBadge(true), '#4c1'],
    [gateBadge(false), '#e05d44'],
    [gateBadge(null), '#9f9f9f'],
  ])('fills %o with %s', (badge, hex) => {
    expect(boxes(renderBadgeSvg(badge)).messageFill).toBe(hex);
  });

  it('sizes each box from its text: wider text, wider box; the same text, the same badge', () => {
    expect(textWidth('score')).toBeGreaterThan(20);
    expect(textWidth('iiii')).toBeLessThan(textWidth('mmmm'));
    expect(boxes(renderBadgeSvg(gateBadge(false))).messageWidth).toBeGreaterThan(boxes(renderBadgeSvg(scoreBadge(7))).messageWidth);
    expect(renderBadgeSvg(scoreBadge(42))).toBe(renderBadgeSvg(scoreBadge(42)));
    // Text outside the table still has a width (as wide as `m`), so a box never collapses.
    expect(textWidth('é')).toBe(textWidth('m'));
  });

  it('fits the text to the measured width (textLength), centred in its box', () => {
    const svg = renderBadgeSvg(scoreBadge(87));
    const { labelWidth, messageWidth } = boxes(svg);
    const texts = [...svg.matchAll(/<text[^>]* x="(\d+)"[^>]*textLength="(\d+)">([^<]*)<\/text>/g)].map(([, x, length, content]) => ({
      x: Number(x),
      length: Number(length),
      content,
    }));
    // A shadow and a text for each: label then message.
    expect(texts.map((t) => t.content)).toEqual(['score', 'score', '87', '87']);
    expect(texts[0]!.x).toBe(labelWidth * 5);
    expect(texts[2]!.x).toBe(Math.round((labelWidth + messageWidth / 2) * 10));
    expect(texts[0]!.length).toBe(Math.round(textWidth('score') * 10));
  });

  it('escapes the five XML characters and replaces control characters XML forbids', () => {
    expect(escapeXml(`<a href="x">&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;');
    expect(escapeXml('a\u0000b\u001bc\td')).toBe('a\ufffdb\ufffdc\td');
  });

  it('keeps `<script>` in a label or message inert: escaped text, never an element', () => {
    const svg = renderBadgeSvg({ label: '<script>alert(1)</script>', message: '"><script>alert(2)</script>', color: 'red' });
    expect(svg).not.toMatch(/<script/i);
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(svg).toContain('aria-label="&lt;script&gt;alert(1)&lt;/script&gt;: &quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"');
    // Only the elements of the template, whatever the text.
    const elements = new Set([...svg.matchAll(/<([a-zA-Z]+)/g)].map(([, name]) => name));
    expect([...elements].sort()).toEqual(['clipPath', 'g', 'linearGradient', 'rect', 'stop', 'svg', 'text', 'title']);
  });

  it('holds no script, no event handler, no style and no external reference', () => {
    for (const svg of [renderBadgeSvg(scoreBadge(50)), renderBadgeSvg(gateBadge(true))]) {
      expect(svg).not.toMatch(/<script|\son[a-z]+=|<style|<foreignObject|href=|javascript:/i);
    }
  });
});

describe('If-None-Match (RFC 9110 13.1.2)', () => {
  const tag = strongEntityTag('<svg/>');

  it('is a strong tag: quoted, no W/, the same for the same body', () => {
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(strongEntityTag('<svg/>')).toBe(tag);
    expect(strongEntityTag('<svg />')).not.toBe(tag);
  });

  it.each([
    ['the tag itself', tag, true],
    ['the weak form of the tag (weak comparison)', `W/${tag}`, true],
    ['a list holding it', `"abc", ${tag}`, true],
    ['a list without spaces', `"abc",${tag},"def"`, true],
    ['*', '*', true],
    ['* with spaces', '  * ', true],
    ['another tag', '"abc"', false],
    ['the tag unquoted', tag.slice(1, -1), false],
    ['an empty field', '', false],
    ['a tag that only contains it', `"x${tag.slice(1, -1)}"`, false],
  ])('%s: %s', (_name, field, matches) => {
    expect(ifNoneMatchMatches(field, tag)).toBe(matches);
  });

  it('reads repeated fields as one list, and no field as no match', () => {
    expect(ifNoneMatchMatches(['"abc"', tag], tag)).toBe(true);
    expect(ifNoneMatchMatches(undefined, tag)).toBe(false);
  });

  it('reads a tag holding a comma as one tag', () => {
    expect(ifNoneMatchMatches('"a,b"', '"a,b"')).toBe(true);
    expect(ifNoneMatchMatches('"a,b"', '"a"')).toBe(false);
  });
});
