import type uPlot from 'uplot';
import { pageUrl } from '../../../src/dashboard/dashboard-pages.js';
import type { TrendPoint } from '../api/types.js';
import type { CodeLinks } from '../lib/code-links.js';
import { formatDate } from '../lib/format.js';
import { shortCommit, tooltipPlacement } from '../lib/trend-axis.js';

/**
 * The point under the pointer (or chosen with the arrow keys): its score, date, commit and a link
 * to its report, beside the point (the chart's slider says the same in words).
 */
export function TrendTooltip(props: { point: TrendPoint | undefined; index: number | null; chart: uPlot | null; links: CodeLinks | null }) {
  const { point, index, chart } = props;
  if (point === undefined || index === null || chart === null) return <div class="trend-tooltip" hidden />;
  // The point's place in the plot's box (CSS pixels): the plot area's offset in the chart's box
  // (which starts where the tooltip's does) plus the point's place in the plot area, from uPlot's scales.
  const area = chart.over.getBoundingClientRect();
  const origin = (chart.root.parentElement ?? chart.root).getBoundingClientRect();
  const x = area.left - origin.left + chart.valToPos(chart.data[0][index] as number, 'x');
  const y = area.top - origin.top + chart.valToPos(point.score, 'y');
  const placement = tooltipPlacement(x, y, chart.width);
  return (
    <div
      class={`trend-tooltip trend-tooltip-${placement.align}${placement.below ? ' trend-tooltip-below' : ''}`}
      style={{ left: `${x}px`, top: `${y}px` }}
      aria-live="polite"
    >
      <strong>Score {point.score}</strong>
      <span>{formatDate(point.analyzed_at)}</span>
      {point.commit != null && (
        <span>
          Commit <CommitLink commit={point.commit} links={props.links} />
        </span>
      )}
      <a href={pageUrl('report', { report: point.uuid })}>Open the report</a>
    </div>
  );
}

/** A commit, short, linked into the repository when its host is known. */
export function CommitLink({ commit, links }: { commit: string; links: CodeLinks | null }) {
  const text = <code>{shortCommit(commit)}</code>;
  return links === null ? (
    text
  ) : (
    <a href={links.commit(commit)} rel="noreferrer">
      {text}
    </a>
  );
}
