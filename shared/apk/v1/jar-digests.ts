/**
 * Which digests in a manifest or .SF section Android checks, by platform version; a port of
 * apksig `V1SchemeVerifier.getDigestsToVerify`.
 *
 * - Before Jelly Bean MR2 (API 18), Android walks the whitespace-separated
 *   `Digest-Algorithms` attribute (default "SHA SHA1") and checks the first `<alg><suffix>`
 *   attribute whose algorithm it supports (MD5, SHA-1, SHA-256; SHA-384/512 from API 9).
 *   If none is found the section can never verify there, and nothing is returned.
 * - From API 18 on, it checks only the strongest of SHA-512, SHA-384, SHA-256, SHA-1 present.
 *
 * Every returned digest must match for the section to verify across [minSdk, maxSdk].
 */
import { attributeValue, type ManifestSection } from './manifest-parser';
import { SdkVersion } from './sdk-versions';

export type JarDigestAlgorithm = 'MD5' | 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512';

export interface NamedDigest {
  readonly algorithm: JarDigestAlgorithm;
  /** The expected digest; null when the attribute is not valid base64 (never matches). */
  readonly digest: Buffer | null;
}

const CANONICAL: ReadonlyMap<string, JarDigestAlgorithm> = new Map([
  ['MD5', 'MD5'],
  ['SHA', 'SHA-1'],
  ['SHA1', 'SHA-1'],
  ['SHA-1', 'SHA-1'],
  ['SHA-256', 'SHA-256'],
  ['SHA-384', 'SHA-384'],
  ['SHA-512', 'SHA-512'],
]);

const MIN_SDK_SUPPORTED_IN_MANIFEST: Readonly<Record<JarDigestAlgorithm, number>> = {
  MD5: 0,
  'SHA-1': 0,
  'SHA-256': 0,
  'SHA-384': SdkVersion.GINGERBREAD,
  'SHA-512': SdkVersion.GINGERBREAD,
};

const JB_MR2_AND_NEWER_DIGEST_ALGS: readonly JarDigestAlgorithm[] = [
  'SHA-512',
  'SHA-384',
  'SHA-256',
  'SHA-1',
];

const NODE_HASH_NAMES: Readonly<Record<JarDigestAlgorithm, string>> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
};

export function nodeHashName(algorithm: JarDigestAlgorithm): string {
  return NODE_HASH_NAMES[algorithm];
}

/** Digest algorithm named in a manifest (case-insensitive, "SHA" meaning SHA-1), if supported. */
export function canonicalDigestAlgorithm(name: string): JarDigestAlgorithm | undefined {
  return CANONICAL.get(name.toUpperCase());
}

/** Java's basic Base64 decoder: the standard alphabet, padding optional, nothing else allowed. */
export function decodeBase64Strict(text: string): Buffer | null {
  if (!/^[A-Za-z0-9+/]*(?:={1,2})?$/.test(text)) return null;
  const body = text.replace(/=+$/, '');
  if (body.length % 4 === 1) return null;
  if (text.length !== body.length && text.length % 4 !== 0) return null;
  return Buffer.from(body, 'base64');
}

function jarDigestAttributeName(algorithm: JarDigestAlgorithm, suffix: string): string {
  return algorithm === 'SHA-1' ? `SHA1${suffix}` : `${algorithm}${suffix}`;
}

export function getDigestsToVerify(
  section: ManifestSection,
  digestAttrSuffix: string,
  minSdk: number,
  maxSdk: number,
): NamedDigest[] {
  const result: NamedDigest[] = [];
  if (minSdk < SdkVersion.JELLY_BEAN_MR2) {
    const algs = attributeValue(section, 'Digest-Algorithms') ?? 'SHA SHA1';
    for (const token of algs.split(/[ \t\n\r\f]+/)) {
      if (token.length === 0) continue;
      const digestBase64 = attributeValue(section, `${token}${digestAttrSuffix}`);
      if (digestBase64 === null) continue;
      const algorithm = canonicalDigestAlgorithm(token);
      if (algorithm === undefined || MIN_SDK_SUPPORTED_IN_MANIFEST[algorithm] > minSdk) continue;
      result.push({ algorithm, digest: decodeBase64Strict(digestBase64) });
      break;
    }
    if (result.length === 0) return result;
  }
  if (maxSdk >= SdkVersion.JELLY_BEAN_MR2) {
    for (const algorithm of JB_MR2_AND_NEWER_DIGEST_ALGS) {
      const digestBase64 = attributeValue(
        section,
        jarDigestAttributeName(algorithm, digestAttrSuffix),
      );
      if (digestBase64 === null) continue;
      const digest = decodeBase64Strict(digestBase64);
      const already = result.find((d) => d.algorithm === algorithm);
      if (already === undefined || !sameDigest(already.digest, digest)) {
        result.push({ algorithm, digest });
      }
      break;
    }
  }
  return result;
}

function sameDigest(a: Buffer | null, b: Buffer | null): boolean {
  return a !== null && b !== null && a.equals(b);
}

/** Whether an expected digest equals the computed one (a malformed expectation never does). */
export function digestMatches(expected: NamedDigest, actual: Buffer): boolean {
  return expected.digest !== null && expected.digest.equals(actual);
}
