/**
 * APKs signed with the verity algorithms (0x0421 etc., apksigner --verity-enabled) verify, and
 * the verity root hash is one of the digests actually compared with the file.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { bufferSource, inspectApk } from '../../../shared/apk';
import { openZip } from '../../../shared/apk/zip';
import { parseSigningSchemes } from '../../../shared/apk/signing/verify-signing-block';

const run = promisify(execFile);
const FIXTURES = path.resolve(__dirname, '../../fixtures');
const haveApksigner = existsSync('/usr/bin/apksigner');

(haveApksigner ? describe : describe.skip)('verity-signed APK', () => {
  let dir: string;
  let apk: Buffer;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'apk-verity-'));
    const out = path.join(dir, 'verity.apk');
    await run('/usr/bin/apksigner', [
      'sign',
      '--ks',
      path.join(FIXTURES, 'keys/fixture.p12'),
      '--ks-pass',
      'pass:android',
      '--verity-enabled',
      'true',
      '--v4-signing-enabled',
      'false',
      '--out',
      out,
      path.join(FIXTURES, 'apks/unsigned.apk'),
    ]);
    apk = await readFile(out);
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('verifies, checking the verity digest', async () => {
    const report = await inspectApk(bufferSource(apk), 'verity.apk');
    expect(report).toMatchObject({ valid: true, schemes: { v1: true, v2: true, v3: true } });
    const zip = await openZip(bufferSource(apk));
    const parsed = await parseSigningSchemes(zip.source, zip.sections, 21, 0x7fffffff);
    for (const r of parsed.results)
      expect([...r.digestsToVerify]).toContain('VERITY_CHUNKED_SHA256');
  });

  test('a flipped byte in the entries is caught', async () => {
    const bad = Buffer.from(apk);
    bad[100] = (bad[100] ?? 0) ^ 0xff;
    await writeFile(path.join(dir, 'bad.apk'), bad);
    const report = await inspectApk(path.join(dir, 'bad.apk'));
    expect(report.valid).toBe(false);
  });
});
