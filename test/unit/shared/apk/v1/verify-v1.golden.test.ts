/**
 * Runs the JAR verifier on Google's apksig test APKs that carry a JAR signature and checks the
 * v1 verdict against `apksigner verify` (expected.tsv) and, where ApkVerifierTest.java says
 * more, against the issue it expects and the platform range it uses.
 */
import { createHash } from 'node:crypto';
import { ApkFormatError } from '../../../../../shared/apk/issues';
import { manifestFromZip } from '../../../../../shared/apk/manifest/manifest-from-zip';
import { openFileSource } from '../../../../../shared/apk/sources';
import { verifyV1, type V1Result } from '../../../../../shared/apk/v1';
import { openZip } from '../../../../../shared/apk/zip';
import type { ZipArchive } from '../../../../../shared/apk/zip/types';
import {
  expectedVerdicts,
  goldenFiles,
  goldenPath,
  minSdkFromAapt,
  signingBlockSchemeIds,
} from '../../../../helpers/apk/golden-apks';
import { describeWithGolden, goldenPresent } from '../../../../helpers/golden-corpus';
import { readFileSync } from 'node:fs';

const ANY = 0x7fffffff; // apksig's default maxSdkVersion (Integer.MAX_VALUE)

/** Opens a golden APK, runs `fn`, closes the file. */
async function withZip<T>(file: string, fn: (zip: ZipArchive) => Promise<T>): Promise<T> {
  const source = await openFileSource(goldenPath(file));
  try {
    return await fn(await openZip(source));
  } finally {
    await source.close();
  }
}

interface Run {
  minSdk: number;
  result: V1Result;
}

/** Verifies like `apksigner verify`: minSdk from the manifest, no maxSdk. */
async function verifyGolden(
  file: string,
  range: { minSdk?: number; maxSdk?: number } = {},
): Promise<Run> {
  return withZip(file, async (zip) => {
    const minSdk = range.minSdk ?? (await manifestFromZip(zip)).minSdk;
    const foundSchemeIds = signingBlockSchemeIds(
      readFileSync(goldenPath(file)),
      zip.sections.cdOffset,
    );
    const result = await verifyV1(zip, { minSdk, maxSdk: range.maxSdk ?? ANY, foundSchemeIds });
    return { minSdk, result };
  });
}

const codes = (r: V1Result): string[] => r.errors.map((e) => e.code);

/**
 * Files whose whole-APK verdict is decided by something other than the JAR signature
 * (ApkVerifierTest.java), with the v1 verdict apksig's V1SchemeVerifier gives them.
 */
const V1_VERDICT_DIFFERS: Record<string, 'ACCEPT' | 'REJECT'> = {
  // REJECT overall with NO_SIG_FOR_TARGET_SANDBOX_VERSION (needs v2+); the JAR signature is fine.
  'v1-only-targetSandboxVersion-2.apk': 'ACCEPT',
  // REJECT overall because of the v3 lineage attribute; the JAR signature is fine.
  'v1v2v3-with-rsa-2048-lineage-3-signers-invalid-lineage-attr.apk': 'ACCEPT',
};

/**
 * JAR-signed APKs named for another scheme whose whole-APK verdict does not show the v1 one
 * (apksigner rejects them, or their minSdk is 24 or more so it skips v1): the v1 verdict with
 * apksig's rules, first error code or `verified`.
 */
const V1_OF_OTHERS: Record<string, string> = {
  // `apksigner verify -v --min-sdk-version 23`: "Verified using v1 scheme (JAR signing): true".
  'v2-rsa-2048-with-extra-sig-block.apk': 'verified',
  // apksigner: "JAR signature META-INF/CERT.SF indicates the APK is signed using APK Signature
  // Scheme v2 but no such signature was found. Signature stripped?"
  'v2-stripped.apk': 'JAR_SIG_MISSING_APK_SIG_REFERENCED',
  'v2-stripped-with-ignorable-signing-schemes.apk': 'JAR_SIG_MISSING_APK_SIG_REFERENCED',
  // CERT.SF says `X-Android-APK-Signed: 2, 3` and there is no v3 block (only v3.1): stripped v3.
  // apksigner stops at v2's own stripping check first, so it prints v2's error, not this one.
  'v31-tgt-33-no-v3-block.apk': 'JAR_SIG_MISSING_APK_SIG_REFERENCED',
};

