import type uPlot from 'uplot';
import { type TrendAxis, trendRunGaps, trendRunLabels, trendRunSplits, trendXRange } from '../lib/trend-axis.js';

/** The room a label of the runs-axis needs, in CSS pixels. */
const RUN_LABEL_SPACE = 64;

export interface TrendPlot {
  width: number;
  height: number;
  axis: TrendAxis;
  /** Each point's time (ISO 8601), oldest first. */
  times: readonly string[];
  /** Each point's x (trendXValues). */
  xs: readonly number[];
  /** The gate's minimum score, drawn as a dashed line; null draws none. */
  threshold: number | null;
  /** The colours of the current scheme: text, grid lines, the line and the gate's line. */
  colors: { text: string; grid: string; line: string; gate: string };
  /** Called with the point under the pointer (uPlot snaps to the nearest one). */
  onPoint: (index: number) => void;
}

/**
 * uPlot's options for the trend: the x-axis is the reports' time or their place among the runs
 * (trend-axis.ts keeps either within the reports' range), the y-axis 0..100, and the gate's
 * threshold a dashed line across the plot; by run, a long pause between two runs is marked and named.
 */
export function trendPlotOptions(plot: TrendPlot): uPlot.Options {
  const { colors, times } = plot;
  const axis = { stroke: colors.text, grid: { stroke: colors.grid, width: 1 }, ticks: { stroke: colors.grid, width: 1 } };
  const byRun = plot.axis === 'run';
  const x: uPlot.Axis = byRun
    ? {
        ...axis,
        size: 52,
        splits: (u) => trendRunSplits(times.length, u.bbox.width / devicePixelRatio, RUN_LABEL_SPACE),
        values: (_u, splits) => trendRunLabels(times, splits),
      }
    : // Room between the time labels: reports can come seconds apart.
      { ...axis, space: 80 };
  return {
    width: plot.width,
    height: plot.height,
    scales: {
      x: { time: !byRun, range: () => trendXRange(plot.xs, plot.axis) },
      y: { range: [0, 100] },
    },
    axes: [x, { ...axis, size: 40 }],
    series: [{}, { label: 'Score', stroke: colors.line, width: 2, points: { show: true, size: 7, fill: colors.line } }],
    legend: { show: false },
    // No crosshair: it follows the pointer, not the point; the point itself and the tooltip say which run it is.
    cursor: { drag: { x: false, y: false }, x: false, y: false },
    hooks: {
      setCursor: [
        (u) => {
          // Leaving the plot (for the tooltip's link, say) keeps the tooltip: the chart's box decides when it goes.
          if (u.cursor.idx !== null && u.cursor.idx !== undefined) plot.onPoint(u.cursor.idx);
        },
      ],
      draw: [
        ...(byRun ? [(u: uPlot) => drawGaps(u, trendRunGaps(times), colors.text)] : []),
        ...(plot.threshold === null ? [] : [(u: uPlot) => drawThreshold(u, plot.threshold as number, colors.gate)]),
      ],
    },
  };
}

/** The gate's minimum score: a dashed line across the plot, named at its left end. */
function drawThreshold(u: uPlot, score: number, color: string): void {
  const ratio = devicePixelRatio;
  const y = Math.round(u.valToPos(score, 'y', true));
  const { left, width } = u.bbox;
  const context = u.ctx;
  context.save();
  context.strokeStyle = color;
  context.fillStyle = color;
  context.lineWidth = ratio;
  context.setLineDash([6 * ratio, 4 * ratio]);
  context.beginPath();
  context.moveTo(left, y);
  context.lineTo(left + width, y);
  context.stroke();
  context.font = `${12 * ratio}px system-ui, sans-serif`;
  // uPlot leaves the context as its last axis set it (right-aligned y labels).
  context.textAlign = 'left';
  // Above the line, unless the line is near the top of the plot.
  context.textBaseline = score > 90 ? 'top' : 'bottom';
  context.fillText(`Gate: ${score}`, left + 4 * ratio, score > 90 ? y + 4 * ratio : y - 4 * ratio);
  context.restore();
}

/** By run, the time a long pause took: a dotted line between its two runs, its length written at the top. */
function drawGaps(u: uPlot, gaps: readonly { after: number; label: string }[], color: string): void {
  const ratio = devicePixelRatio;
  const { top, height } = u.bbox;
  const context = u.ctx;
  context.save();
  context.strokeStyle = color;
  context.fillStyle = color;
  context.lineWidth = ratio;
  context.setLineDash([2 * ratio, 3 * ratio]);
  context.font = `${12 * ratio}px system-ui, sans-serif`;
  context.textAlign = 'center';
  context.textBaseline = 'top';
  for (const gap of gaps) {
    const x = Math.round(u.valToPos(gap.after + 0.5, 'x', true));
    context.beginPath();
    context.moveTo(x, top + 18 * ratio);
    context.lineTo(x, top + height);
    context.stroke();
    context.fillText(gap.label, x, top + 2 * ratio);
  }
  context.restore();
}
