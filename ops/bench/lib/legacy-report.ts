/**
 * Figures of the legacy push benchmark: PushLink SDK sockets against SSE streams of the same run,
 * the table and the verdicts of issue 18 (at 10,000 devices: legacy p99 within 1.25x of the SSE
 * p99; RSS per idle legacy socket no more than per idle SSE stream).
 */
import type { SideResult } from './fanout-report';
import { times } from './runner';

export const P99_RATIO_TARGET = 1.25;

export interface LegacyRound {
  readonly devices: number;
  readonly sse: SideResult | null;
  readonly legacy: SideResult | null;
  /** Why a side has no result (e.g. its connect phase deadline). */
  readonly errors: Readonly<Record<string, string>>;
}

const ms = (v: number) => `${v.toFixed(0)} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const lat = (s: SideResult | null) =>
  s ? `${ms(s.latency.p50)} / ${ms(s.latency.p99)} / ${ms(s.latency.last)}` : '-';

/** legacy over SSE, or null when a side is missing. */
export function ratios(r: LegacyRound): { p99: number; rss: number } | null {
  if (!r.sse || !r.legacy) return null;
  return {
    p99: r.legacy.latency.p99 / r.sse.latency.p99,
    rss: r.legacy.rssPerConnection / r.sse.rssPerConnection,
  };
}

export function legacyTable(rounds: readonly LegacyRound[]): string {
  const header = [
    'N',
    'SSE p50 / p99 / last',
    'PushLink p50 / p99 / last',
    'p99 ratio',
    'RSS/conn SSE',
    'PushLink',
    'RSS ratio',
  ];
  const body = rounds.map((r) => {
    const q = ratios(r);
    return [
      String(r.devices),
      lat(r.sse),
      lat(r.legacy),
      q ? times(q.p99) : '-',
      r.sse ? kb(r.sse.rssPerConnection) : '-',
      r.legacy ? kb(r.legacy.rssPerConnection) : '-',
      q ? times(q.rss) : '-',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/** One line per round: both targets, met or not (they apply at 10,000; smaller N is indicative). */
export function legacyVerdicts(rounds: readonly LegacyRound[]): string[] {
  return rounds.map((r) => {
    const failed = Object.entries(r.errors).map(([side, why]) => `${side} FAILED: ${why}`);
    const q = ratios(r);
    if (!q || failed.length > 0) return `N=${r.devices}: no verdict; ${failed.join('; ')}`;
    const missing = (r.sse?.missing ?? 0) + (r.legacy?.missing ?? 0);
    const p99 = q.p99 <= P99_RATIO_TARGET && missing === 0 ? 'met' : 'NOT met';
    const rss = q.rss <= 1 ? 'met' : 'NOT met';
    const scope = r.devices >= 10_000 ? '' : ' (the targets are at 10000)';
    return (
      `N=${r.devices}: p99 legacy/SSE ${q.p99.toFixed(2)}x (target <= ${P99_RATIO_TARGET}x): ` +
      `${p99}${missing > 0 ? ` (${missing} devices got nothing)` : ''}; RSS per idle socket ` +
      `legacy/SSE ${q.rss.toFixed(2)}x (target <= 1x): ${rss}${scope}`
    );
  });
}
