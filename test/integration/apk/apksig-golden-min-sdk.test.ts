/**
 * ApkVerifierTest verifies many v2-only / v3-only APKs with an explicit minSdkVersion (N = 24 for
 * v2, P = 28 for v3): with the manifest's minSdk 23 they are rejected for lacking a JAR signature,
 * but their v2/v3 signatures themselves (RSA PKCS#1 and PSS up to 16384 bits, ECDSA P-256/P-384,
 * DSA) must verify. This pins the cryptographic half of those cases.
 */
import { openFileSource, verifyApk } from '../../../shared/apk';
import { describeWithGolden, goldenPath } from '../../helpers/golden-corpus';

const V2_AT_N = [
  'v2-only-max-sized-eocd-comment.apk',
  'v2-only-two-signers.apk',
  'v2-only-with-dsa-sha256-1024.apk',
  'v2-only-with-ecdsa-sha256-p256.apk',
  'v2-only-with-ecdsa-sha512-p384.apk',
  'v2-only-with-ignorable-unsupported-sig-algs.apk',
  'v2-only-with-rsa-pkcs1-sha256-2048.apk',
  'v2-only-with-rsa-pkcs1-sha256-16384.apk',
  'v2-only-with-rsa-pkcs1-sha512-3072.apk',
  'v2-only-with-rsa-pss-sha256-1024.apk',
  'v2-only-with-rsa-pss-sha512-16384.apk',
];
const V3_AT_P = [
  'v3-only-with-dsa-sha256-1024.apk',
  'v3-only-with-ecdsa-sha256-p384.apk',
  'v3-only-with-ecdsa-sha512-p384.apk',
  'v3-only-with-ignorable-unsupported-sig-algs.apk',
  'v3-only-with-rsa-pkcs1-sha256-2048.apk',
  'v3-only-with-rsa-pkcs1-sha512-16384.apk',
];
const BROKEN_AT_P: Array<[string, string]> = [
  ['v3-only-no-supported-sig-algs.apk', 'V3_SIG_NO_SUPPORTED_SIGNATURES'],
  ['v3-only-with-rsa-pkcs1-sha256-3072-sig-does-not-verify.apk', 'V3_SIG_DID_NOT_VERIFY'],
  ['v3-only-with-dsa-sha256-3072-digest-mismatch.apk', 'V3_SIG_APK_DIGEST_DID_NOT_VERIFY'],
  [
    'v3-only-signatures-and-digests-block-mismatch.apk',
    'V3_SIG_SIG_ALG_MISMATCH_BETWEEN_SIGNATURES_AND_DIGESTS_RECORDS',
  ],
];

async function verifyAt(file: string, minSdk: number) {
  const source = await openFileSource(goldenPath(file));
  try {
    return await verifyApk(source, { minSdk });
  } finally {
    await source.close();
  }
}

describeWithGolden(__filename, 'apksig golden APKs with an explicit minSdkVersion', () => {
  test.each(V2_AT_N)('%s verifies for minSdk 24', async (file) => {
    const v = await verifyAt(file, 24);
    expect(v.errors).toEqual([]);
    expect(v.schemes.v2).toBe(true);
  });

  test.each(V3_AT_P)('%s verifies for minSdk 28', async (file) => {
    const v = await verifyAt(file, 28);
    expect(v.errors).toEqual([]);
    expect(v.schemes.v3).toBe(true);
  });

  test.each(BROKEN_AT_P)('%s is rejected for minSdk 28 with %s', async (file, code) => {
    const v = await verifyAt(file, 28);
    expect(v.verified).toBe(false);
    expect(v.errors.map((e) => e.code)).toContain(code);
  });
});
