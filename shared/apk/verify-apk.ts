/**
 * Verifies an APK's signatures the way AOSP apksig `ApkVerifier.verify` does with minSdk taken
 * from the manifest and no maxSdk: v3.1 / v3 / v2 blocks (signing/verify-signing-block.ts), the
 * targetSandboxVersion rule, JAR signatures when minSdk < 24 or no block was found
 * (shared/apk/v1), then the cross-scheme and targetSdk rules (cross-scheme-checks.ts).
 * The file is read once, sequentially, for all digests (signing/digest-pass.ts). Malformed input
 * never throws: it ends as `verified: false` with error codes.
 */
import { appendIssues, issue, issueFromError, type ApkIssue } from './issues';
import { manifestFromZip } from './manifest/manifest-from-zip';
import type { ManifestInfo } from './manifest/read-manifest';
import type { RandomAccessSource } from './random-access';
import {
  checkPastSignersMatchV3,
  checkTargetSdkScheme,
  checkV1MatchesV2,
  effectiveSignerCertificates,
  type VerifiedSchemes,
} from './cross-scheme-checks';
import { runDigestPass, type DigestPassResult } from './signing/digest-pass';
import { schemeHasErrors, type SchemeResult } from './signing/scheme-result';
import {
  digestsNeeded,
  finishSchemes,
  parseSigningSchemes,
  type ParsedSchemes,
} from './signing/verify-signing-block';
import { sha256Hex } from './signing/x509';
import { verifyV1 } from './v1';
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from './zip/limits';
import { checkEntryLayout, openZip } from './zip/open-zip';
import type { ZipArchive } from './zip/types';

/** apksig verifies up to Integer.MAX_VALUE when no maxSdk is given. */
export const NO_MAX_SDK = 0x7fffffff;
const N = 24;

export interface ApkSignerInfo {
  readonly sha256: string;
  readonly certificate: Buffer;
}

export interface ApkVerification {
  readonly verified: boolean;
  readonly errors: ApkIssue[];
  readonly warnings: ApkIssue[];
  readonly manifest: ManifestInfo | null;
  /** Schemes whose signatures verified. */
  readonly schemes: { v1: boolean; v2: boolean; v3: boolean; v31: boolean };
  /** The signers Android uses (newest in a v3 lineage). */
  readonly signers: ApkSignerInfo[];
  /** SHA-256 of each certificate of the v3 lineage, oldest first; else the signer alone. */
  readonly lineage: string[];
  readonly sha256: string | null;
  readonly md5: string | null;
  readonly size: number;
}

interface State {
  errors: ApkIssue[];
  warnings: ApkIssue[];
  manifest: ManifestInfo | null;
  schemes: VerifiedSchemes;
  parsed: ParsedSchemes | null;
  digests: DigestPassResult | null;
}

const okScheme = (r: SchemeResult | null): boolean => r !== null && !schemeHasErrors(r);

async function verifyZip(zip: ZipArchive, st: State, minSdkOverride?: number): Promise<void> {
  await checkEntryLayout(zip);
  const manifest = await manifestFromZip(zip);
  st.manifest = manifest;
  const minSdk = minSdkOverride ?? manifest.minSdk;
  const parsed = await parseSigningSchemes(zip.source, zip.sections, minSdk, NO_MAX_SDK);
  st.parsed = parsed;
  st.digests = await runDigestPass(
    zip.source,
    zip.sections,
    parsed.block?.offset ?? null,
    digestsNeeded(parsed),
  );
  appendIssues(st.errors, finishSchemes(parsed, st.digests.contentDigests, zip.sections));
  for (const r of parsed.results) {
    appendIssues(st.warnings, r.warnings);
    for (const s of r.signers) appendIssues(st.warnings, s.warnings);
    if (r.scheme === 'V31') st.schemes.v31 = r;
    else if (r.scheme === 'V3') st.schemes.v3 = r;
    else st.schemes.v2 = r;
  }
  if (st.errors.length > 0) return;
  const found = parsed.foundSchemeIds;
  if (manifest.targetSandboxVersion > 1 && found.size === 0) {
    st.errors.push(
      issue(
        'NO_SIG_FOR_TARGET_SANDBOX_VERSION',
        `Missing APK Signature Scheme v2 signature required for target sandbox version ${manifest.targetSandboxVersion}`,
      ),
    );
  }
  if (minSdk < N || found.size === 0) {
    const v1 = await verifyV1(zip, { minSdk, maxSdk: NO_MAX_SDK, foundSchemeIds: found });
    st.schemes.v1 = v1;
    appendIssues(st.errors, v1.errors);
    appendIssues(st.warnings, v1.warnings);
    if (v1.errors.length === 0 && !v1.verified) {
      st.errors.push(
        issue(v1.present ? 'JAR_SIG_NOT_VERIFIED' : 'JAR_SIG_NO_SIGNATURES', 'No JAR signatures'),
      );
    }
    if (v1.errors.length === 0 && v1.strippedSchemeIds.length > 0) {
      st.errors.push(
        issue(
          'JAR_SIG_MISSING_APK_SIG_REFERENCED',
          `JAR signature references stripped schemes ${v1.strippedSchemeIds.join(', ')}`,
        ),
      );
    }
  }
  if (st.errors.length > 0) return;
  crossChecks(st, manifest);
}

