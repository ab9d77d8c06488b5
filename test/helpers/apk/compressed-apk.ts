/**
 * Signed APKs whose assets aapt deflates (its zlib), for the ARDELTA2 tests: a manifest and the
 * given assets packaged by aapt, aligned by zipalign and signed v1+v2+v3 by apksigner with the
 * fixture key (ops/bench/lib/signed-apk.ts does the packaging).
 */
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { manifest, packageAndSign } from '../../../ops/bench/lib/signed-apk';

export async function compressedApk(
  pkg: string,
  versionCode: number,
  assets: Record<string, Buffer>,
): Promise<Buffer> {
  const work = await mkdtemp(path.join(tmpdir(), 'apkrelay-delta-apk-'));
  try {
    await mkdir(path.join(work, 'assets'));
    await writeFile(path.join(work, 'AndroidManifest.xml'), manifest(pkg, versionCode));
    for (const [name, bytes] of Object.entries(assets)) {
      await writeFile(path.join(work, 'assets', name), bytes);
    }
    const out = path.join(work, 'signed.apk');
    await packageAndSign(work, [], out);
    return await readFile(out);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
