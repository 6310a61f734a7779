import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { pageUrl } from '../../../src/dashboard/dashboard-pages.js';
import type { TrendPoint } from '../api/types.js';
import { codeLinks } from '../lib/code-links.js';
import { formatDate } from '../lib/format.js';
import { trendSummary } from '../lib/project-page.js';
import { nextPoint, shortCommit, TREND_AXES, type TrendAxis, trendXValues } from '../lib/trend-axis.js';
import { ScrollRegion } from './scroll-region.js';
import { CommitLink, TrendTooltip } from './trend-tooltip.js';
import { trendPlotOptions } from './trend-uplot.js';

const HEIGHT = 240;
const DARK = '(prefers-color-scheme: dark)';

const AXIS_LABELS: Record<TrendAxis, string> = { time: 'By time', run: 'By run' };

export interface TrendChartProps {
  points: readonly TrendPoint[];
  caption: string;
  axis: TrendAxis;
  onAxis: (axis: TrendAxis) => void;
  /** The gate's minimum score (the project's `fail_threshold`), drawn as a line; null: none. */
  threshold: number | null;
  repositoryUrl: string | null;
}

/**
 * A branch's scores, drawn by uPlot on a canvas, by time or one step per run. A canvas says
 * nothing by itself: the drawing is named by a sentence summing it up, its points are told one by
 * one in a tooltip (pointer, or focus and the arrow keys) and are a table under it.
 */