/** Not openable as a ZIP (apksig throws ApkFormatException before any scheme is tried). */
const NOT_A_VALID_ZIP = new Set(['v1v2v3-with-rsa-2048-lineage-3-signers-invalid-zip.apk']);

const expected = goldenPresent ? expectedVerdicts() : new Map<string, 'ACCEPT' | 'REJECT'>();
const jarSigned = (goldenPresent ? goldenFiles() : []).filter(
  (f) => /^v1/.test(f) || /^golden-.*v1/.test(f),
);

describeWithGolden(__filename, 'verifyV1 on apksig golden APKs', () => {
  it('covers the v1 acceptance set', () => {
    expect(jarSigned.filter((f) => f.startsWith('v1-only-')).length).toBe(84);
  });

  const verdictCases = jarSigned.filter((f) => !NOT_A_VALID_ZIP.has(f));
  it.each(verdictCases)('%s: v1 verdict matches apksigner', async (file) => {
    const want = V1_VERDICT_DIFFERS[file] ?? expected.get(file);
    const { result } = await verifyGolden(file);
    const detail = `${file}: errors ${JSON.stringify(result.errors)}`;
    expect({ detail, verified: result.verified }).toEqual({ detail, verified: want === 'ACCEPT' });
    if (result.verified) {
      expect(result.signers.length).toBeGreaterThan(0);
      for (const s of result.signers) {
        expect(s.sha256).toBe(
          createHash('sha256')
            .update(s.certificates[0] as Buffer)
            .digest('hex'),
        );
      }
    } else {
      expect(result.errors.length).toBeGreaterThan(0);
    }
  });

  // apksigner ran the JAR verifier on these (minSdk < 24) and accepted the APK, so the JAR
  // signature verified; APKs without one must say so; the rest are in V1_OF_OTHERS.
  const others = goldenFiles().filter((f) => !jarSigned.includes(f) && expected.has(f));
  it.each(others)(
    '%s: a JAR signature is absent, or verifies when apksigner relied on it',
    async (file) => {
      let run: Run;
      try {
        run = await verifyGolden(file);
      } catch (err) {
        // Not a readable APK (no AndroidManifest.xml, not a ZIP): apksig throws before v1 too.
        // verifyV1 itself never throws, so this can only be the ZIP or manifest reader.
        expect(err).toBeInstanceOf(ApkFormatError);
        return;
      }
      const { minSdk, result } = run;
      if (!result.present) {
        expect(codes(result)).toEqual([
          expect.stringMatching(/^JAR_SIG_NO_(MANIFEST|SIGNATURES)$/) as unknown as string,
        ]);
      } else if (expected.get(file) === 'ACCEPT' && minSdk < 24) {
        expect({ file, errors: result.errors }).toEqual({ file, errors: [] });
        expect(result.verified).toBe(true);
      } else {
        expect({ file, v1: codes(result)[0] ?? 'verified' }).toEqual({
          file,
          v1: V1_OF_OTHERS[file] ?? 'a row of V1_OF_OTHERS',
        });
      }
    },
  );

  it('V1_OF_OTHERS names only files of the corpus', () => {
    expect(Object.keys(V1_OF_OTHERS).filter((f) => !others.includes(f))).toEqual([]);
  });

  it.each([...NOT_A_VALID_ZIP])('%s: the ZIP reader refuses it before v1 runs', async (file) => {
    const source = await openFileSource(goldenPath(file));
    try {
      await expect(openZip(source)).rejects.toThrow();
    } finally {
      await source.close();
    }
  });

  it('reads minSdk as aapt does', async () => {
    for (const file of [
      'v1-only-with-rsa-2048.apk',
      'v1-only-no-uses-sdk.apk',
      'golden-rsa-minSdkVersion-18-out.apk',
    ]) {
      const fromReader = await withZip(file, async (zip) => (await manifestFromZip(zip)).minSdk);
      expect({ file, minSdk: fromReader }).toEqual({ file, minSdk: minSdkFromAapt(file) });
    }
  });
});

