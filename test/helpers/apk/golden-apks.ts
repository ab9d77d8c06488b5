/**
 * Access to Google's apksig test APKs (read in place where test/helpers/golden-corpus.ts finds
 * them, never copied) and the facts the JAR verifier needs about each: the manifest's minSdkVersion (via
 * Debian's `aapt`, independent of our own manifest reader) and which APK Signing Block
 * schemes are present (a minimal scan, independent of our signing-block reader).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { GOLDEN_DIR, goldenPath } from '../golden-corpus';

export { goldenPath };

export function goldenFiles(): string[] {
  return readdirSync(GOLDEN_DIR).filter((f) => f.endsWith('.apk'));
}

/** expected.tsv: file -> whole-APK verdict of `apksigner verify`. */
export function expectedVerdicts(dir = GOLDEN_DIR): Map<string, 'ACCEPT' | 'REJECT'> {
  const out = new Map<string, 'ACCEPT' | 'REJECT'>();
  for (const line of readFileSync(path.join(dir, 'expected.tsv'), 'utf8').split('\n')) {
    const [file, verdict] = line.trim().split('\t');
    if (file && (verdict === 'ACCEPT' || verdict === 'REJECT')) out.set(file, verdict);
  }
  return out;
}

/** minSdkVersion as apksigner takes it: from the manifest, 1 when `<uses-sdk>` is absent. */
export function minSdkFromAapt(file: string): number {
  const out = execFileSync('aapt', ['dump', 'badging', goldenPath(file)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const m = /^sdkVersion:'(\d+)'/m.exec(out);
  return m ? Number(m[1]) : 1;
}

const SIG_BLOCK_MAGIC = Buffer.from('APK Sig Block 42', 'latin1');
const SCHEME_IDS = new Map<number, number>([
  [0x7109871a, 2],
  [0xf05368c0, 3],
  [0x1b93ad61, 31],
]);

/** Scheme IDs (2, 3, 31) whose blocks sit in the APK Signing Block just before the CD. */
export function signingBlockSchemeIds(apk: Buffer, cdOffset: number): Set<number> {
  const found = new Set<number>();
  if (cdOffset < 32) return found;
  const footer = apk.subarray(cdOffset - 24, cdOffset);
  if (!footer.subarray(8).equals(SIG_BLOCK_MAGIC)) return found;
  const size = Number(footer.readBigUInt64LE(0));
  const start = cdOffset - size - 8;
  if (start < 0) return found;
  let pos = start + 8;
  const end = cdOffset - 24;
  while (pos + 12 <= end) {
    const len = Number(apk.readBigUInt64LE(pos));
    const id = apk.readUInt32LE(pos + 8);
    const scheme = SCHEME_IDS.get(id);
    if (scheme !== undefined) found.add(scheme);
    pos += 8 + len;
  }
  return found;
}
