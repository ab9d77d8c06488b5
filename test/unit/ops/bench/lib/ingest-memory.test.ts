/** bench:ingest's memory trend across repeated uploads (hand-written RSS figures). */
import type { ApiMemory } from '../../../../../ops/bench/lib/api-memory';
import type { Measurement } from '../../../../../ops/bench/lib/ingest-report';
import { memoryTable, memoryTrend } from '../../../../../ops/bench/lib/ingest-memory';

const MiB = 1024 * 1024;

function memory(rssMiB: number): ApiMemory {
  return {
    rss: rssMiB * MiB,
    heapUsed: 40 * MiB,
    heapTotal: 60 * MiB,
    external: 8 * MiB,
    arrayBuffers: 6 * MiB,
  };
}

/** An upload of `payloadMiB` with the API's RSS before and after it (the rest is not read). */
function upload(payloadMiB: number, beforeMiB: number, afterMiB: number): Measurement {
  return {
    payloadMiB,
    apkBytes: payloadMiB * MiB,
    memory: { before: memory(beforeMiB), after: memory(afterMiB) },
  } as Measurement;
}

test.each([
  [
    'RSS that still rises by 10 MiB at the last upload grows',
    [152, 211, 221, 231],
    '152.0, 211.0, 221.0, 231.0 MiB; kept by the upload before the last: 10.0 MiB (plateau: at most 4 MiB): GROWS per upload',
  ],
  [
    'first uploads that raise RSS to a high-water mark, then nothing more, plateau',
    [152, 197, 216, 217],
    '152.0, 197.0, 216.0, 217.0 MiB; kept by the upload before the last: 1.0 MiB (plateau: at most 4 MiB): plateaus',
  ],
])('%s', (_name, before: number[], expected: string) => {
  const rows = before.map((b) => upload(100, b, b + 50));
  expect(memoryTrend(rows)).toBe(`API RSS before each 100 MiB upload: ${expected}`);
});

test('each size is judged on its own uploads; fewer than three are not judged', () => {
  const rows = [upload(20, 150, 200), upload(20, 160, 200), upload(100, 170, 250)];
  expect(memoryTrend(rows).split('\n')).toEqual([
    'API RSS before each 20 MiB upload: 150.0, 160.0 MiB (--repeat 3 or more tells growth from a plateau)',
    'API RSS before each 100 MiB upload: 170.0 MiB (--repeat 3 or more tells growth from a plateau)',
  ]);
});

test('the table shows each upload before and after, in MiB', () => {
  const lines = memoryTable([upload(100, 152, 250)]).split('\n');
  expect(lines[0]?.split(/\s{2,}/).map((c) => c.trim())).toEqual([
    '#',
    'APK MiB',
    'RSS before',
    'heap used before',
    'heap total before',
    'external before',
    'array buffers before',
    'RSS after',
    'heap used after',
    'heap total after',
    'external after',
    'array buffers after',
  ]);
  expect(lines[2]?.trim().split(/\s+/)).toEqual([
    '1',
    '100.0',
    '152.0',
    '40.0',
    '60.0',
    '8.0',
    '6.0',
    '250.0',
    '40.0',
    '60.0',
    '8.0',
    '6.0',
  ]);
});
