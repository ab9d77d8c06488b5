/**
 * Which (digest algorithm, signature algorithm) OID pairs of a PKCS #7 SignerInfo Android
 * accepts at which API levels, and how to verify them with node:crypto. Ported from apksig
 * `internal/oid/OidConstants.java` (SUPPORTED_SIG_ALG_OIDS) and `V1SchemeVerifier`
 * (getJcaSignatureAlgorithm). A pair outside the table, or a desired API-level range not fully
 * covered by it, is JAR_SIG_UNSUPPORTED_SIG_ALG: e.g. DSA with SHA-384 is never supported.
 */

export const DigestOid = {
  MD5: '1.2.840.113549.2.5',
  SHA1: '1.3.14.3.2.26',
  SHA224: '2.16.840.1.101.3.4.2.4',
  SHA256: '2.16.840.1.101.3.4.2.1',
  SHA384: '2.16.840.1.101.3.4.2.2',
  SHA512: '2.16.840.1.101.3.4.2.3',
} as const;

export const SigOid = {
  RSA: '1.2.840.113549.1.1.1',
  MD5_WITH_RSA: '1.2.840.113549.1.1.4',
  SHA1_WITH_RSA: '1.2.840.113549.1.1.5',
  SHA224_WITH_RSA: '1.2.840.113549.1.1.14',
  SHA256_WITH_RSA: '1.2.840.113549.1.1.11',
  SHA384_WITH_RSA: '1.2.840.113549.1.1.12',
  SHA512_WITH_RSA: '1.2.840.113549.1.1.13',
  DSA: '1.2.840.10040.4.1',
  SHA1_WITH_DSA: '1.2.840.10040.4.3',
  SHA224_WITH_DSA: '2.16.840.1.101.3.4.3.1',
  SHA256_WITH_DSA: '2.16.840.1.101.3.4.3.2',
  SHA384_WITH_DSA: '2.16.840.1.101.3.4.3.3',
  SHA512_WITH_DSA: '2.16.840.1.101.3.4.3.4',
  EC_PUBLIC_KEY: '1.2.840.10045.2.1',
  SHA1_WITH_ECDSA: '1.2.840.10045.4.1',
  SHA224_WITH_ECDSA: '1.2.840.10045.4.3.1',
  SHA256_WITH_ECDSA: '1.2.840.10045.4.3.2',
  SHA384_WITH_ECDSA: '1.2.840.10045.4.3.3',
  SHA512_WITH_ECDSA: '1.2.840.10045.4.3.4',
} as const;

/** An inclusive range of API levels; `max` may be Infinity. */
export interface ApiLevelRange {
  readonly min: number;
  readonly max: number;
}

const ALL = Infinity;
const from = (min: number): ApiLevelRange => ({ min, max: ALL });
const fromTo = (min: number, max: number): ApiLevelRange => ({ min, max });
const L = fromTo(21, 23); // "Lollipop to Marshmallow only": the most common entry below.

type Row = readonly [digest: string, sig: string, ...ranges: ApiLevelRange[]];

