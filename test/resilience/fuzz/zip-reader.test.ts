/**
 * Fuzzes the ZIP reader (openZip, checkEntryLayout, every entry streamed) with ZIP-aware and
 * byte-level mutations of the fixture and golden APKs. Every input must end in data or an
 * ApkFormatError, within the time bound and without large allocations.
 */
import { fuzzTarget, failureLines } from './lib/fuzz-test';

test('ZIP reader: hostile archives end in a typed verdict, bounded in time and memory', async () => {
  const r = await fuzzTarget('zip', 35_000, 'test/resilience/fuzz/zip-reader.test.ts');
  expect(failureLines(r)).toEqual([]);
  expect({ crashes: r.crashes, hangs: r.hangs }).toEqual({ crashes: 0, hangs: 0 });
  expect(r.inputsFuzzed).toBe(r.inputsRequested);
  // Some inputs must get through and some must be refused, or the mutators are not doing their job.
  expect(r.verdicts.ok ?? 0).toBeGreaterThan(0);
  expect(r.verdicts.ZIP_BOMB ?? 0).toBeGreaterThan(0);
});
