/**
 * A bar chart with axes: one bar per bucket (an hour, a day), the buckets' labels under the x axis
 * every few bars, the counts on the y axis with ticks at round numbers and light grid lines, and
 * both axes named. Pure: the same bars draw the same SVG. The caller writes the summary sentence
 * from the same numbers (api/exceptions/ charts), so the text says what the picture shows.
 */
import { html, type Html } from '../html';
import { chartFigure, paletteColour } from './figure';

export interface Bar {
  /** The bucket's name under the x axis ("13:00", "11-28"). */
  readonly label: string;
  readonly value: number;
}

export interface BarChart {
  readonly kind: string;
  readonly title: string;
  readonly summary: string;
  readonly bars: readonly Bar[];
  /** The x axis's name ("hour (UTC)"). */
  readonly xTitle: string;
  /** The y axis's name ("reports"). */
  readonly yTitle: string;
  /** Label every n-th bar (the first and then each n-th). Default 1. */
  readonly labelEvery?: number;
}

export const WIDTH = 480;
export const HEIGHT = 200;
/** The plot area inside the axes. */
export const PLOT = { left: 44, top: 10, right: 472, bottom: 164 } as const;

/**
 * Y-axis ticks from 0 to the first round value ≥ max: steps of 1, 2 or 5 × 10^k (never below 1,
 * the counts are whole), at most 5 intervals. max ≤ 0 gives [0, 1].
 */
export function niceTicks(max: number): number[] {
  if (max <= 0) return [0, 1];
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw);
  const top = Math.ceil(max / step) * step;
  return Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
}

/** The y coordinate of a value on an axis running from 0 to `top`. */
function yOf(value: number, top: number): number {
  const h = PLOT.bottom - PLOT.top;
  return Math.round((PLOT.bottom - (value / top) * h) * 10) / 10;
}

function yAxis(ticks: readonly number[], title: string): Html[] {
  const top = ticks[ticks.length - 1]!;
  const marks = ticks.map((t) => {
    const y = yOf(t, top);
    return html`<line class="grid" x1="${PLOT.left}" y1="${y}" x2="${PLOT.right}" y2="${y}" />
      <text class="tick" x="${PLOT.left - 4}" y="${y + 4}" text-anchor="end">${t}</text>`;
  });
  const mid = (PLOT.top + PLOT.bottom) / 2;
  return [
    ...marks,
    html`<line
      class="axis"
      x1="${PLOT.left}"
      y1="${PLOT.top}"
      x2="${PLOT.left}"
      y2="${PLOT.bottom}"
    />`,
    html`<text
      class="axis-title"
      x="10"
      y="${mid}"
      transform="rotate(-90 10 ${mid})"
      text-anchor="middle"
      >${title}</text
    >`,
  ];
}

export function barChart(chart: BarChart): Html {
  const ticks = niceTicks(Math.max(0, ...chart.bars.map((b) => b.value)));
  const top = ticks[ticks.length - 1]!;
  const slot = (PLOT.right - PLOT.left) / Math.max(1, chart.bars.length);
  const every = Math.max(1, chart.labelEvery ?? 1);
  const bars = chart.bars.map((b, i) => {
    const x = Math.round((PLOT.left + i * slot + 1) * 10) / 10;
    const y = yOf(b.value, top);
    const width = Math.max(1, Math.round((slot - 2) * 10) / 10);
    const label =
      i % every === 0
        ? html`<text
            class="tick"
            x="${Math.round((x + width / 2) * 10) / 10}"
            y="${PLOT.bottom + 14}"
            text-anchor="middle"
            >${b.label}</text
          >`
        : '';
    return html`<rect
        x="${x}"
        y="${y}"
        width="${width}"
        height="${Math.round((PLOT.bottom - y) * 10) / 10}"
        fill="${paletteColour(0)}"
        ><title>${b.label}: ${b.value}</title></rect
      >${label}`;
  });
  return chartFigure({
    kind: chart.kind,
    title: chart.title,
    summary: chart.summary,
    width: WIDTH,
    height: HEIGHT,
    body: [
      ...yAxis(ticks, chart.yTitle),
      ...bars,
      html`<line
        class="axis"
        x1="${PLOT.left}"
        y1="${PLOT.bottom}"
        x2="${PLOT.right}"
        y2="${PLOT.bottom}"
      />`,
      html`<text
        class="axis-title"
        x="${(PLOT.left + PLOT.right) / 2}"
        y="${HEIGHT - 4}"
        text-anchor="middle"
        >${chart.xTitle}</text
      >`,
    ],
  });
}
