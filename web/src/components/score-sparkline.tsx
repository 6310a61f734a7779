import { sparkline } from '../lib/sparkline.js';

const WIDTH = 120;
const HEIGHT = 32;

/** Recent scores as a small inline SVG line, described in words for screen readers. */
export function ScoreSparkline({ scores }: { scores: readonly number[] }) {
  if (scores.length === 0) return <span class="muted">No trend yet</span>;
  const { path, last } = sparkline(scores, WIDTH, HEIGHT);
  const label = `Score trend of the last ${scores.length} ${scores.length === 1 ? 'report' : 'reports'}: ${scores.join(', ')}`;
  return (
    <svg class="sparkline" role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width={WIDTH} height={HEIGHT}>
      <path d={path} fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round" stroke-linecap="round" />
      {last && <circle cx={last.x} cy={last.y} r="2.5" fill="currentColor" />}
    </svg>
  );
}
