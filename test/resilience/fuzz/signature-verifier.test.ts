/**
 * Fuzzes the signature verifier (verifyApk) with signing-block-aware mutations (block framing,
 * ID-value pairs, nested length-prefixed sequences, certificate DER; signed data re-signed with
 * the fixture keys so parsing goes past the signature check), JAR-signature and manifest
 * mutations, ZIP-aware and byte-level ones. Every input must end in a verdict without an
 * INTERNAL_ERROR or an engine error in its issues, within the time bound.
 */
import { fuzzTarget, failureLines } from './lib/fuzz-test';

test('signature verifier: hostile APKs end in a verdict, bounded in time and memory', async () => {
  const r = await fuzzTarget('verify', 25_000, 'test/resilience/fuzz/signature-verifier.test.ts');
  expect(failureLines(r)).toEqual([]);
  expect({ crashes: r.crashes, hangs: r.hangs }).toEqual({ crashes: 0, hangs: 0 });
  expect(r.inputsFuzzed).toBe(r.inputsRequested);
  expect(r.verdicts.ok ?? 0).toBeGreaterThan(0);
  // Re-signed mutations reach the checks behind the signature over signed-data.
  const deep = Object.keys(r.verdicts).filter((v) =>
    /CERTIFICATE|DIGEST|LINEAGE|ATTRIBUTE/.test(v),
  );
  expect(deep.length).toBeGreaterThan(0);
});
