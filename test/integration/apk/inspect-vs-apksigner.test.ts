/**
 * Cross-check: every fixture APK gets the same verdict from `inspect` as from Debian's
 * `apksigner verify` (31.0.2). Where that old apksigner differs from AOSP's current apksig, AOSP's
 * ApkVerifierTest is the reference; the two known cases in the golden corpus are pinned below so
 * the difference stays documented and checked.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { inspectApk } from '../../../shared/apk';
import { describeWithGolden, goldenPath } from '../../helpers/golden-corpus';

const run = promisify(execFile);
const APKSIGNER = '/usr/bin/apksigner';
const FIXTURES = path.resolve(__dirname, '../../fixtures/apks');
const haveApksigner = existsSync(APKSIGNER);

async function apksignerAccepts(file: string): Promise<boolean> {
  try {
    await run(APKSIGNER, ['verify', file], { timeout: 60_000 });
    return true;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') throw err;
    return false;
  }
}

/**
 * Golden APKs where Debian's apksigner 31.0.2 accepts but AOSP's ApkVerifierTest requires a
 * rejection (see ../shared/apksig-golden/README.md).
 */
const DEBIAN_DIFFERS_FROM_AOSP: Record<string, string> = {
  // ApkVerifierTest.testV1SchemeSignatureMaxSignersExceeded: more than 10 JAR signers
  // (Constants.MAX_APK_SIGNERS) must be rejected; 31.0.2 predates that limit.
  'v1-only-11-signers.apk': 'JAR_SIG_MAX_SIGNATURES_EXCEEDED',
  // ApkVerifierTest.verifyV31_strippingAttrMismatch_errorReportedOnSupportedVersions: the v3.0
  // signer's rotation-min-sdk-version (33) differs from the v3.1 signer's target (34);
  // 31.0.2 does not know v3.1 at all.
  'v31-tgt-34-v3-attr-value-33.apk': 'V31_ROTATION_MIN_SDK_MISMATCH',
};

if (!haveApksigner) {
  console.warn(`${APKSIGNER} not installed; apksigner cross-check skipped`);
}

(haveApksigner ? describe : describe.skip)('inspect agrees with apksigner verify', () => {
  const fixtures = existsSync(FIXTURES)
    ? readdirSync(FIXTURES)
        .filter((f) => f.endsWith('.apk'))
        .sort()
    : [];

  test('there are fixtures to compare', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(10);
  });

  test.each(fixtures)('%s', async (name) => {
    const file = path.join(FIXTURES, name);
    const [report, accepted] = await Promise.all([inspectApk(file, name), apksignerAccepts(file)]);
    expect({ name, valid: report.valid }).toEqual({ name, valid: accepted });
  });
});

describeWithGolden(__filename, 'where Debian’s apksigner differs from AOSP', () => {
  // Only those shipped in this copy of the corpus (it holds about half of AOSP's).
  const known = Object.entries(DEBIAN_DIFFERS_FROM_AOSP).filter(([name]) =>
    existsSync(goldenPath(name)),
  );

  test('the corpus holds at least one of them', () => {
    expect(known.length).toBeGreaterThanOrEqual(1);
  });

  (haveApksigner ? test.each : test.skip.each)(known)(
    '%s: Debian accepts, AOSP (and inspect) reject with %s',
    async (name, code) => {
      const file = goldenPath(name);
      const [report, accepted] = await Promise.all([
        inspectApk(file, name),
        apksignerAccepts(file),
      ]);
      expect(accepted).toBe(true);
      expect(report.valid).toBe(false);
      expect(report.errors.map((e) => e.code)).toContain(code);
    },
  );
});
