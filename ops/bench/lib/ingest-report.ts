/** What bench:ingest measures per APK size, and how it prints it. */
import type { ApiMemory } from './api-memory';
import { times } from './runner';
import type { StoreFloor } from './store-floor';

export const MiB = 1024 * 1024;

export interface Measurement {
  readonly payloadMiB: number;
  readonly apkBytes: number;
  /** First byte sent -> synchronous verdict. */
  readonly seconds: number;
  /** First byte -> last body byte handed to the socket (the API stages while receiving). */
  readonly sentSeconds: number;
  readonly mibPerSecond: number;
  readonly reference: { readonly seconds: number; readonly mibPerSecond: number };
  /** End-to-end time over the reference pass time. */
  readonly ratio: number;
  /** A raw GridFS put and get of the same bytes, same run (store-floor.ts). */
  readonly store: StoreFloor;
  /** End-to-end time over the raw put's. */
  readonly storeRatio: number;
  readonly api: { readonly baselineRss: number; readonly peakRss: number; readonly growth: number };
  readonly workers: { readonly baselineRss: number; readonly peakRss: number };
  readonly rssSamples: number;
  /** CPU seconds used during the upload, per process (api, workers, mongo, redis). */
  readonly cpuSeconds: Readonly<Record<string, number>>;
  /** The API's memory parts from its /metrics, just before the upload and after its verdict. */
  readonly memory: { readonly before: ApiMemory; readonly after: ApiMemory };
}

export function grid(header: readonly string[], body: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

export const mib = (bytes: number) => (bytes / MiB).toFixed(1);

export function mainTable(rows: readonly Measurement[]): string {
  return grid(
    [
      'APK MiB',
      'e2e s',
      'e2e MiB/s',
      'ref s',
      'ref MiB/s',
      'e2e/ref',
      'store put s',
      'store get s',
      'e2e/put',
      'API RSS base',
      'API RSS peak',
      'API growth',
    ],
    rows.map((m) => [
      mib(m.apkBytes),
      m.seconds.toFixed(2),
      m.mibPerSecond.toFixed(2),
      m.reference.seconds.toFixed(3),
      m.reference.mibPerSecond.toFixed(0),
      times(m.ratio, 0),
      m.store.putSeconds.toFixed(2),
      m.store.getSeconds.toFixed(2),
      times(m.storeRatio, 2),
      `${mib(m.api.baselineRss)} MiB`,
      `${mib(m.api.peakRss)} MiB`,
      `${mib(m.api.growth)} MiB`,
    ]),
  );
}

/** Where the time went: body sent vs waiting for the verdict, and CPU seconds per process. */
export function breakdownTable(rows: readonly Measurement[]): string {
  const names = [...new Set(rows.flatMap((m) => Object.keys(m.cpuSeconds)))];
  return grid(
    [
      'APK MiB',
      'body sent s',
      'verdict wait s',
      ...names.map((n) => `CPU ${n} s`),
      'workers RSS base',
      'workers RSS peak',
    ],
    rows.map((m) => [
      mib(m.apkBytes),
      m.sentSeconds.toFixed(2),
      (m.seconds - m.sentSeconds).toFixed(2),
      ...names.map((n) => (m.cpuSeconds[n] ?? 0).toFixed(1)),
      `${mib(m.workers.baselineRss)} MiB`,
      `${mib(m.workers.peakRss)} MiB`,
    ]),
  );
}

export function rssVerdict(rows: readonly Measurement[], target: number): string {
  const worst = Math.max(...rows.map((m) => m.api.growth));
  // Also against the RSS before the first measured upload: an upload may leave RSS higher.
  const first = rows[0]?.api.baselineRss ?? 0;
  const overall = Math.max(...rows.map((m) => m.api.peakRss)) - first;
  const met = Math.max(worst, overall) < target ? 'met' : 'NOT met';
  return (
    `API peak RSS growth: at most ${mib(worst)} MiB over the RSS just before an upload, ` +
    `${mib(overall)} MiB over the RSS before the first measured upload (target < ${target / MiB} MiB): ${met}`
  );
}
