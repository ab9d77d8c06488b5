/**
 * Whether the API's memory is bounded across uploads (bench:ingest --repeat): the table of its
 * memory parts before and after each upload, and the trend of the RSS it holds between uploads.
 * One upload's growth says what an upload costs; only several in a row tell memory kept per
 * upload (a leak, a cache, an allocator that never gives pages back) from a plateau.
 */
import type { ApiMemory } from './api-memory';
import { grid, mib, MiB, type Measurement } from './ingest-report';

/** At most this much RSS kept by one upload, once past the first ones, counts as a plateau. */
export const PLATEAU_BYTES_PER_UPLOAD = 4 * MiB;

const parts = (m: ApiMemory) => [
  mib(m.rss),
  mib(m.heapUsed),
  mib(m.heapTotal),
  mib(m.external),
  mib(m.arrayBuffers),
];

export function memoryTable(rows: readonly Measurement[]): string {
  const names = ['RSS', 'heap used', 'heap total', 'external', 'array buffers'];
  return grid(
    ['#', 'APK MiB', ...names.map((n) => `${n} before`), ...names.map((n) => `${n} after`)],
    rows.map((m, i) => [
      String(i + 1),
      mib(m.apkBytes),
      ...parts(m.memory.before),
      ...parts(m.memory.after),
    ]),
  );
}

/**
 * Per APK size uploaded three times or more: the API's RSS just before each upload, and what the
 * last of those steps kept (RSS before the last upload minus before the one before it). The first
 * uploads raise RSS to the allocator's high-water mark; memory that grows with every upload still
 * shows in the last step, a plateau does not.
 */
export function memoryTrend(rows: readonly Measurement[]): string {
  const bySize = new Map<number, number[]>();
  for (const m of rows) {
    const list = bySize.get(m.payloadMiB) ?? [];
    list.push(m.memory.before.rss);
    bySize.set(m.payloadMiB, list);
  }
  const lines: string[] = [];
  for (const [size, before] of bySize) {
    const shown = `API RSS before each ${size} MiB upload: ${before.map(mib).join(', ')} MiB`;
    if (before.length < 3) {
      lines.push(`${shown} (--repeat 3 or more tells growth from a plateau)`);
      continue;
    }
    const kept = before[before.length - 1]! - before[before.length - 2]!;
    const verdict = kept <= PLATEAU_BYTES_PER_UPLOAD ? 'plateaus' : 'GROWS per upload';
    lines.push(
      `${shown}; kept by the upload before the last: ${mib(kept)} MiB ` +
        `(plateau: at most ${PLATEAU_BYTES_PER_UPLOAD / MiB} MiB): ${verdict}`,
    );
  }
  return lines.join('\n');
}
