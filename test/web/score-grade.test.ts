import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BADGE_COLORS, scoreColor } from '../../src/badges/badge-content.js';
import { ROOT } from '../cli/cli-process.js';

/**
 * Issue 31 item 7: the dashboard draws a score as a grade in the colour of the project's score badge
 * (E2.3). The grade's class comes from the badge's own thresholds (ScoreGrade calls scoreColor);
 * here, that the stylesheet paints each class with that badge's colour, and that the grade's text
 * keeps WCAG AA contrast (4.5:1) on each, in light and dark mode alike (the grade has its own
 * background, so the page's scheme does not change it).
 */
const CSS = readFileSync(join(ROOT, 'web', 'src', 'styles.css'), 'utf8');

function rule(selector: string): string {
  const match = new RegExp(`(?:^|\\n)${selector.replace('.', '\\.')} \\{([^}]*)\\}`).exec(CSS);
  if (!match) throw new Error(`no rule ${selector} in styles.css`);
  return match[1]!;
}

function hex(declarations: string, property: string): string {
  const value = new RegExp(`(?:^|\\s)${property}: (#[0-9a-f]{3,6});`).exec(declarations)?.[1];
  if (value === undefined) throw new Error(`no ${property} colour in ${declarations}`);
  return value;
}

function luminance(color: string): number {
  const digits = color.length === 4 ? [...color.slice(1)].map((digit) => digit + digit) : [1, 3, 5].map((at) => color.slice(at, at + 2));
  const [r, g, b] = digits.map((pair) => {
    const channel = Number.parseInt(pair, 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

describe('the score as a grade', () => {
  it.each(Object.entries(BADGE_COLORS))('paints .grade-%s with the badge colour %s, its text at AA contrast', (name, color) => {
    expect(hex(rule(`.grade-${name}`), 'background')).toBe(color);
    expect(contrast(hex(rule('.grade'), 'color'), color)).toBeGreaterThanOrEqual(4.5);
  });

  it('takes its band from the badge thresholds: 90, 75, 60 and 40', () => {
    expect([100, 90, 89, 75, 74, 60, 59, 40, 39, 0].map(scoreColor)).toEqual([
      'brightgreen',
      'brightgreen',
      'green',
      'green',
      'yellow',
      'yellow',
      'orange',
      'orange',
      'red',
      'red',
    ]);
  });
});
