/**
 * Which digests Android checks at which API levels: manifest/.SF digest attributes
 * (jar-digests.ts) and PKCS #7 digest/signature OID pairs (signature-algorithms.ts).
 */
import {
  canonicalDigestAlgorithm,
  decodeBase64Strict,
  getDigestsToVerify,
} from '../../../../../shared/apk/v1/jar-digests';
import { parseManifest, type ManifestSection } from '../../../../../shared/apk/v1/manifest-parser';
import {
  DigestOid,
  SigOid,
  formatApiLevels,
  signatureSchemeFor,
  unsupportedApiLevels,
} from '../../../../../shared/apk/v1/signature-algorithms';

const MAX = 0x7fffffff;
const A = Buffer.from('digest-a').toString('base64');
const B = Buffer.from('digest-b').toString('base64');

function section(...lines: string[]): ManifestSection {
  const m = parseManifest(Buffer.from(`Name: x\n${lines.join('\n')}\n\n`));
  return m.mainSection as ManifestSection;
}

const summary = (s: ManifestSection, suffix: string, min: number, max: number): string[] =>
  getDigestsToVerify(s, suffix, min, max).map(
    (d) => `${d.algorithm}=${d.digest?.toString() ?? 'null'}`,
  );

describe('getDigestsToVerify', () => {
  it('from API 18 checks only the strongest digest present', () => {
    const s = section(`SHA1-Digest: ${A}`, `SHA-256-Digest: ${B}`);
    expect(summary(s, '-Digest', 18, MAX)).toEqual(['SHA-256=digest-b']);
    const all = section(`SHA1-Digest: ${A}`, `SHA-384-Digest: ${A}`, `SHA-512-Digest: ${B}`);
    expect(summary(all, '-Digest', 24, MAX)).toEqual(['SHA-512=digest-b']);
  });

  it('ignores MD5 and SHA-224 digests from API 18', () => {
    expect(summary(section(`MD5-Digest: ${A}`), '-Digest', 18, MAX)).toEqual([]);
    expect(summary(section(`SHA-224-Digest: ${A}`), '-Digest', 18, MAX)).toEqual([]);
  });

  it('before API 18 follows Digest-Algorithms, defaulting to "SHA SHA1"', () => {
    const s = section(`SHA1-Digest: ${A}`, `SHA-256-Digest: ${B}`);
    // Pre-JB-MR2 checks SHA-1; JB-MR2+ checks SHA-256: both must match over [1, MAX].
    expect(summary(s, '-Digest', 1, MAX)).toEqual(['SHA-1=digest-a', 'SHA-256=digest-b']);
    expect(summary(s, '-Digest', 1, 17)).toEqual(['SHA-1=digest-a']);
    expect(summary(section(`SHA-Digest: ${A}`), '-Digest', 9, 17)).toEqual(['SHA-1=digest-a']);
  });

  it('before API 18 a section with only SHA-256 but no Digest-Algorithms cannot verify', () => {
    expect(summary(section(`SHA-256-Digest: ${B}`), '-Digest', 17, MAX)).toEqual([]);
  });

  it('honours an explicit Digest-Algorithms list, skipping unsupported names', () => {
    const s = section(
      'Digest-Algorithms: SHA-224 MD5 SHA-256',
      `MD5-Digest: ${A}`,
      `SHA-256-Digest: ${B}`,
    );
    expect(summary(s, '-Digest', 1, 17)).toEqual(['MD5=digest-a']);
  });

  it('accepts SHA-384/SHA-512 in the legacy list only from Gingerbread (API 9)', () => {
    const s = section('Digest-Algorithms: SHA-512', `SHA-512-Digest: ${A}`);
    expect(summary(s, '-Digest', 8, 17)).toEqual([]);
    expect(summary(s, '-Digest', 9, 17)).toEqual(['SHA-512=digest-a']);
  });

  it('does not repeat a digest both rules pick with the same value', () => {
    const s = section('Digest-Algorithms: SHA-256', `SHA-256-Digest: ${B}`);
    expect(summary(s, '-Digest', 1, MAX)).toEqual(['SHA-256=digest-b']);
  });

  it('uses the given suffix (whole-manifest digests in .SF)', () => {
    const s = section(`SHA-256-Digest-Manifest: ${A}`, `SHA-256-Digest: ${B}`);
    expect(summary(s, '-Digest-Manifest', 24, MAX)).toEqual(['SHA-256=digest-a']);
  });

  it('keeps a malformed base64 digest as null so it can never match', () => {
    expect(summary(section('SHA-256-Digest: not*base64'), '-Digest', 24, MAX)).toEqual([
      'SHA-256=null',
    ]);
  });
});

