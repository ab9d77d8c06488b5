/**
 * How every chart of the web administration is framed: a server-drawn SVG that scales down with
 * its container, named for assistive technology, and followed by a sentence that says in text what
 * the picture shows (never only in tooltips). Each chart module draws the SVG's inside and writes
 * that sentence from the same numbers; browser tests compare it with the JSON API.
 */
import { html, type Html } from '../html';

export interface ChartFrame {
  /** A stable class and test hook, e.g. "fleet-versions". */
  readonly kind: string;
  /** The chart's name, read by screen readers (aria-label). */
  readonly title: string;
  /** What the chart shows, in one or two plain sentences. */
  readonly summary: string;
  readonly width: number;
  readonly height: number;
  /** The SVG's inner elements. */
  readonly body: Html | readonly Html[];
}

export function chartFigure(frame: ChartFrame): Html {
  return html`<figure class="chart chart-${frame.kind}" data-chart="${frame.kind}">
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox="0 0 ${frame.width} ${frame.height}"
      width="${frame.width}"
      height="${frame.height}"
      role="img"
      aria-label="${frame.title}"
      preserveAspectRatio="xMinYMin meet"
    >
      ${frame.body}
    </svg>
    <figcaption class="chart-summary">${frame.summary}</figcaption>
  </figure>`;
}

/** Colours by position, the same order on every chart (a version keeps its colour on a page). */
export const PALETTE = ['#2b6cb0', '#dd6b20', '#38a169', '#805ad5', '#d53f8c', '#718096'] as const;

export function paletteColour(index: number): string {
  return PALETTE[Math.min(Math.max(index, 0), PALETTE.length - 1)]!;
}

/** A number as text in a summary: whole numbers plain, others to `digits` significant places. */
export function figureText(n: number, digits = 3): string {
  return Number.isInteger(n) ? n.toLocaleString('en') : Number(n.toPrecision(digits)).toString();
}

/** A share as a percentage: "37 %", "0.4 %". */
export function percentText(part: number, whole: number): string {
  if (whole <= 0) return '0 %';
  return `${figureText((100 * part) / whole, 2)} %`;
}
