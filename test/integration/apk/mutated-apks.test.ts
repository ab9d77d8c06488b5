/**
 * Random byte mutations of signed fixtures: inspect must always return a report (never throw),
 * give error codes whenever it rejects, and agree with `apksigner verify` on the sampled cases.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { bufferSource, inspectApk } from '../../../shared/apk';

const run = promisify(execFile);
const APKS = path.resolve(__dirname, '../../fixtures/apks');
const BASES = ['signed-v1v2v3.apk', 'rotated-v3-lineage.apk', 'signed-v2-only.apk'].map((f) =>
  readFileSync(path.join(APKS, f)),
);

function mutations(count: number, seed: number): Buffer[] {
  let s = seed;
  const rnd = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, (_, i) => {
    const b = Buffer.from(BASES[i % BASES.length] as Buffer);
    const flips = 1 + Math.floor(rnd() * 3);
    for (let j = 0; j < flips; j++) {
      // Half the flips land in the last 3000 bytes: signing block, central directory, EOCD.
      const pos =
        rnd() < 0.5 ? Math.floor(rnd() * b.length) : b.length - 1 - Math.floor(rnd() * 3000);
      b[pos] = (b[pos] ?? 0) ^ (1 + Math.floor(rnd() * 255));
    }
    return rnd() < 0.1 ? b.subarray(0, Math.floor(rnd() * b.length)) : b;
  });
}

/** [start, end) of the APK Signing Block: the bytes no v2/v3 digest covers. */
function signingBlock(apk: Buffer): [number, number] {
  const magic = apk.lastIndexOf(Buffer.from('APK Sig Block 42', 'latin1'));
  const end = magic + 16;
  return [end - Number(apk.readBigUInt64LE(magic - 8)) - 8, end];
}

/**
 * Whether APK signing itself forbids accepting `mutated`: it was cut short, or a byte changed
 * outside the signing block (entries, central directory and EOCD are all covered by the v2/v3
 * digests, so such a change must fail verification whatever the verifier's design).
 */
function mustReject(mutated: Buffer, base: Buffer): boolean {
  if (mutated.length !== base.length) return true;
  const [start, end] = signingBlock(base);
  for (let i = 0; i < base.length; i++) {
    if (mutated[i] !== base[i] && (i < start || i >= end)) return true;
  }
  return false;
}

test('mutated APKs yield a report with error codes when rejected, and are rejected', async () => {
  let required = 0;
  let rejected = 0;
  for (const [i, apk] of mutations(600, 4242).entries()) {
    const report = await inspectApk(bufferSource(apk));
    if (!report.valid) expect(report.errors.length).toBeGreaterThan(0);
    else expect(report.errors).toEqual([]);
    if (mustReject(apk, BASES[i % BASES.length]!)) {
      required += 1;
      if (!report.valid) rejected += 1;
    }
  }
  // Hundreds of mutations touch signed bytes; every one of those must have been refused.
  expect(required).toBeGreaterThan(200);
  expect(rejected).toBe(required);
});

(existsSync('/usr/bin/apksigner') ? test : test.skip)(
  'sampled mutated APKs get the same verdict from apksigner',
  async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'apk-mutated-'));
    try {
      const sample = mutations(24, 777);
      for (const [i, apk] of sample.entries()) {
        const file = path.join(dir, `m${i}.apk`);
        await writeFile(file, apk);
        const report = await inspectApk(file);
        const accepted = await run('/usr/bin/apksigner', ['verify', file]).then(
          () => true,
          () => false,
        );
        expect({ i, valid: report.valid }).toEqual({ i, valid: accepted });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
  120_000,
);