describe('decodeBase64Strict / canonicalDigestAlgorithm', () => {
  it('decodes like Java Base64.getDecoder()', () => {
    expect(decodeBase64Strict('QUJD')?.toString()).toBe('ABC');
    expect(decodeBase64Strict('QUI=')?.toString()).toBe('AB');
    expect(decodeBase64Strict('QUI')?.toString()).toBe('AB');
    expect(decodeBase64Strict('')?.length).toBe(0);
    expect(decodeBase64Strict('QUI')).not.toBeNull();
    for (const bad of ['QU I=', 'QUI*', 'Q', 'QUI==', 'QU=I', 'QUJD\n']) {
      expect(decodeBase64Strict(bad)).toBeNull();
    }
  });

  it('maps manifest algorithm names', () => {
    expect(canonicalDigestAlgorithm('sha')).toBe('SHA-1');
    expect(canonicalDigestAlgorithm('SHA1')).toBe('SHA-1');
    expect(canonicalDigestAlgorithm('sha-256')).toBe('SHA-256');
    expect(canonicalDigestAlgorithm('SHA-224')).toBeUndefined();
    expect(canonicalDigestAlgorithm('SHA256')).toBeUndefined();
  });
});

describe('unsupportedApiLevels (apksig SUPPORTED_SIG_ALG_OIDS)', () => {
  const gaps = (d: string, s: string, min: number, max: number): string =>
    formatApiLevels(unsupportedApiLevels(d, s, min, max));

  it('accepts SHA-256 with DSA from API 21 but never SHA-384/SHA-512 with DSA', () => {
    expect(gaps(DigestOid.SHA256, SigOid.SHA256_WITH_DSA, 21, MAX)).toBe('');
    expect(gaps(DigestOid.SHA256, SigOid.SHA256_WITH_DSA, 18, MAX)).toBe('18-20');
    expect(gaps(DigestOid.SHA384, SigOid.SHA384_WITH_DSA, 23, MAX)).toBe('23+');
    expect(gaps(DigestOid.SHA512, SigOid.SHA512_WITH_DSA, 1, 30)).toBe('1-30');
  });

  it('reports every unsupported sub-range', () => {
    // MD5 with md5WithRSA: supported 0-8 and 21+.
    expect(gaps(DigestOid.MD5, SigOid.MD5_WITH_RSA, 1, MAX)).toBe('9-20');
    expect(gaps(DigestOid.MD5, SigOid.MD5_WITH_RSA, 21, MAX)).toBe('');
    // SHA-1 with sha224WithRSA: 21-23 only.
    expect(gaps(DigestOid.SHA1, SigOid.SHA224_WITH_RSA, 19, 30)).toBe('19-20, 24-30');
    expect(gaps(DigestOid.SHA224, SigOid.SHA256_WITH_RSA, 21, 21)).toBe('');
    expect(gaps(DigestOid.SHA224, SigOid.SHA256_WITH_RSA, 21, 22)).toBe('22');
  });

  it('supports ECDSA from API 18 (SHA-224 from 21)', () => {
    expect(gaps(DigestOid.SHA256, SigOid.EC_PUBLIC_KEY, 18, MAX)).toBe('');
    expect(gaps(DigestOid.SHA1, SigOid.EC_PUBLIC_KEY, 17, MAX)).toBe('17');
    expect(gaps(DigestOid.SHA224, SigOid.EC_PUBLIC_KEY, 18, MAX)).toBe('18-20');
  });

  it('treats unknown pairs as unsupported everywhere', () => {
    expect(gaps('1.2.3', SigOid.RSA, 24, MAX)).toBe('24+');
    expect(gaps(DigestOid.SHA256, '1.2.840.113549.1.1.10', 24, 24)).toBe('24');
  });
});

describe('signatureSchemeFor', () => {
  it('takes the digest from a combined signature OID, else from the digest OID', () => {
    expect(signatureSchemeFor(DigestOid.SHA1, SigOid.SHA256_WITH_RSA)).toEqual({
      keyFamily: 'rsa',
      hash: 'sha256',
    });
    expect(signatureSchemeFor(DigestOid.SHA384, SigOid.RSA)).toEqual({
      keyFamily: 'rsa',
      hash: 'sha384',
    });
    expect(signatureSchemeFor(DigestOid.SHA224, SigOid.DSA)).toEqual({
      keyFamily: 'dsa',
      hash: 'sha224',
    });
    expect(signatureSchemeFor(DigestOid.SHA512, SigOid.EC_PUBLIC_KEY)).toEqual({
      keyFamily: 'ec',
      hash: 'sha512',
    });
    expect(signatureSchemeFor(DigestOid.SHA256, '1.2.840.113549.1.1.10')).toBeUndefined();
  });
});