function crossChecks(st: State, manifest: ManifestInfo): void {
  const { schemes } = st;
  const v1ok = schemes.v1 !== null && schemes.v1.verified;
  if (v1ok && schemes.v1 !== null && schemes.v2 !== null && okScheme(schemes.v2)) {
    appendIssues(st.errors, checkV1MatchesV2(schemes.v1, schemes.v2));
  }
  const v3 = schemes.v3;
  if (v3 !== null && okScheme(v3) && (v1ok || okScheme(schemes.v2))) {
    const lineage = schemes.v31?.lineage ?? v3.lineage;
    appendIssues(
      st.errors,
      checkPastSignersMatchV3(v1ok ? schemes : { ...schemes, v1: null }, v3, lineage),
    );
  }
  appendIssues(st.errors, checkTargetSdkScheme(manifest.targetSdk, NO_MAX_SDK, schemes, okScheme));
}

function lineageOf(schemes: VerifiedSchemes, signers: ApkSignerInfo[]): string[] {
  const lineage = schemes.v31?.lineage ?? schemes.v3?.lineage ?? null;
  if (lineage !== null) return lineage.map((n) => sha256Hex(n.certificate));
  return signers.map((s) => s.sha256);
}

export interface VerifyApkOptions {
  readonly limits?: ZipLimits;
  /** As apksigner's --min-sdk-version; by default the manifest's minSdkVersion is used. */
  readonly minSdk?: number;
}

export async function verifyApk(
  source: RandomAccessSource,
  opts: VerifyApkOptions = {},
): Promise<ApkVerification> {
  const st: State = {
    errors: [],
    warnings: [],
    manifest: null,
    schemes: { v1: null, v2: null, v3: null, v31: null },
    parsed: null,
    digests: null,
  };
  let zip: ZipArchive | null = null;
  try {
    zip = await openZip(source, opts.limits ?? DEFAULT_ZIP_LIMITS);
    await verifyZip(zip, st, opts.minSdk);
  } catch (err) {
    st.errors.push(issueFromError(err));
  }
  // A ZIP that failed before the streaming pass still gets its hashes; a non-ZIP does not.
  if (st.digests === null && zip !== null) {
    try {
      st.digests = await runDigestPass(source, null, null, new Set());
    } catch (err) {
      st.errors.push(issueFromError(err));
    }
  }
  const verified = st.errors.length === 0;
  const signers = verified
    ? effectiveSignerCertificates(st.schemes).map((certificate) => ({
        certificate,
        sha256: sha256Hex(certificate),
      }))
    : [];
  const { schemes } = st;
  return {
    verified,
    errors: st.errors,
    warnings: st.warnings,
    manifest: st.manifest,
    schemes: {
      v1: schemes.v1?.verified === true && schemes.v1.errors.length === 0,
      v2: okScheme(schemes.v2),
      v3: okScheme(schemes.v3),
      v31: okScheme(schemes.v31),
    },
    signers,
    lineage: verified ? lineageOf(schemes, signers) : [],
    sha256: st.digests?.sha256 ?? null,
    md5: st.digests?.md5 ?? null,
    size: source.size,
  };
}
