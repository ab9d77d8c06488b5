/**
 * Fuzzes the signature verifier (verifyApk) with signing-block-aware mutations (block framing,
 * ID-value pairs, nested length-prefixed sequences, certificate DER; signed data re-signed with
 * the fixture keys so parsing goes past the signature check), JAR-signature and manifest
 * mutations, ZIP-aware and byte-level ones. Every input must end in a verdict without an
 * INTERNAL_ERROR or an engine error in its issues, within the time bound; and a verdict of
 * `verified` must be deserved: an input that changed a byte outside the APK Signing Block of an
 * APK apksigner accepts with v2 or v3 must be refused (lib/signed-bytes.ts, the oracle of
 * test/integration/apk/mutated-apks.test.ts). The seed is printed; FUZZ_SEED replays it.
 */
import { fuzzTarget, failureLines } from './lib/fuzz-test';

const inputsAtLeast = (share: number, of: number) => Math.floor(share * of);

test('signature verifier: hostile APKs end in a verdict, bounded in time and memory', async () => {
  const r = await fuzzTarget('verify', 25_000, 'test/resilience/fuzz/signature-verifier.test.ts');
  expect(failureLines(r)).toEqual([]);
  expect({ crashes: r.crashes, hangs: r.hangs, undeserved: r.undeserved }).toEqual({
    crashes: 0,
    hangs: 0,
    undeserved: 0,
  });
  // The oracle had work: thousands of inputs changed signed bytes of an accepted v2/v3 APK.
  expect(r.refusalsRequired).toBeGreaterThan(inputsAtLeast(0.05, r.inputsRequested));
  expect(r.inputsFuzzed).toBe(r.inputsRequested);
  expect(r.verdicts.ok ?? 0).toBeGreaterThan(0);
  // Re-signed mutations reach the checks behind the signature over signed-data.
  const deep = Object.keys(r.verdicts).filter((v) =>
    /CERTIFICATE|DIGEST|LINEAGE|ATTRIBUTE/.test(v),
  );
  expect(deep.length).toBeGreaterThan(0);
});