/** The platform-range cases of apksig's ApkVerifierTest.java, with the issue each expects. */
describeWithGolden(
  __filename,
  'verifyV1 on golden APKs across platform ranges (ApkVerifierTest)',
  () => {
    const N = 24;
    const cases: Array<[file: string, range: { minSdk?: number; maxSdk?: number }, want: string]> =
      [
        ['v1-only-11-signers.apk', {}, 'JAR_SIG_MAX_SIGNATURES_EXCEEDED'],
        ['v1-only-with-cr-in-entry-name.apk', {}, 'JAR_SIG_UNNNAMED_MANIFEST_SECTION'],
        ['v1-only-with-lf-in-entry-name.apk', {}, 'JAR_SIG_UNNNAMED_MANIFEST_SECTION'],
        [
          'v1-only-with-dsa-sha384-2.16.840.1.101.3.4.3.3-1024.apk',
          {},
          'JAR_SIG_UNSUPPORTED_SIG_ALG',
        ],
        [
          'v1-only-with-dsa-sha512-2.16.840.1.101.3.4.3.4-3072.apk',
          {},
          'JAR_SIG_UNSUPPORTED_SIG_ALG',
        ],
        // MD5 digest with md5WithRSA is supported on API 0-8 and 21+ only.
        [
          'v1-only-with-rsa-pkcs1-md5-1.2.840.113549.1.1.4-2048.apk',
          { minSdk: 18 },
          'JAR_SIG_UNSUPPORTED_SIG_ALG',
        ],
        ['v1-only-with-rsa-pkcs1-md5-1.2.840.113549.1.1.4-2048.apk', { minSdk: 21 }, 'verified'],
        ['v1-only-with-signed-attrs.apk', { minSdk: 18 }, 'JAR_SIG_VERIFY_EXCEPTION'],
        ['v1-only-with-signed-attrs.apk', { minSdk: 19 }, 'verified'],
        ['v1-only-with-signed-attrs-missing-content-type.apk', { maxSdk: N - 1 }, 'verified'],
        ['v1-only-with-signed-attrs-missing-content-type.apk', {}, 'JAR_SIG_VERIFY_EXCEPTION'],
        [
          'v1-only-with-signed-attrs-signerInfo1-missing-content-type-signerInfo2-good.apk',
          { maxSdk: N - 1 },
          'verified',
        ],
        [
          'v1-only-with-signed-attrs-signerInfo1-missing-content-type-signerInfo2-good.apk',
          {},
          'JAR_SIG_VERIFY_EXCEPTION',
        ],
        [
          'v1-only-with-signed-attrs-signerInfo1-wrong-content-type-signerInfo2-good.apk',
          { maxSdk: N - 1 },
          'verified',
        ],
        [
          'v1-only-with-signed-attrs-signerInfo1-wrong-content-type-signerInfo2-good.apk',
          { minSdk: N },
          'verified',
        ],
        [
          'v1-only-with-signed-attrs-signerInfo1-wrong-content-type-signerInfo2-good.apk',
          {},
          'JAR_SIG_DID_NOT_VERIFY',
        ],
        [
          'v1-only-with-signed-attrs-signerInfo1-missing-digest-signerInfo2-good.apk',
          { maxSdk: N - 1 },
          'JAR_SIG_VERIFY_EXCEPTION',
        ],
        [
          'v1-only-with-signed-attrs-signerInfo1-missing-digest-signerInfo2-good.apk',
          { minSdk: N },
          'JAR_SIG_VERIFY_EXCEPTION',
        ],
        [
          'v1-only-with-signed-attrs-multiple-good-digests.apk',
          { maxSdk: N - 1 },
          'JAR_SIG_PARSE_EXCEPTION',
        ],
        [
          'v1-only-with-signed-attrs-multiple-good-digests.apk',
          { minSdk: N },
          'JAR_SIG_PARSE_EXCEPTION',
        ],
        ['v1-only-with-signed-attrs-wrong-digest.apk', { maxSdk: N - 1 }, 'JAR_SIG_DID_NOT_VERIFY'],
        ['v1-only-with-signed-attrs-wrong-digest.apk', { minSdk: N }, 'JAR_SIG_DID_NOT_VERIFY'],
        [
          'v1-only-with-signed-attrs-signerInfo1-wrong-digest-signerInfo2-good.apk',
          { maxSdk: N - 1 },
          'JAR_SIG_DID_NOT_VERIFY',
        ],
        [
          'v1-only-with-signed-attrs-signerInfo1-wrong-digest-signerInfo2-good.apk',
          { minSdk: N },
          'verified',
        ],
        [
          'v1-sha1-sha256-manifest-and-sf-with-sha256-wrong-in-manifest.apk',
          {},
          'JAR_SIG_ZIP_ENTRY_DIGEST_DID_NOT_VERIFY',
        ],
        [
          'v1-sha1-sha256-manifest-and-sf-with-sha256-wrong-in-manifest.apk',
          { minSdk: 18 },
          'JAR_SIG_ZIP_ENTRY_DIGEST_DID_NOT_VERIFY',
        ],
        [
          'v1-sha1-sha256-manifest-and-sf-with-sha256-wrong-in-manifest.apk',
          { maxSdk: 17 },
          'verified',
        ],
        ['v2-stripped.apk', {}, 'JAR_SIG_MISSING_APK_SIG_REFERENCED'],
        [
          'v2-stripped-with-ignorable-signing-schemes.apk',
          {},
          'JAR_SIG_MISSING_APK_SIG_REFERENCED',
        ],
        // Stripping protection is an Android N feature.
        ['v2-stripped.apk', { maxSdk: N - 1 }, 'verified'],
        [
          'v1v2v3-with-rsa-2048-lineage-3-signers-no-sig-block.apk',
          {},
          'JAR_SIG_MISSING_APK_SIG_REFERENCED',
        ],
      ];
    it.each(cases)('%s %j: %s', async (file, range, want) => {
      const { result } = await verifyGolden(file, range);
      if (want === 'verified') {
        expect(codes(result)).toEqual([]);
        expect(result.verified).toBe(true);
      } else {
        expect(result.verified).toBe(false);
        expect(codes(result)).toContain(want);
      }
    });

    it('reports the stripped and declared scheme IDs', async () => {
      const { result } = await verifyGolden('v2-stripped-with-ignorable-signing-schemes.apk');
      expect(result.strippedSchemeIds).toEqual([2]);
      expect(result.declaredSchemeIds).toEqual([2, 15, 34]);
      expect(result.warnings.map((w) => w.code)).toEqual([
        'JAR_SIG_UNKNOWN_APK_SIG_SCHEME_ID',
        'JAR_SIG_UNKNOWN_APK_SIG_SCHEME_ID',
      ]);
    });

    it('uses the certificate the SignerInfo names, not the first one in the bag', async () => {
      const { result } = await verifyGolden('v1-only-pkcs7-cert-bag-first-cert-not-used.apk');
      expect(result.verified).toBe(true);
      expect(result.signers.map((s) => s.sha256)).toEqual([
        'fb5dbd3c669af9fc236c6991e6387b7f11ff0590997f22d0f5c74ff40e04fca8',
      ]);
    });

    it('accepts ten signers and reports each', async () => {
      const { result } = await verifyGolden('v1-only-10-signers.apk');
      expect(result.verified).toBe(true);
      expect(result.signers).toHaveLength(10);
      expect(new Set(result.signers.map((s) => s.name)).size).toBe(10);
    });

    it('keeps a certificate with a negative RSA modulus byte-for-byte', async () => {
      const { result } = await verifyGolden('v1v2v3-rsa-2048-negmod-in-cert.apk');
      expect(result.verified).toBe(true);
      const [signer] = result.signers;
      const stored = await withZip('v1v2v3-rsa-2048-negmod-in-cert.apk', async (zip) => {
        const entry = zip.entries.find((e) => e.name === signer?.signatureBlockFileName);
        return zip.readEntry(entry as (typeof zip.entries)[number], 1 << 20);
      });
      expect(stored.includes(signer?.certificates[0] as Buffer)).toBe(true);
    });
  },
);
