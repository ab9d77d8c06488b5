/**
 * Checks that span signature schemes, after each scheme verified on its own. Port of the tail of
 * AOSP apksig `ApkVerifier.verify`: v1 and v2 signer sets must be equal; the v1/v2 signer must be
 * the v3 signer or the oldest certificate of the v3 lineage; APKs targeting SDK 30+ need v2 or
 * newer; and the signers Android uses (newest v3.1/v3 signer, else every v2 or v1 signer).
 */
import { issue, type ApkIssue } from './issues';
import type { SchemeResult } from './signing/scheme-result';
import { subLineage, type Lineage } from './signing/signing-lineage';
import type { V1Result } from './v1';

export interface VerifiedSchemes {
  v1: V1Result | null;
  v2: SchemeResult | null;
  v3: SchemeResult | null;
  v31: SchemeResult | null;
}

const first = (s: { certificates: Buffer[] }): Buffer | undefined => s.certificates[0];

function containsCert(list: readonly Buffer[], cert: Buffer): boolean {
  return list.some((c) => c.equals(cert));
}

export function checkV1MatchesV2(v1: V1Result, v2: SchemeResult): ApkIssue[] {
  const v1Certs = v1.signers.map(first).filter((c): c is Buffer => c !== undefined);
  const v2Certs = v2.signers.map(first).filter((c): c is Buffer => c !== undefined);
  const errors: ApkIssue[] = [];
  if (v1Certs.some((c) => !containsCert(v2Certs, c))) {
    errors.push(
      issue('V2_SIG_MISSING', 'A JAR signer has no matching APK Signature Scheme v2 signer'),
    );
  }
  if (v2Certs.some((c) => !containsCert(v1Certs, c))) {
    errors.push(
      issue('JAR_SIG_MISSING', 'An APK Signature Scheme v2 signer has no matching JAR signer'),
    );
  }
  return errors;
}

/** The v1 (else v2) signer must be the v3 signer, or the root of the v3 lineage. */
export function checkPastSignersMatchV3(
  schemes: VerifiedSchemes,
  v3: SchemeResult,
  lineage: Lineage | null,
): ApkIssue[] {
  const errors: ApkIssue[] = [];
  const past = schemes.v1 !== null ? schemes.v1.signers : (schemes.v2?.signers ?? []);
  if (past.length !== 1) {
    errors.push(
      issue(
        'V3_SIG_MULTIPLE_PAST_SIGNERS',
        'v3 supports one signer, but older schemes list several',
      ),
    );
  }
  const oldCert = past[0] && first(past[0]);
  if (oldCert === undefined) return errors;
  if (lineage === null) {
    if (v3.signers.length !== 1) {
      errors.push(issue('V3_SIG_MULTIPLE_SIGNERS', 'Several v3 signers without a lineage'));
    }
    const v3Cert = v3.signers[0] && first(v3.signers[0]);
    if (v3Cert === undefined || !v3Cert.equals(oldCert)) {
      errors.push(issue('V3_SIG_PAST_SIGNERS_MISMATCH', 'v1/v2 signer differs from the v3 signer'));
    }
    return errors;
  }
  const sub = subLineage(lineage, oldCert);
  if (sub === null || sub.length !== 1) {
    errors.push(
      issue(
        'V3_SIG_PAST_SIGNERS_MISMATCH',
        'v1/v2 signer is not the oldest certificate of the v3 lineage',
      ),
    );
  }
  return errors;
}

/** apksig `getMinimumSignatureSchemeVersionForTargetSdk`: SDK 30 (R) and later need v2+. */
export function checkTargetSdkScheme(
  targetSdk: number,
  maxSdk: number,
  schemes: VerifiedSchemes,
  verified: (s: SchemeResult | null) => boolean,
): ApkIssue[] {
  if (targetSdk < 30 || maxSdk < targetSdk) return [];
  if (verified(schemes.v2) || verified(schemes.v3) || verified(schemes.v31)) return [];
  return [
    issue(
      'MIN_SIG_SCHEME_FOR_TARGET_SDK_NOT_MET',
      `Target SDK version ${targetSdk} requires a minimum of signature scheme v2; the APK is not signed with this or a later signature scheme`,
    ),
  ];
}

/** Certificates of the signers Android uses, in apksig's order of preference. */
export function effectiveSignerCertificates(schemes: VerifiedSchemes): Buffer[] {
  const newest = (r: SchemeResult): Buffer[] => {
    const last = r.signers[r.signers.length - 1];
    const cert = last && first(last);
    return cert === undefined ? [] : [cert];
  };
  if (schemes.v31 !== null) return newest(schemes.v31);
  if (schemes.v3 !== null) return newest(schemes.v3);
  const all = schemes.v2?.signers ?? schemes.v1?.signers ?? [];
  return all.map(first).filter((c): c is Buffer => c !== undefined);
}
