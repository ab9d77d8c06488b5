/**
 * Result shapes shared by the v2 and v3 signature-scheme verifiers (apksig
 * `ApkSigningBlockUtils.Result` and `Result.SignerInfo`).
 */
import type { ApkIssue } from '../issues';
import type { Lineage } from './signing-lineage';
import type { ContentDigestAlgorithm } from './signature-algorithms';

export type SchemeName = 'V2' | 'V3' | 'V31';

export interface ContentDigest {
  readonly algorithmId: number;
  readonly digest: Buffer;
}

export interface SchemeSigner {
  readonly index: number;
  readonly errors: ApkIssue[];
  readonly warnings: ApkIssue[];
  /** DER certificates, signing certificate first. */
  readonly certificates: Buffer[];
  readonly contentDigests: ContentDigest[];
  /** Algorithm IDs in the order the signatures record lists them (unknown ones included). */
  readonly signatureAlgorithmIds: number[];
  readonly additionalAttributes: Array<{ id: number; value: Buffer }>;
  /** v3 only. */
  minSdk: number;
  maxSdk: number;
  lineage: Lineage | null;
}

export interface SchemeResult {
  readonly scheme: SchemeName;
  readonly errors: ApkIssue[];
  readonly warnings: ApkIssue[];
  readonly signers: SchemeSigner[];
  /** Content digests whose signatures verified and which must match the file. */
  readonly digestsToVerify: Set<ContentDigestAlgorithm>;
  /** Consolidated v3 lineage, if any signer carried one. */
  lineage: Lineage | null;
}

export function newSchemeResult(scheme: SchemeName): SchemeResult {
  return {
    scheme,
    errors: [],
    warnings: [],
    signers: [],
    digestsToVerify: new Set(),
    lineage: null,
  };
}

export function newSigner(index: number): SchemeSigner {
  return {
    index,
    errors: [],
    warnings: [],
    certificates: [],
    contentDigests: [],
    signatureAlgorithmIds: [],
    additionalAttributes: [],
    minSdk: 0,
    maxSdk: 0,
    lineage: null,
  };
}

export function schemeHasErrors(result: SchemeResult): boolean {
  return result.errors.length > 0 || result.signers.some((s) => s.errors.length > 0);
}

export function allErrors(result: SchemeResult): ApkIssue[] {
  return [...result.errors, ...result.signers.flatMap((s) => s.errors)];
}
