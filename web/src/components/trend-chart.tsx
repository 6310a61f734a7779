import { useEffect, useRef, useState } from 'preact/hooks';
import { ScrollRegion } from './scroll-region.js';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { TrendPoint } from '../api/types.js';
import { formatDate } from '../lib/format.js';
import { trendSummary, trendTimeRange } from '../lib/project-page.js';

const HEIGHT = 240;
const DARK = '(prefers-color-scheme: dark)';

/**
 * A branch's scores over time, drawn by uPlot on a canvas. A canvas says nothing by itself: the
 * drawing is named by a sentence summing it up, and the same points are a table under it.
 */
export function TrendChart({ points, caption }: { points: readonly TrendPoint[]; caption: string }) {
  const container = useRef<HTMLDivElement>(null);
  const dark = useMediaQuery(DARK);
  const summary = trendSummary(points);

  useEffect(() => {
    const element = container.current;
    if (element === null || points.length === 0) return;
    // The colours of the current scheme (styles.css), read again when the scheme changes.
    const colors = getComputedStyle(element);
    const text = colors.getPropertyValue('--muted').trim();
    const grid = colors.getPropertyValue('--border').trim();
    const line = colors.getPropertyValue('--accent').trim();
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const data: uPlot.AlignedData = [points.map((point) => Date.parse(point.analyzed_at) / 1000), points.map((point) => point.score)];
    const chart = new uPlot(
      {
        width: element.clientWidth,
        height: HEIGHT,
        scales: {
          x: { time: true, range: (_, min, max) => trendTimeRange(min, max) },
          y: { range: [0, 100] },
        },
        // Room between the time labels: reports can come seconds apart.
        axes: [
          { ...axis, space: 80 },
          { ...axis, size: 40 },
        ],
        series: [{}, { label: 'Score', stroke: line, width: 2, points: { show: true, size: 7, fill: line } }],
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
      },
      data,
      element,
    );
    // The chart follows its column's width (a phone turned, a window resized).
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [points, dark]);

  if (points.length === 0) return <p class="empty">No reports on this branch yet: the trend starts with the first upload.</p>;
  return (
    <figure class="trend-chart">
      <figcaption id="trend-caption">{caption}</figcaption>
      <div ref={container} class="trend-canvas" role="img" aria-labelledby="trend-caption" aria-describedby="trend-summary" />
      <p id="trend-summary" class="muted">
        {summary}
      </p>
      <details>
        <summary>The scores as a table</summary>
        <ScrollRegion label="Scores of the trend">
          <table>
            <thead>
              <tr>
                <th scope="col">Analyzed</th>
                <th scope="col">Score</th>
                <th scope="col">New</th>
                <th scope="col">Fixed</th>
                <th scope="col">Gate</th>
              </tr>
            </thead>
            <tbody>
              {points.map((point) => (
                <tr key={point.uuid}>
                  <td>{formatDate(point.analyzed_at)}</td>
                  <td>{point.score}</td>
                  <td>{point.new ?? '—'}</td>
                  <td>{point.fixed ?? '—'}</td>
                  <td>{point.gate_passed === null ? '—' : point.gate_passed ? 'Passed' : 'Failed'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </details>
    </figure>
  );
}

/** Whether a media query matches now, followed as it changes (the system's dark mode switched on or off). */
function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const changed = () => setMatches(list.matches);
    list.addEventListener('change', changed);
    return () => list.removeEventListener('change', changed);
  }, [query]);
  return matches;
}
