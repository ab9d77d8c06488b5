/**
 * Fuzzes the binary XML reader (readManifest) with AXML-aware mutations of the manifests of the
 * fixture and golden APKs: chunk sizes, string pools with absurd counts and offsets, deep
 * nesting, huge attribute lists, truncation. Every input must end in a manifest or
 * MANIFEST_MALFORMED, within the time bound.
 */
import { fuzzTarget, failureLines } from './lib/fuzz-test';

test('AXML reader: hostile manifests end in a typed verdict, bounded in time and memory', async () => {
  const r = await fuzzTarget('axml', 45_000, 'test/resilience/fuzz/axml-reader.test.ts');
  expect(failureLines(r)).toEqual([]);
  expect({ crashes: r.crashes, hangs: r.hangs }).toEqual({ crashes: 0, hangs: 0 });
  expect(r.inputsFuzzed).toBe(r.inputsRequested);
  expect(r.verdicts.ok ?? 0).toBeGreaterThan(0);
  expect(r.verdicts.MANIFEST_MALFORMED ?? 0).toBeGreaterThan(0);
});