const D = DigestOid;
const S = SigOid;
const ROWS: readonly Row[] = [
  [D.MD5, S.RSA, from(0)],
  [D.MD5, S.MD5_WITH_RSA, fromTo(0, 8), from(21)],
  [D.MD5, S.SHA1_WITH_RSA, L],
  [D.MD5, S.SHA224_WITH_RSA, L],
  [D.MD5, S.SHA256_WITH_RSA, L],
  [D.MD5, S.SHA384_WITH_RSA, L],
  [D.MD5, S.SHA512_WITH_RSA, L],
  [D.SHA1, S.RSA, from(0)],
  [D.SHA1, S.MD5_WITH_RSA, L],
  [D.SHA1, S.SHA1_WITH_RSA, from(0)],
  [D.SHA1, S.SHA224_WITH_RSA, L],
  [D.SHA1, S.SHA256_WITH_RSA, L],
  [D.SHA1, S.SHA384_WITH_RSA, L],
  [D.SHA1, S.SHA512_WITH_RSA, L],
  [D.SHA224, S.RSA, fromTo(0, 8), from(21)],
  [D.SHA224, S.MD5_WITH_RSA, L],
  [D.SHA224, S.SHA1_WITH_RSA, L],
  [D.SHA224, S.SHA224_WITH_RSA, fromTo(0, 8), from(21)],
  [D.SHA224, S.SHA256_WITH_RSA, fromTo(21, 21)],
  [D.SHA224, S.SHA384_WITH_RSA, L],
  [D.SHA224, S.SHA512_WITH_RSA, L],
  [D.SHA256, S.RSA, fromTo(0, 8), from(18)],
  [D.SHA256, S.MD5_WITH_RSA, L],
  [D.SHA256, S.SHA1_WITH_RSA, fromTo(21, 21)],
  [D.SHA256, S.SHA224_WITH_RSA, L],
  [D.SHA256, S.SHA256_WITH_RSA, fromTo(0, 8), from(18)],
  [D.SHA256, S.SHA384_WITH_RSA, L],
  [D.SHA256, S.SHA512_WITH_RSA, L],
  [D.SHA384, S.RSA, from(18)],
  [D.SHA384, S.MD5_WITH_RSA, L],
  [D.SHA384, S.SHA1_WITH_RSA, L],
  [D.SHA384, S.SHA224_WITH_RSA, L],
  [D.SHA384, S.SHA256_WITH_RSA, L],
  [D.SHA384, S.SHA384_WITH_RSA, from(21)],
  [D.SHA384, S.SHA512_WITH_RSA, L],
  [D.SHA512, S.RSA, from(18)],
  [D.SHA512, S.MD5_WITH_RSA, L],
  [D.SHA512, S.SHA1_WITH_RSA, L],
  [D.SHA512, S.SHA224_WITH_RSA, L],
  [D.SHA512, S.SHA256_WITH_RSA, L],
  [D.SHA512, S.SHA384_WITH_RSA, fromTo(21, 21)],
  [D.SHA512, S.SHA512_WITH_RSA, from(21)],

  [D.MD5, S.SHA1_WITH_DSA, L],
  [D.MD5, S.SHA224_WITH_DSA, L],
  [D.MD5, S.SHA256_WITH_DSA, L],
  [D.SHA1, S.DSA, from(0)],
  [D.SHA1, S.SHA1_WITH_DSA, from(9)],
  [D.SHA1, S.SHA224_WITH_DSA, L],
  [D.SHA1, S.SHA256_WITH_DSA, L],
  [D.SHA224, S.DSA, from(22)],
  [D.SHA224, S.SHA1_WITH_DSA, L],
  [D.SHA224, S.SHA224_WITH_DSA, from(21)],
  [D.SHA224, S.SHA256_WITH_DSA, L],
  [D.SHA256, S.DSA, from(22)],
  [D.SHA256, S.SHA1_WITH_DSA, L],
  [D.SHA256, S.SHA224_WITH_DSA, L],
  [D.SHA256, S.SHA256_WITH_DSA, from(21)],
  [D.SHA384, S.SHA1_WITH_DSA, L],
  [D.SHA384, S.SHA224_WITH_DSA, L],
  [D.SHA384, S.SHA256_WITH_DSA, L],
  [D.SHA512, S.SHA1_WITH_DSA, L],
  [D.SHA512, S.SHA224_WITH_DSA, L],
  [D.SHA512, S.SHA256_WITH_DSA, L],

  [D.SHA1, S.EC_PUBLIC_KEY, from(18)],
  [D.SHA224, S.EC_PUBLIC_KEY, from(21)],
  [D.SHA256, S.EC_PUBLIC_KEY, from(18)],
  [D.SHA384, S.EC_PUBLIC_KEY, from(18)],
  [D.SHA512, S.EC_PUBLIC_KEY, from(18)],
  [D.MD5, S.SHA1_WITH_ECDSA, L],
  [D.MD5, S.SHA224_WITH_ECDSA, L],
  [D.MD5, S.SHA256_WITH_ECDSA, L],
  [D.MD5, S.SHA384_WITH_ECDSA, L],
  [D.MD5, S.SHA512_WITH_ECDSA, L],
  [D.SHA1, S.SHA1_WITH_ECDSA, from(18)],
  [D.SHA1, S.SHA224_WITH_ECDSA, L],
  [D.SHA1, S.SHA256_WITH_ECDSA, L],
  [D.SHA1, S.SHA384_WITH_ECDSA, L],
  [D.SHA1, S.SHA512_WITH_ECDSA, L],
  [D.SHA224, S.SHA1_WITH_ECDSA, L],
  [D.SHA224, S.SHA224_WITH_ECDSA, from(21)],
  [D.SHA224, S.SHA256_WITH_ECDSA, L],
  [D.SHA224, S.SHA384_WITH_ECDSA, L],
  [D.SHA224, S.SHA512_WITH_ECDSA, L],
  [D.SHA256, S.SHA1_WITH_ECDSA, L],
  [D.SHA256, S.SHA224_WITH_ECDSA, L],
  [D.SHA256, S.SHA256_WITH_ECDSA, from(21)],
  [D.SHA256, S.SHA384_WITH_ECDSA, L],
  [D.SHA256, S.SHA512_WITH_ECDSA, L],
  [D.SHA384, S.SHA1_WITH_ECDSA, L],
  [D.SHA384, S.SHA224_WITH_ECDSA, L],
  [D.SHA384, S.SHA256_WITH_ECDSA, L],
  [D.SHA384, S.SHA384_WITH_ECDSA, from(21)],
  [D.SHA384, S.SHA512_WITH_ECDSA, L],
  [D.SHA512, S.SHA1_WITH_ECDSA, L],
  [D.SHA512, S.SHA224_WITH_ECDSA, L],
  [D.SHA512, S.SHA256_WITH_ECDSA, L],
  [D.SHA512, S.SHA384_WITH_ECDSA, L],
  [D.SHA512, S.SHA512_WITH_ECDSA, from(21)],
];

