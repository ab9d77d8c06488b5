/**
 * The APK Signature Scheme v2/v3 signature algorithms and the choice of which signatures Android
 * verifies. Port of AOSP apksig `internal/apk/SignatureAlgorithm.java`,
 * `ContentDigestAlgorithm.java` and `ApkSigningBlockUtilsLite.getSignaturesToVerify` /
 * `compareSignatureAlgorithm`. Signatures are checked with node:crypto.
 */
import { constants, verify, type KeyObject } from 'node:crypto';

export type ContentDigestAlgorithm = 'CHUNKED_SHA256' | 'CHUNKED_SHA512' | 'VERITY_CHUNKED_SHA256';

export interface SignatureAlgorithm {
  readonly id: number;
  readonly name: string;
  readonly digest: ContentDigestAlgorithm;
  /** node:crypto hash name. */
  readonly hash: 'sha256' | 'sha512';
  /** Key type node:crypto must report for the public key. */
  readonly keyType: 'rsa' | 'ec' | 'dsa';
  /** RSA-PSS salt length, when PSS. */
  readonly pssSaltLength?: number;
  /** First Android API level that verifies this algorithm. */
  readonly minSdk: number;
}

const N = 24;
const P = 28;

const ALGORITHMS: readonly SignatureAlgorithm[] = [
  {
    id: 0x0101,
    name: 'RSA_PSS_WITH_SHA256',
    digest: 'CHUNKED_SHA256',
    hash: 'sha256',
    keyType: 'rsa',
    pssSaltLength: 32,
    minSdk: N,
  },
  {
    id: 0x0102,
    name: 'RSA_PSS_WITH_SHA512',
    digest: 'CHUNKED_SHA512',
    hash: 'sha512',
    keyType: 'rsa',
    pssSaltLength: 64,
    minSdk: N,
  },
  {
    id: 0x0103,
    name: 'RSA_PKCS1_V1_5_WITH_SHA256',
    digest: 'CHUNKED_SHA256',
    hash: 'sha256',
    keyType: 'rsa',
    minSdk: N,
  },
  {
    id: 0x0104,
    name: 'RSA_PKCS1_V1_5_WITH_SHA512',
    digest: 'CHUNKED_SHA512',
    hash: 'sha512',
    keyType: 'rsa',
    minSdk: N,
  },
  {
    id: 0x0201,
    name: 'ECDSA_WITH_SHA256',
    digest: 'CHUNKED_SHA256',
    hash: 'sha256',
    keyType: 'ec',
    minSdk: N,
  },
  {
    id: 0x0202,
    name: 'ECDSA_WITH_SHA512',
    digest: 'CHUNKED_SHA512',
    hash: 'sha512',
    keyType: 'ec',
    minSdk: N,
  },
  {
    id: 0x0301,
    name: 'DSA_WITH_SHA256',
    digest: 'CHUNKED_SHA256',
    hash: 'sha256',
    keyType: 'dsa',
    minSdk: N,
  },
  {
    id: 0x0421,
    name: 'VERITY_RSA_PKCS1_V1_5_WITH_SHA256',
    digest: 'VERITY_CHUNKED_SHA256',
    hash: 'sha256',
    keyType: 'rsa',
    minSdk: P,
  },
  {
    id: 0x0423,
    name: 'VERITY_ECDSA_WITH_SHA256',
    digest: 'VERITY_CHUNKED_SHA256',
    hash: 'sha256',
    keyType: 'ec',
    minSdk: P,
  },
  {
    id: 0x0425,
    name: 'VERITY_DSA_WITH_SHA256',
    digest: 'VERITY_CHUNKED_SHA256',
    hash: 'sha256',
    keyType: 'dsa',
    minSdk: P,
  },
];

export function findAlgorithm(id: number): SignatureAlgorithm | undefined {
  return ALGORITHMS.find((a) => a.id === id);
}

/** Preference between content digests: SHA-512 > verity SHA-256 > SHA-256. */
const DIGEST_RANK: Record<ContentDigestAlgorithm, number> = {
  CHUNKED_SHA256: 0,
  VERITY_CHUNKED_SHA256: 1,
  CHUNKED_SHA512: 2,
};

export interface SupportedSignature {
  readonly algorithm: SignatureAlgorithm;
  readonly signature: Buffer;
}

/**
 * The signatures Android verifies somewhere in [minSdk, maxSdk]: per algorithm min-SDK, the
 * strongest one. Returns `null` when some platform version in the range has none
 * (apksig's NoSupportedSignaturesException).
 */
export function signaturesToVerify(
  signatures: readonly SupportedSignature[],
  minSdk: number,
  maxSdk: number,
): SupportedSignature[] | null {
  const best = new Map<number, SupportedSignature>();
  let minProvided = Number.MAX_SAFE_INTEGER;
  for (const sig of signatures) {
    const sigMin = sig.algorithm.minSdk;
    if (sigMin > maxSdk) continue;
    minProvided = Math.min(minProvided, sigMin);
    const current = best.get(sigMin);
    if (
      current === undefined ||
      DIGEST_RANK[sig.algorithm.digest] > DIGEST_RANK[current.algorithm.digest]
    ) {
      best.set(sigMin, sig);
    }
  }
  if (minSdk < minProvided || best.size === 0) return null;
  return [...best.values()].sort((a, b) => a.algorithm.id - b.algorithm.id);
}

/** Verifies `signature` over `data`; throws on malformed signatures or keys (VERIFY_EXCEPTION). */
export function verifySignature(
  algorithm: SignatureAlgorithm,
  key: KeyObject,
  data: Buffer,
  signature: Buffer,
): boolean {
  if (algorithm.pssSaltLength !== undefined) {
    return verify(
      algorithm.hash,
      data,
      { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: algorithm.pssSaltLength },
      signature,
    );
  }
  return verify(algorithm.hash, data, key, signature);
}
