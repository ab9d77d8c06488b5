/**
 * verifyV1's JAR rules on APKs signed by the test kit: entry coverage, manifest and .SF
 * digests, ignored signers, signer sets, stripping protection.
 */
import { createHash } from 'node:crypto';
import { verifyV1, type V1Result } from '../../../../../shared/apk/v1';
import {
  makeSigner,
  manifestFor,
  memoryZip,
  signJar,
  signatureBlock,
  sigFileFor,
  type Files,
  type TestSigner,
} from '../../../../helpers/apk/jar-signing-kit';

const ANY = 0x7fffffff;
const FILES: Files = [
  ['AndroidManifest.xml', Buffer.from('<manifest/>')],
  ['classes.dex', Buffer.alloc(5000, 7)],
  ['res/raw/a b.txt', Buffer.from('with a space')],
];

let rsa: TestSigner;
let ec: TestSigner;
beforeAll(() => {
  rsa = makeSigner('rsa');
  ec = makeSigner('ec');
});

function verify(files: Files, minSdk = 24, maxSdk = ANY, found: number[] = []): Promise<V1Result> {
  return verifyV1(memoryZip(files), { minSdk, maxSdk, foundSchemeIds: new Set(found) });
}
const codes = (issues: { code: string }[]): string[] => issues.map((i) => i.code);
const replaceEntry = (files: Files, name: string, data: Buffer): Files =>
  files.map(([n, d]) => [n, n === name ? data : d]);

