/**
 * A stacked bar: one whole (an app's installations) split into labelled parts (the versions they
 * run), each part as wide as its share, with a legend row per part under the bar. Pure: the
 * summary states every part's count and share, so the text says what the picture shows.
 */
import { html } from '../html';
import { chartFigure, paletteColour, percentText, type ChartFrame } from './figure';

export interface BarPart {
  /** What the part is, e.g. "1.2 (12)" or "1.2 (12), ahead". */
  readonly label: string;
  readonly count: number;
}

export interface StackedBarInput {
  readonly kind: string;
  readonly title: string;
  /** What is counted, plural: "installations". */
  readonly unit: string;
  readonly parts: readonly BarPart[];
  /** A sentence appended to the summary ("38 online, 3 offline."). */
  readonly tail?: string;
}

export const BAR = { width: 320, barHeight: 18, rowHeight: 16, gap: 6 } as const;

/** "41 installations: 1.1 (11) on 30 (73 %), 1.2 (12) on 11 (27 %)." */
export function stackedBarSummary(input: StackedBarInput): string {
  const parts = input.parts.filter((p) => p.count > 0);
  const total = parts.reduce((n, p) => n + p.count, 0);
  const head =
    total === 0
      ? `No ${input.unit}.`
      : `${total} ${input.unit}: ${parts
          .map((p) => `${p.label} on ${p.count} (${percentText(p.count, total)})`)
          .join(', ')}.`;
  return input.tail ? `${head} ${input.tail}` : head;
}

function frame(input: StackedBarInput): Omit<ChartFrame, 'body'> {
  return {
    kind: input.kind,
    title: input.title,
    summary: stackedBarSummary(input),
    width: BAR.width,
    height: BAR.barHeight + BAR.gap + Math.max(1, input.parts.length) * BAR.rowHeight,
  };
}

export function stackedBar(input: StackedBarInput) {
  const parts = input.parts.filter((p) => p.count > 0);
  const total = parts.reduce((n, p) => n + p.count, 0);
  let x = 0;
  const rects = parts.map((p, i) => {
    const w = (p.count / total) * BAR.width;
    const rect = html`<rect
      x="${x.toFixed(2)}"
      y="0"
      width="${w.toFixed(2)}"
      height="${BAR.barHeight}"
      fill="${paletteColour(i)}"
      data-count="${p.count}"
      ><title>${p.label}: ${p.count}</title></rect
    >`;
    x += w;
    return rect;
  });
  const legend = parts.map((p, i) => {
    const y = BAR.barHeight + BAR.gap + i * BAR.rowHeight;
    return html`<rect x="0" y="${y + 2}" width="10" height="10" fill="${paletteColour(i)}" />
      <text x="14" y="${y + 11}" font-size="11"
        >${p.label}: ${p.count} (${percentText(p.count, total)})</text
      >`;
  });
  const empty = html`<rect
    x="0"
    y="0"
    width="${BAR.width}"
    height="${BAR.barHeight}"
    fill="#e2e8f0"
  />`;
  return chartFigure({
    ...frame({ ...input, parts }),
    body: total === 0 ? empty : [...rects, ...legend],
  });
}
