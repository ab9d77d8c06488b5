/** Figures of the fan-out benchmark: per-device latency statistics, the table and the verdicts. */
import type { ApiMemory } from './api-memory';
import { times } from './runner';

export interface Latency {
  readonly p50: number;
  readonly p99: number;
  /** The last device: the fan-out time. */
  readonly last: number;
}

export interface SideResult {
  /** Milliseconds from the publishing request to each device's event. */
  readonly latency: Latency;
  /** Devices that got no event within the deadline, and streams that ended meanwhile. */
  readonly missing: number;
  readonly dropped: number;
  /** Milliseconds the publishing request took to answer. */
  readonly requestMs: number;
  readonly rssBefore: number;
  readonly rssIdle: number;
  readonly rssPerConnection: number;
  /** V8 heap and external memory per connection, read like the RSS (lib/api-memory.ts). */
  readonly memoryPerConnection?: ApiMemory;
  /** Bytes of the event's data line. */
  readonly eventBytes: number;
  /** Seconds to open the N streams (setup, not a target). */
  readonly connectSeconds: number;
  /** CPU seconds per process during the fan-out (until the last device or the deadline). */
  readonly cpuSeconds: Readonly<Record<string, number>>;
}

export interface Round {
  readonly devices: number;
  /** null when that side was not run (--sides). */
  readonly apkrelay: SideResult | null;
  readonly baseline: SideResult | null;
  /** Bare sockets, no HTTP server (lib/fanout-baseline.ts): what a stream costs below any HTTP stack. */
  readonly floor: SideResult | null;
  /** Why apkrelay's side has no result although it was run (e.g. the connect phase deadline). */
  readonly apkrelayError: string | null;
  /** apkrelay p99 over baseline p99. */
  readonly ratio: number | null;
}

export const P99_TARGET_MS = 1_000;
export const RSS_TARGET_BYTES = 30 * 1024;

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export function latency(startMs: number, arrivals: readonly number[]): Latency {
  const sorted = arrivals.map((t) => t - startMs).sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    last: sorted[sorted.length - 1] ?? NaN,
  };
}

const ms = (v: number) => `${v.toFixed(0)} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const or = (s: SideResult | null, f: (s: SideResult) => string) => (s ? f(s) : '-');

export function table(rounds: readonly Round[]): string {
  const header = [
    'N',
    'apkrelay p50',
    'p99',
    'last',
    'baseline p50',
    'p99',
    'last',
    'p99 ratio',
    'apkrelay RSS/conn',
    'baseline RSS/conn',
    'floor RSS/conn',
  ];
  const body = rounds.map((r) => [
    String(r.devices),
    or(r.apkrelay, (s) => ms(s.latency.p50)),
    or(r.apkrelay, (s) => ms(s.latency.p99)),
    or(r.apkrelay, (s) => ms(s.latency.last)),
    or(r.baseline, (s) => ms(s.latency.p50)),
    or(r.baseline, (s) => ms(s.latency.p99)),
    or(r.baseline, (s) => ms(s.latency.last)),
    r.ratio === null ? '-' : times(r.ratio, 1),
    or(r.apkrelay, (s) => kb(s.rssPerConnection)),
    or(r.baseline, (s) => kb(s.rssPerConnection)),
    or(r.floor, (s) => kb(s.rssPerConnection)),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/** Secondary figures: request time, connect time, event size, CPU per process, misses. */
export function details(rounds: readonly Round[]): string {
  const out: string[] = [];
  for (const r of rounds) {
    if (r.apkrelayError) out.push(`N=${r.devices} apkrelay: FAILED: ${r.apkrelayError}`);
    for (const [name, s] of [
      ['apkrelay', r.apkrelay],
      ['baseline', r.baseline],
      ['floor', r.floor],
    ] as const) {
      if (!s) continue;
      const cpu = Object.entries(s.cpuSeconds)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(', ');
      out.push(
        `N=${r.devices} ${name}: publish request ${ms(s.requestMs)}, connect ${s.connectSeconds.toFixed(1)} s, ` +
          `event data ${s.eventBytes} B, RSS ${(s.rssBefore / 2 ** 20).toFixed(0)} -> ` +
          `${(s.rssIdle / 2 ** 20).toFixed(0)} MiB, missing ${s.missing}, dropped ${s.dropped}; ` +
          `CPU s during fan-out: ${cpu}`,
      );
    }
  }
  return out.join('\n');
}

/** The targets apply at 10,000 devices; a run with fewer says so. */
export function verdicts(rounds: readonly Round[]): string[] {
  const measured = rounds.flatMap((r) => (r.apkrelay ? [{ n: r.devices, s: r.apkrelay }] : []));
  const largest = measured.reduce<(typeof measured)[number] | undefined>(
    (a, r) => (a && a.n >= r.n ? a : r),
    undefined,
  );
  if (!largest) return ['apkrelay not measured: no verdict'];
  const p99 = largest.s.latency.p99;
  const complete = largest.s.missing === 0;
  const rss = Math.max(...measured.map((m) => m.s.rssPerConnection));
  const failed = rounds.filter((r) => r.apkrelayError && r.devices > largest.n);
  const scale =
    largest.n >= 10_000
      ? ''
      : failed.length > 0
        ? ` (largest completed N; N=${failed.map((r) => r.devices).join(',')} failed: NOT met there)`
        : ` (only N=${largest.n} measured; the target is at 10000)`;
  return [
    `p99 at N=${largest.n}: ${ms(p99)} (target < ${ms(P99_TARGET_MS)}): ` +
      `${complete && failed.length === 0 && p99 < P99_TARGET_MS ? 'met' : 'NOT met'}${scale}` +
      (complete ? '' : ` (${largest.s.missing} devices got no event)`),
    `RSS per idle stream: at most ${kb(rss)} (target < ${kb(RSS_TARGET_BYTES)}): ` +
      `${rss < RSS_TARGET_BYTES ? 'met' : 'NOT met'}`,
  ];
}