describe('verifyV1 JAR rules', () => {
  it('verifies a well-formed JAR signature and reports the signer', async () => {
    const r = await verify(signJar(FILES, [rsa]));
    expect(codes(r.errors)).toEqual([]);
    expect(r).toMatchObject({ present: true, verified: true, warnings: [] });
    expect(r.signers).toEqual([
      {
        certificates: [rsa.certificate],
        sha256: createHash('sha256').update(rsa.certificate).digest('hex'),
        name: 'SIGNER.RSA',
        signatureFileName: 'META-INF/SIGNER.SF',
        signatureBlockFileName: 'META-INF/SIGNER.RSA',
      },
    ]);
  });

  it('verifies across the whole platform range when digests are SHA-256 only from API 18', async () => {
    expect((await verify(signJar(FILES, [ec]), 18)).verified).toBe(true);
    // Before JB MR2 Android looks only for SHA1-Digest attributes: with SHA-256 ones alone the
    // .SF sections cannot be checked (RSA with SHA-256 itself is fine on API 0-8).
    const old = await verify(signJar(FILES, [rsa]), 1, 8);
    expect(codes(old.errors)).toEqual(FILES.map(() => 'JAR_SIG_NO_ZIP_ENTRY_DIGEST_IN_SIG_FILE'));
    expect(codes(old.warnings)).toEqual(['JAR_SIG_NO_MANIFEST_DIGEST_IN_SIG_FILE']);
    // API 9-17 do not support SHA-256 with RSA in PKCS #7 at all.
    expect(codes((await verify(signJar(FILES, [rsa]), 9, 30)).errors)).toEqual([
      'JAR_SIG_UNSUPPORTED_SIG_ALG',
    ]);
  });

  it('rejects a modified entry', async () => {
    const files = replaceEntry(signJar(FILES, [rsa]), 'classes.dex', Buffer.alloc(5000, 8));
    const r = await verify(files);
    expect(r.verified).toBe(false);
    expect(codes(r.errors)).toEqual(['JAR_SIG_ZIP_ENTRY_DIGEST_DID_NOT_VERIFY']);
    expect(r.signers).toEqual([]);
  });

  it('rejects an entry the manifest does not cover', async () => {
    const r = await verify([...signJar(FILES, [rsa]), ['extra.so', Buffer.from('x')]]);
    expect(codes(r.errors)).toEqual(['JAR_SIG_NO_ZIP_ENTRY_DIGEST_IN_MANIFEST']);
  });

  it('warns about unprotected META-INF files and ignores directory entries', async () => {
    const r = await verify([
      ...signJar(FILES, [rsa]),
      ['META-INF/extra.txt', Buffer.from('x')],
      ['assets/', Buffer.alloc(0)],
    ]);
    expect(r.verified).toBe(true);
    expect(codes(r.warnings)).toEqual(['JAR_SIG_UNPROTECTED_ZIP_ENTRY']);
  });

  it('rejects duplicate entry names', async () => {
    const files = signJar(FILES, [rsa]);
    const r = await verify([...files, files[0] as [string, Buffer]]);
    expect(codes(r.errors)).toEqual(['JAR_SIG_DUPLICATE_ZIP_ENTRY']);
  });

  it('needs a manifest and at least one signature block with its .SF', async () => {
    expect(await verify(FILES)).toMatchObject({ present: false, verified: false });
    expect(codes((await verify(FILES)).errors)).toEqual(['JAR_SIG_NO_MANIFEST']);
    const signed = signJar(FILES, [rsa]);
    const noManifest = await verify(signed.filter(([n]) => n !== 'META-INF/MANIFEST.MF'));
    expect(noManifest.present).toBe(true);
    expect(codes(noManifest.errors)).toEqual(['JAR_SIG_NO_MANIFEST']);
    const noSf = await verify(signed.filter(([n]) => !n.endsWith('.SF')));
    expect(codes(noSf.warnings)).toEqual(['JAR_SIG_MISSING_FILE']);
    expect(codes(noSf.errors)).toEqual(['JAR_SIG_NO_SIGNATURES']);
  });

  it('rejects manifest sections for missing entries', async () => {
    const files = signJar(FILES, [rsa], {
      editManifest: (t) => `${t}Name: gone.txt\r\nSHA-256-Digest: AAAA\r\n\r\n`,
    });
    expect(codes((await verify(files)).errors)).toEqual([
      'JAR_SIG_MISSING_ZIP_ENTRY_REFERENCED_IN_MANIFEST',
    ]);
  });

  it('ignores a signer whose .SF lacks Signature-Version', async () => {
    const edit = (t: string): string => t.replace('Signature-Version: 1.0\r\n', '');
    const alone = await verify(signJar(FILES, [rsa], { editSigFile: edit }));
    expect(codes(alone.errors)).toEqual(['JAR_SIG_NO_SIGNATURES']);
    expect(codes(alone.warnings)).toEqual(['JAR_SIG_MISSING_VERSION_ATTR_IN_SIG_FILE']);
    // With a second, valid signer the APK verifies with that signer only.
    const good = signJar(FILES, [rsa]);
    const bad = signJar(FILES, [ec], { signerName: 'OTHER', editSigFile: edit }).filter(([n]) =>
      n.startsWith('META-INF/OTHER'),
    );
    const both = await verify([...good, ...bad]);
    expect(both.verified).toBe(true);
    expect(both.signers.map((s) => s.name)).toEqual(['SIGNER.RSA']);
  });

  it('falls back to per-section digests when the whole-manifest digest does not match', async () => {
    const wrongWhole = (t: string): string =>
      t.replace(/SHA-256-Digest-Manifest: [^\r]+/, 'SHA-256-Digest-Manifest: AAAA');
    const r = await verify(signJar(FILES, [rsa], { editSigFile: wrongWhole }));
    expect(r.verified).toBe(true);
    expect(codes(r.warnings)).toEqual(['JAR_SIG_ZIP_ENTRY_DIGEST_DID_NOT_VERIFY']);
    const wrongSection = (t: string): string =>
      wrongWhole(t).replace(/(Name: classes.dex\r\nSHA-256-Digest: )[^\r]+/, '$1AAAA');
    const bad = await verify(signJar(FILES, [rsa], { editSigFile: wrongSection }));
    expect(codes(bad.errors)).toEqual(['JAR_SIG_MANIFEST_SECTION_DIGEST_DID_NOT_VERIFY']);
  });

  it('rejects a wrong digest of the manifest main section', async () => {
    const edit = (t: string): string => t.replace(/(Main-Attributes: )[^\r]+/, '$1AAAA');
    expect(codes((await verify(signJar(FILES, [rsa], { editSigFile: edit }))).errors)).toEqual([
      'JAR_SIG_MANIFEST_MAIN_SECTION_DIGEST_DID_NOT_VERIFY',
    ]);
  });

  it('rejects malformed base64 in a .SF digest, where apksig would throw', async () => {
    const edit = (t: string): string => t.replace(/(Main-Attributes: )[^\r]+/, '$1!!!!');
    expect(codes((await verify(signJar(FILES, [rsa], { editSigFile: edit }))).errors)).toContain(
      'JAR_SIG_MALFORMED_DIGEST',
    );
  });

  it('accepts signtool-style signature files', async () => {
    const edit = (t: string): string =>
      t
        .replace('Created-By: kit', 'Created-By: 1.0 (signtool)')
        .replace('SHA-256-Digest-Manifest:', 'SHA-256-Digest:');
    expect((await verify(signJar(FILES, [rsa], { editSigFile: edit }))).verified).toBe(true);
  });

  it('requires every entry to be listed by the same signers', async () => {
    const dropDex = (t: string): string => t.replace(/Name: classes.dex\r\n[^\r]+\r\n\r\n/, '');
    expect(codes((await verify(signJar(FILES, [rsa], { editSigFile: dropDex }))).errors)).toEqual([
      'JAR_SIG_ZIP_ENTRY_NOT_SIGNED',
    ]);
    const manifest = manifestFor(FILES);
    const partialSf = Buffer.from(dropDex(sigFileFor(manifest)));
    const files: Files = [
      ...signJar(FILES, [rsa]),
      ['META-INF/PARTIAL.SF', partialSf],
      ['META-INF/PARTIAL.EC', signatureBlock(partialSf, ec)],
    ];
    expect(codes((await verify(files)).errors)).toEqual(['JAR_SIG_ZIP_ENTRY_SIGNERS_MISMATCH']);
  });

  it('refuses more than ten signers', async () => {
    const files = signJar(
      FILES,
      Array.from({ length: 11 }, () => ec),
    );
    expect(codes((await verify(files)).errors)).toEqual(['JAR_SIG_MAX_SIGNATURES_EXCEEDED']);
    expect(
      (
        await verify(
          signJar(
            FILES,
            Array.from({ length: 10 }, () => ec),
          ),
        )
      ).signers,
    ).toHaveLength(10);
  });

  describe('X-Android-APK-Signed (stripping protection)', () => {
    const declared = (ids: string): Files =>
      signJar(FILES, [rsa], { sfMainLines: [`X-Android-APK-Signed: ${ids}`] });

    it('rejects when a declared, known scheme was not found', async () => {
      const r = await verify(declared('2'));
      expect(codes(r.errors)).toEqual(['JAR_SIG_MISSING_APK_SIG_REFERENCED']);
      expect(r).toMatchObject({ strippedSchemeIds: [2], declaredSchemeIds: [2] });
      expect((await verify(declared('2'), 24, ANY, [2])).verified).toBe(true);
    });

    it('checks only schemes the platform range knows, from Android N', async () => {
      expect((await verify(declared('2, 3'), 21, 23)).verified).toBe(true);
      const r = await verify(declared('2, 3, x, 99'), 24, 27, [2]);
      expect(r.verified).toBe(true);
      expect(codes(r.warnings)).toEqual([
        'JAR_SIG_UNKNOWN_APK_SIG_SCHEME_ID',
        'JAR_SIG_UNKNOWN_APK_SIG_SCHEME_ID',
      ]);
      expect(r.declaredSchemeIds).toEqual([2, 3, 99]);
      expect(codes((await verify(declared('2, 3'), 24, ANY, [2])).errors)).toEqual([
        'JAR_SIG_MISSING_APK_SIG_REFERENCED',
      ]);
    });

    it('warns when a v2+ signature exists but the JAR signature does not declare it', async () => {
      const r = await verify(signJar(FILES, [rsa]), 24, ANY, [2]);
      expect(r.verified).toBe(true);
      expect(codes(r.warnings)).toEqual(['JAR_SIG_NO_APK_SIG_STRIP_PROTECTION']);
    });
  });

  it('refuses an inverted SDK range', async () => {
    expect(codes((await verify(signJar(FILES, [rsa]), 30, 20)).errors)).toEqual([
      'JAR_SIG_INVALID_SDK_RANGE',
    ]);
  });
});
