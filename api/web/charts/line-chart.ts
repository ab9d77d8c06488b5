/**
 * A line chart of a few series over numbered points (a rollout's crash rates at each health
 * evaluation): a y axis from 0 to the largest value, one line with markers per series (a gap where
 * a value is unknown), a dashed series for a threshold drawn as level steps, and a legend row.
 * Pure: the summary states every value of every series in order.
 */
import { html, type Html } from '../html';
import { chartFigure, figureText, paletteColour } from './figure';

export interface LineSeries {
  readonly name: string;
  /** One value per point; null where it is unknown (not drawn). */
  readonly values: ReadonlyArray<number | null>;
  /** Drawn dashed (a threshold). */
  readonly dashed?: boolean;
  readonly colour?: string;
}

export interface LineChartInput {
  readonly kind: string;
  readonly title: string;
  /** What the values are: "Crashes per installation-hour". */
  readonly measure: string;
  /** What a point is: "evaluation" (an s is added for more than one). */
  readonly point: string;
  readonly series: readonly LineSeries[];
}

export const LINE = {
  width: 480,
  height: 218,
  left: 44,
  right: 8,
  top: 10,
  plotHeight: 160,
} as const;
const PLOT_W = LINE.width - LINE.left - LINE.right;

const valueText = (v: number | null) => (v === null ? '—' : figureText(v));

/** "Crashes per installation-hour at 2 evaluations: 1.2: 0.5, 36; halt threshold: 2.4, 12." */
export function lineSummary(input: LineChartInput): string {
  const n = Math.max(0, ...input.series.map((s) => s.values.length));
  if (n === 0) return `${input.measure}: no ${input.point}s yet.`;
  const each = input.series.map((s) => `${s.name}: ${s.values.map(valueText).join(', ')}`);
  return `${input.measure} at ${n} ${input.point}${n === 1 ? '' : 's'}: ${each.join('; ')}.`;
}

/** The largest value drawn (the top of the y axis); 1 when there is none above 0. */
export function lineMax(series: readonly LineSeries[]): number {
  const values = series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const max = Math.max(0, ...values);
  return max > 0 ? max : 1;
}

/** A point's x: centred when there is one, else spread from the left edge to the right. */
export function lineX(i: number, n: number): number {
  return n <= 1 ? LINE.left + PLOT_W / 2 : LINE.left + (i * PLOT_W) / (n - 1);
}

export function lineY(v: number, max: number): number {
  return LINE.top + LINE.plotHeight * (1 - v / max);
}

/**
 * A point's step of a dashed series (a threshold): a level line from half-way to the previous
 * point (or the plot's left edge) to half-way to the next (or its right edge), so a single
 * evaluation's threshold is still a line across the plot.
 */
export function stepSpan(i: number, n: number): [number, number] {
  const from = i === 0 ? LINE.left : (lineX(i - 1, n) + lineX(i, n)) / 2;
  const to = i === n - 1 ? LINE.width - LINE.right : (lineX(i, n) + lineX(i + 1, n)) / 2;
  return [from, to];
}

function thresholdMarks(s: LineSeries, colour: string, n: number, max: number): Html {
  const steps = s.values.flatMap((v, i) => {
    if (v === null) return [];
    const [from, to] = stepSpan(i, n);
    const y = lineY(v, max).toFixed(2);
    return [
      html`<line
        x1="${from.toFixed(2)}"
        y1="${y}"
        x2="${to.toFixed(2)}"
        y2="${y}"
        stroke="${colour}"
        stroke-width="2"
        stroke-dasharray="6 4"
      />`,
    ];
  });
  return html`<g class="series" data-series="${s.name}">${steps}</g>`;
}

function seriesMarks(s: LineSeries, colour: string, n: number, max: number): Html {
  if (s.dashed) return thresholdMarks(s, colour, n, max);
  const pts = s.values.flatMap((v, i) => (v === null ? [] : [[lineX(i, n), lineY(v, max)]]));
  const line = pts.map(([x, y]) => `${x!.toFixed(2)},${y!.toFixed(2)}`).join(' ');
  return html`<g class="series" data-series="${s.name}">
    <polyline points="${line}" fill="none" stroke="${colour}" stroke-width="2" />
    ${pts.map(([x, y]) => html`<circle cx="${x!.toFixed(2)}" cy="${y!.toFixed(2)}" r="3" fill="${colour}" />`)}
  </g>`;
}

function axes(n: number, max: number): Html {
  const bottom = LINE.top + LINE.plotHeight;
  const ticks = Array.from(
    { length: n },
    (_, i) =>
      html`<text
        x="${lineX(i, n).toFixed(2)}"
        y="${bottom + 14}"
        font-size="11"
        text-anchor="middle"
        >${i + 1}</text
      >`,
  );
  return html`<line
      x1="${LINE.left}"
      y1="${LINE.top}"
      x2="${LINE.left}"
      y2="${bottom}"
      stroke="#718096"
    />
    <line
      x1="${LINE.left}"
      y1="${bottom}"
      x2="${LINE.width - LINE.right}"
      y2="${bottom}"
      stroke="#718096"
    />
    <text x="${LINE.left - 4}" y="${LINE.top + 8}" font-size="11" text-anchor="end"
      >${figureText(max)}</text
    >
    <text x="${LINE.left - 4}" y="${bottom}" font-size="11" text-anchor="end">0</text>
    ${ticks}`;
}

function legend(series: readonly LineSeries[], colours: readonly string[]): Html {
  let x = LINE.left;
  return html`${series.map((s, i) => {
    const item = html`<rect
        x="${x}"
        y="${LINE.height - 12}"
        width="10"
        height="10"
        fill="${colours[i]}"
      />
      <text x="${x + 14}" y="${LINE.height - 3}" font-size="11">${s.name}</text>`;
    x += 24 + 7 * s.name.length;
    return item;
  })}`;
}

export function lineChart(input: LineChartInput): Html {
  const n = Math.max(0, ...input.series.map((s) => s.values.length));
  const max = lineMax(input.series);
  const colours = input.series.map((s, i) => s.colour ?? paletteColour(i));
  return chartFigure({
    kind: input.kind,
    title: input.title,
    summary: lineSummary(input),
    width: LINE.width,
    height: LINE.height,
    body: [
      axes(n, max),
      ...input.series.map((s, i) => seriesMarks(s, colours[i]!, n, max)),
      legend(input.series, colours),
    ],
  });
}
