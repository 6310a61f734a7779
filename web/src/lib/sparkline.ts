/**
 * A sparkline of recent scores (0-100, oldest first) as an SVG path in a `width` x `height` box:
 * 0 at the bottom, 100 at the top, points evenly spaced. Drawn as inline SVG (no chart library for
 * a few pixels), so the projects page stays cheap with many projects.
 */
export interface Sparkline {
  /** The `d` of the line; empty when there is nothing to draw. */
  path: string;
  /** The newest point, to mark it. */
  last: { x: number; y: number } | null;
}

export function sparkline(scores: readonly number[], width: number, height: number, inset = 2): Sparkline {
  if (scores.length === 0) return { path: '', last: null };
  const span = { x: width - 2 * inset, y: height - 2 * inset };
  const point = (score: number, index: number) => {
    // One point is drawn as a flat line across the box, so that it shows.
    const x = scores.length === 1 ? inset + span.x * index : inset + (span.x * index) / (scores.length - 1);
    const y = inset + span.y * (1 - Math.min(100, Math.max(0, score)) / 100);
    return { x: round(x), y: round(y) };
  };
  const points = scores.length === 1 ? [point(scores[0]!, 0), point(scores[0]!, 1)] : scores.map(point);
  const path = points.map(({ x, y }, index) => `${index === 0 ? 'M' : 'L'}${x} ${y}`).join(' ');
  return { path, last: points[points.length - 1]! };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