export function TrendChart({ points, caption, axis, onAxis, threshold, repositoryUrl }: TrendChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const [active, setActive] = useState<number | null>(null);
  const dark = useMediaQuery(DARK);
  // The latest `route`, read by the chart's click handler without drawing the chart again.
  const { route: navigate } = useLocation();
  const route = useRef(navigate);
  route.current = navigate;
  const links = codeLinks(repositoryUrl);
  const summary = trendSummary(points) + (threshold === null ? '' : ` The dashed line is the gate’s minimum score, ${threshold}.`);

  useEffect(() => {
    const element = container.current;
    setActive(null);
    if (element === null || points.length === 0) return;
    // The colours of the current scheme (styles.css), read again when the scheme changes.
    const style = getComputedStyle(element);
    const color = (name: string) => style.getPropertyValue(name).trim();
    const times = points.map((point) => point.analyzed_at);
    const xs = trendXValues(times, axis);
    const options = trendPlotOptions({
      width: element.clientWidth,
      height: HEIGHT,
      axis,
      times,
      xs,
      threshold,
      colors: { text: color('--muted'), grid: color('--border'), line: color('--accent'), gate: color('--failed') },
      onPoint: setActive,
    });
    const data: uPlot.AlignedData = [xs, points.map((point) => point.score)];
    const plot = new uPlot(options, data, element);
    chart.current = plot;
    // A click on the plot opens the report of the point under the pointer.
    const open = () => {
      const index = plot.cursor.idx;
      const point = index === null || index === undefined ? undefined : points[index];
      if (point !== undefined) route.current(pageUrl('report', { report: point.uuid }));
    };
    plot.over.addEventListener('click', open);
    // The tooltip goes with the pointer as it leaves the plot and its tooltip, unless the keyboard is on the chart.
    const wrapper = box.current;
    const leave = () => {
      if (wrapper?.contains(document.activeElement)) return;
      plot.setCursor({ left: -10, top: -10 }, false);
      setActive(null);
    };
    wrapper?.addEventListener('mouseleave', leave);
    // The chart follows its column's width (a phone turned, a window resized); a tooltip would be left behind.
    const resize = new ResizeObserver(() => {
      if (plot.width === element.clientWidth) return;
      plot.setSize({ width: element.clientWidth, height: HEIGHT });
      plot.setCursor({ left: -10, top: -10 }, false);
      setActive(null);
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.over.removeEventListener('click', open);
      wrapper?.removeEventListener('mouseleave', leave);
      plot.destroy();
      chart.current = null;
    };
  }, [points, dark, axis, threshold]);

  if (points.length === 0) return <p class="empty">No reports on this branch yet: the trend starts with the first upload.</p>;

  /** Shows point `index` as the pointer would: uPlot's cursor on it, the tooltip beside it. */
  const show = (index: number | null) => {
    const plot = chart.current;
    if (plot !== null) {
      const point = index === null ? undefined : points[index];
      const [xs] = plot.data;
      plot.setCursor(
        point === undefined || index === null
          ? { left: -10, top: -10 }
          : { left: plot.valToPos(xs[index] as number, 'x'), top: plot.valToPos(point.score, 'y') },
        false,
      );
    }
    setActive(index);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') return show(null);
    if (event.key === 'Enter' && active !== null) {
      const point = points[active];
      if (point !== undefined) route.current(pageUrl('report', { report: point.uuid }));
      return;
    }
    const next = nextPoint(event.key, active, points.length);
    if (next === undefined) return;
    event.preventDefault();
    show(next);
  };

  const blur = (event: FocusEvent) => {
    if (!box.current?.contains(event.relatedTarget as Node | null)) show(null);
  };

  const activePoint = active === null ? undefined : points[active];
  return (
    <figure class="trend-chart">
      <div class="trend-head">
        <figcaption id="trend-caption">{caption}</figcaption>
        <fieldset class="trend-axis">
          <legend>Place the runs</legend>
          {TREND_AXES.map((value) => (
            <label key={value}>
              <input type="radio" name="trend-axis" value={value} checked={axis === value} onChange={() => onAxis(value)} />{' '}
              {AXIS_LABELS[value]}
            </label>
          ))}
        </fieldset>
      </div>
      <div ref={box} class="trend-plot">
        {/* A slider over the reports: the arrow keys, Home and End pick one, Enter opens it. */}
        <div
          ref={container}
          class="trend-canvas"
          role="slider"
          tabIndex={0}
          aria-labelledby="trend-caption"
          aria-describedby="trend-summary trend-keys"
          aria-valuemin={1}
          aria-valuemax={points.length}
          aria-valuenow={(active ?? points.length - 1) + 1}
          aria-valuetext={pointText(points[active ?? points.length - 1] as TrendPoint)}
          onKeyDown={onKeyDown}
          onFocus={() => active === null && show(points.length - 1)}
          onBlur={blur}
        />
        <TrendTooltip point={activePoint} chart={chart.current} index={active} links={links} />
      </div>
      <p id="trend-keys" class="muted trend-keys">
        On the chart, the left and right arrow keys go through the reports and Enter opens one; a click opens the report under the pointer.
      </p>
      <p id="trend-summary" class="muted">
        {summary}
      </p>
      <details>
        <summary>The scores as a table</summary>
        <ScrollRegion label="Scores of the trend">
          <table class="stacked-table">
            <thead>
              <tr>
                <th scope="col">Analyzed</th>
                <th scope="col">Score</th>
                <th scope="col">Commit</th>
                <th scope="col">New</th>
                <th scope="col">Fixed</th>
                <th scope="col">Gate</th>
              </tr>
            </thead>
            <tbody>
              {points.map((point) => (
                <tr key={point.uuid}>
                  <td data-label="Analyzed">
                    <a href={pageUrl('report', { report: point.uuid })}>{formatDate(point.analyzed_at)}</a>
                  </td>
                  <td class="short" data-label="Score">
                    {point.score}
                  </td>
                  <td data-label="Commit">{point.commit == null ? '—' : <CommitLink commit={point.commit} links={links} />}</td>
                  <td class="short" data-label="New">
                    {point.new ?? '—'}
                  </td>
                  <td class="short" data-label="Fixed">
                    {point.fixed ?? '—'}
                  </td>
                  <td class="short" data-label="Gate">
                    {point.gate_passed === null ? '—' : point.gate_passed ? 'Passed' : 'Failed'}
                  </td>
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

/** A point in words, as the slider says it. */
function pointText(point: TrendPoint): string {
  const commit = point.commit == null ? '' : `, commit ${shortCommit(point.commit)}`;
  return `Score ${point.score}, ${formatDate(point.analyzed_at)}${commit}`;
}
