/**
 * E2.3: what a badge says, whatever it is drawn as (SVG or shields.io's endpoint JSON): a label, a
 * message and one of shields.io's named colours.
 */

/** Shields.io's named colours and the hex it draws them with; score.json sends the names. */
export const BADGE_COLORS = {
  brightgreen: '#4c1',
  green: '#97ca00',
  yellow: '#dfb317',
  orange: '#fe7d37',
  red: '#e05d44',
  lightgrey: '#9f9f9f',
} as const;

export type BadgeColor = keyof typeof BADGE_COLORS;

export interface Badge {
  label: string;
  message: string;
  color: BadgeColor;
}

/** The message of a badge with nothing to show: no report yet, or (gate) a report stored before gates (E1.8). */
export const NONE = 'none';

/** E2.3: the lowest score of each colour, best first; below the last, red. */
const SCORE_COLORS: readonly (readonly [number, BadgeColor])[] = [
  [90, 'brightgreen'],
  [75, 'green'],
  [60, 'yellow'],
  [40, 'orange'],
];

export function scoreColor(score: number): BadgeColor {
  return SCORE_COLORS.find(([lowest]) => score >= lowest)?.[1] ?? 'red';
}

/** `score.svg` and `score.json`: the latest report's score as stored (an integer), or `none`. */
export function scoreBadge(score: number | null): Badge {
  return score === null
    ? { label: 'score', message: NONE, color: 'lightgrey' }
    : { label: 'score', message: String(score), color: scoreColor(score) };
}

/** `gate.svg`: the latest report's stored gate (E1.8); `none` without a report or a recorded gate. */
export function gateBadge(passed: boolean | null): Badge {
  if (passed === null) return { label: 'gate', message: NONE, color: 'lightgrey' };
  return passed ? { label: 'gate', message: 'passed', color: 'brightgreen' } : { label: 'gate', message: 'failed', color: 'red' };
}

/** shields.io's endpoint badge format (https://shields.io/badges/endpoint-badge), for `score.json`. */
export function toShieldsEndpoint(badge: Badge): { schemaVersion: 1; label: string; message: string; color: BadgeColor } {
  return { schemaVersion: 1, label: badge.label, message: badge.message, color: badge.color };
}
