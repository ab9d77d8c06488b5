/**
 * Large signed APKs for benchmarks, built once and cached under os.tmpdir() keyed by package,
 * version and size: aapt packages a manifest and an `assets/` dir of random (incompressible)
 * bytes stored uncompressed (`-0 bin`), zipalign aligns it, and apksigner signs it v1+v2+v3 with
 * the throwaway fixture key (test/fixtures/keys/fixture.p12, password "android", alias
 * "fixture"), as test/fixtures/make-apks.sh does for the test fixtures.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
const FRAMEWORK_RES = '/usr/share/android-framework-res/framework-res.apk';
const CACHE_DIR = path.join(tmpdir(), 'apkrelay-bench-apks');
const WRITE_CHUNK = 4 * 1024 * 1024;

export interface BenchApkSpec {
  /** Bytes of random payload in assets/ (the APK is this plus a few KB). */
  readonly payloadBytes: number;
  readonly package?: string;
  readonly versionCode?: number;
}

/** The repository root: the nearest ancestor holding the fixture key (works from dist/ too). */
function repoRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'test/fixtures/keys/fixture.p12'))) return dir;
    if (path.dirname(dir) === dir) throw new Error('cannot find test/fixtures/keys/fixture.p12');
  }
}

export function manifest(pkg: string, versionCode: number): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android"
    package="${pkg}" android:versionCode="${versionCode}" android:versionName="${versionCode}.0">
  <uses-sdk android:minSdkVersion="21" android:targetSdkVersion="34" />
  <application android:label="Bench" />
</manifest>
`;
}

async function writeRandom(file: string, bytes: number): Promise<void> {
  const out = createWriteStream(file);
  for (let left = bytes; left > 0; left -= WRITE_CHUNK) {
    if (!out.write(randomBytes(Math.min(WRITE_CHUNK, left)))) {
      await new Promise<void>((resolve) => out.once('drain', resolve));
    }
  }
  out.end();
  await finished(out);
}

/**
 * Packages `work`/AndroidManifest.xml and `work`/assets with aapt (assets deflated by aapt's zlib,
 * except the extensions in `stored`), aligns and signs it v1+v2+v3 into `out`. Also used by the
 * delta tests (test/helpers/apk/compressed-apk.ts) to build APKs whose entries are deflated.
 */
export async function packageAndSign(work: string, stored: readonly string[], out: string) {
  const unsigned = path.join(work, 'unsigned.apk');
  const aligned = path.join(work, 'aligned.apk');
  await run('aapt', [
    'package',
    '-f',
    '-M',
    path.join(work, 'AndroidManifest.xml'),
    '-A',
    path.join(work, 'assets'),
    ...stored.flatMap((ext) => ['-0', ext]),
    '-I',
    FRAMEWORK_RES,
    '-F',
    unsigned,
  ]);
  await run('zipalign', ['-f', '-p', '4', unsigned, aligned]);
  await run(
    'apksigner',
    [
      'sign',
      '--ks',
      path.join(repoRoot(), 'test/fixtures/keys/fixture.p12'),
      '--ks-pass',
      'pass:android',
      '--ks-key-alias',
      'fixture',
      '--v1-signing-enabled',
      'true',
      '--v2-signing-enabled',
      'true',
      '--v3-signing-enabled',
      'true',
      '--v4-signing-enabled',
      'false',
      '--out',
      out,
      aligned,
    ],
    { maxBuffer: 1 << 20 },
  );
}

/** The path of a signed APK matching `spec`, building it on first use. */
export async function benchApk(spec: BenchApkSpec): Promise<string> {
  const pkg = spec.package ?? 'dev.apkrelay.bench';
  const versionCode = spec.versionCode ?? 1;
  const name = `${pkg}-v${versionCode}-${spec.payloadBytes}`;
  const apk = path.join(CACHE_DIR, `${name}.apk`);
  if (existsSync(apk)) return apk;
  const work = path.join(CACHE_DIR, `build-${name}-${process.pid}`);
  await mkdir(path.join(work, 'assets'), { recursive: true });
  try {
    await writeFile(path.join(work, 'AndroidManifest.xml'), manifest(pkg, versionCode));
    await writeRandom(path.join(work, 'assets', 'payload.bin'), spec.payloadBytes);
    const signed = path.join(work, 'signed.apk');
    await packageAndSign(work, ['bin'], signed);
    await rename(signed, apk); // atomic: a cached APK is always complete
    return apk;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
