import {
  applyBenchClassPath,
  jvmApplyText,
  parseApplyLines,
  summariseJvmApply,
  type JvmApplyResult,
} from '../../../../../ops/bench/lib/jvm-apply';

/** A line as ApplyBench prints it; the figures are literals. */
function line(
  format: number,
  ms: number,
  peakHeapBytes: number,
  extra: Partial<JvmApplyResult> = {},
): string {
  return JSON.stringify({
    patch: `p${ms}`,
    format,
    newBytes: 1_000,
    ms,
    peakHeapBytes,
    maxHeapBytes: 16 * 1024 * 1024,
    recompressor: format === 2 ? 'jdk' : 'none',
    sha256Matches: true,
    ...extra,
  });
}

describe('bench:delta on the JVM (issue 37: apply time and memory at a 16 MB heap)', () => {
  test('ApplyBench lines are read; blank lines are skipped; any other line is an error naming it', () => {
    const results = parseApplyLines(`${line(1, 120, 2_097_152)}\n\n${line(2, 900, 3_145_728)}\n`);
    expect(results.map((r) => [r.format, r.ms, r.peakHeapBytes, r.recompressor])).toEqual([
      [1, 120, 2_097_152, 'none'],
      [2, 900, 3_145_728, 'jdk'],
    ]);
    expect(() => parseApplyLines('{"patch":"x","format":1}')).toThrow(
      'ApplyBench printed an unexpected line: {"patch":"x","format":1}',
    );
    expect(() => parseApplyLines('Exception in thread "main"')).toThrow(SyntaxError);
  });

  test('per format: p95 by nearest rank, max, the largest peak heap, whether all matched', () => {
    // 20 ARDELTA1 patches of 1..20 s: the 95th percentile by nearest rank is the 19th, 19 s.
    const ones = Array.from({ length: 20 }, (_, i) =>
      line(1, (i + 1) * 1_000, (i + 1) * 1_048_576),
    );
    const twos = [line(2, 300, 1_572_864), line(2, 200, 1_048_576, { sha256Matches: false })];
    const summary = summariseJvmApply(parseApplyLines([...twos, ...ones].join('\n')));
    expect(summary).toEqual([
      {
        format: 1,
        patches: 20,
        msP95: 19_000,
        msMax: 20_000,
        peakHeapMiBMax: 20,
        maxHeapMiB: 16,
        recompressors: ['none'],
        allMatch: true,
      },
      {
        format: 2,
        patches: 2,
        msP95: 300,
        msMax: 300,
        peakHeapMiBMax: 1.5,
        maxHeapMiB: 16,
        recompressors: ['jdk'],
        allMatch: false,
      },
    ]);
    expect(jvmApplyText(summary)).toEqual([
      'apply (JVM, -Xmx16m) ARDELTA1: 20 patches, p95 19000 ms (target < 10000 ms: NOT met), max 20000 ms, peak heap up to 20.0 MiB',
      'apply (JVM, -Xmx16m) ARDELTA2: 2 patches, p95 300 ms (target < 10000 ms: met), max 300 ms, peak heap up to 1.5 MiB, ' +
        'recompressor jdk; SOME OUTPUTS DID NOT MATCH',
    ]);
  });

  test('no ApplyBench class under the Maven target: no class path (the JVM part is skipped)', () => {
    expect(applyBenchClassPath('/nonexistent/target')).toBeNull();
  });
});
