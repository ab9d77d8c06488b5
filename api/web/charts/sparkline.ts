/**
 * A sparkline: a small line of counts over equal periods (an app's unhandled crash reports per
 * hour over the last 24 hours), oldest at the left, scaled to its own maximum, the last value
 * marked. Pure: the summary states the total, the maximum and every value in order.
 */
import { html } from '../html';
import { chartFigure, figureText } from './figure';

export interface SparklineInput {
  readonly kind: string;
  readonly title: string;
  /** One count per period, oldest first. */
  readonly values: readonly number[];
  /** What is counted, plural: "unhandled crash reports". */
  readonly unit: string;
  /** The periods, for the summary: "hour". */
  readonly period: string;
  /** The whole span, for the summary: "in the last 24 h". */
  readonly span: string;
}

export const SPARK = { width: 120, height: 28, pad: 3 } as const;

/** "5 unhandled crash reports in the last 24 h, at most 3 in one hour; by hour, oldest first: 0, 2, 3." */
export function sparklineSummary(input: SparklineInput): string {
  const total = input.values.reduce((n, v) => n + v, 0);
  const max = Math.max(0, ...input.values);
  const each = input.values.map((v) => figureText(v)).join(', ');
  return `${figureText(total)} ${input.unit} ${input.span}, at most ${figureText(max)} in one ${input.period}; by ${input.period}, oldest first: ${each}.`;
}

/** The polyline's points: x spread over the width, y from the bottom (0) to the top (the max). */
export function sparklinePoints(values: readonly number[]): Array<[number, number]> {
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? (SPARK.width - 2 * SPARK.pad) / (values.length - 1) : 0;
  const span = SPARK.height - 2 * SPARK.pad;
  return values.map((v, i) => [SPARK.pad + i * step, SPARK.height - SPARK.pad - (v / max) * span]);
}

export function sparkline(input: SparklineInput) {
  const points = sparklinePoints(input.values);
  const text = points.map(([x, y]) => `${x.toFixed(2)},${y.toFixed(2)}`).join(' ');
  const last = points[points.length - 1];
  return chartFigure({
    kind: input.kind,
    title: input.title,
    summary: sparklineSummary(input),
    width: SPARK.width,
    height: SPARK.height,
    body: [
      html`<polyline points="${text}" fill="none" stroke="#c53030" stroke-width="1.5" />`,
      last
        ? html`<circle
            cx="${last[0].toFixed(2)}"
            cy="${last[1].toFixed(2)}"
            r="2"
            fill="#c53030"
          />`
        : html``,
    ],
  });
}