const SUPPORTED = new Map<string, readonly ApiLevelRange[]>(
  ROWS.map(([digest, sig, ...ranges]) => [`${digest} with ${sig}`, ranges]),
);

/** API levels in [minSdk, maxSdk] where this pair is not supported (empty = supported everywhere). */
export function unsupportedApiLevels(
  digestOid: string,
  sigOid: string,
  minSdk: number,
  maxSdk: number,
): ApiLevelRange[] {
  const supported = [...(SUPPORTED.get(`${digestOid} with ${sigOid}`) ?? [])].sort(
    (a, b) => a.min - b.min,
  );
  const gaps: ApiLevelRange[] = [];
  let next = minSdk;
  for (const r of supported) {
    if (next > maxSdk) break;
    if (r.max < next) continue;
    if (r.min > next) gaps.push({ min: next, max: Math.min(r.min - 1, maxSdk) });
    if (r.max === ALL) return gaps;
    next = r.max + 1;
  }
  if (next <= maxSdk) gaps.push({ min: next, max: maxSdk });
  return gaps;
}

/** Like apksig's message: "21", "18-20", "24+" (Integer.MAX_VALUE counts as open-ended). */
export function formatApiLevels(ranges: readonly ApiLevelRange[]): string {
  const open = (max: number): boolean => max >= 0x7fffffff;
  return ranges
    .map((r) => (r.min === r.max ? `${r.min}` : open(r.max) ? `${r.min}+` : `${r.min}-${r.max}`))
    .join(', ');
}

/** node:crypto digest names for the digest OIDs apksig knows. */
const DIGEST_NAMES = new Map<string, string>([
  [D.MD5, 'md5'],
  [D.SHA1, 'sha1'],
  [D.SHA224, 'sha224'],
  [D.SHA256, 'sha256'],
  [D.SHA384, 'sha384'],
  [D.SHA512, 'sha512'],
]);

export function digestNameForOid(oid: string): string | undefined {
  return DIGEST_NAMES.get(oid);
}

export type KeyFamily = 'rsa' | 'dsa' | 'ec';

export interface SignatureScheme {
  readonly keyFamily: KeyFamily;
  /** node:crypto digest name. */
  readonly hash: string;
}

/** Signature OIDs that fix the digest themselves (apksig OID_TO_JCA_SIGNATURE_ALG). */
const SIGNATURE_SCHEMES = new Map<string, SignatureScheme>([
  [S.MD5_WITH_RSA, { keyFamily: 'rsa', hash: 'md5' }],
  [S.SHA1_WITH_RSA, { keyFamily: 'rsa', hash: 'sha1' }],
  [S.SHA224_WITH_RSA, { keyFamily: 'rsa', hash: 'sha224' }],
  [S.SHA256_WITH_RSA, { keyFamily: 'rsa', hash: 'sha256' }],
  [S.SHA384_WITH_RSA, { keyFamily: 'rsa', hash: 'sha384' }],
  [S.SHA512_WITH_RSA, { keyFamily: 'rsa', hash: 'sha512' }],
  [S.SHA1_WITH_DSA, { keyFamily: 'dsa', hash: 'sha1' }],
  [S.SHA224_WITH_DSA, { keyFamily: 'dsa', hash: 'sha224' }],
  [S.SHA256_WITH_DSA, { keyFamily: 'dsa', hash: 'sha256' }],
  [S.SHA1_WITH_ECDSA, { keyFamily: 'ec', hash: 'sha1' }],
  [S.SHA224_WITH_ECDSA, { keyFamily: 'ec', hash: 'sha224' }],
  [S.SHA256_WITH_ECDSA, { keyFamily: 'ec', hash: 'sha256' }],
  [S.SHA384_WITH_ECDSA, { keyFamily: 'ec', hash: 'sha384' }],
  [S.SHA512_WITH_ECDSA, { keyFamily: 'ec', hash: 'sha512' }],
]);

/** Key-only OIDs take their digest from the SignerInfo's digestAlgorithm. */
const KEY_ONLY_OIDS = new Map<string, KeyFamily>([
  [S.RSA, 'rsa'],
  [S.DSA, 'dsa'],
  [S.EC_PUBLIC_KEY, 'ec'],
]);

/** How to verify the signature of a SignerInfo, or undefined when unsupported. */
export function signatureSchemeFor(digestOid: string, sigOid: string): SignatureScheme | undefined {
  const direct = SIGNATURE_SCHEMES.get(sigOid);
  if (direct !== undefined) return direct;
  const keyFamily = KEY_ONLY_OIDS.get(sigOid);
  const hash = DIGEST_NAMES.get(digestOid);
  return keyFamily !== undefined && hash !== undefined ? { keyFamily, hash } : undefined;
}
