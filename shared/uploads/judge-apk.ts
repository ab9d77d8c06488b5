/**
 * Pure decisions of the ingest pipeline: is this inspected APK acceptable, and may it update the
 * app it belongs to (signer continuity)?
 */
import type { InspectReport } from '../apk/inspect-apk';
import { isAndroidPackageName } from '../apk/package-name';
import { rejection, type Verdict } from './verdicts';

export interface AcceptableApk {
  readonly package: string;
  readonly versionCode: number;
  readonly md5: string;
  readonly sha256: string;
  readonly size: number;
  /** Identity of the signer(s) Android uses: sorted certificate SHA-256s joined by ','. */
  readonly signerSha256: string;
}

export function judgeApk(
  report: InspectReport,
  expectedPackage: string | null,
): { ok: true; apk: AcceptableApk } | { ok: false; verdict: Verdict } {
  if (!report.valid) {
    const codes = report.errors.map((e) => e.code).join(', ') || 'unknown';
    return {
      ok: false,
      verdict: rejection('APK_INVALID', `Android would not install this APK (${codes}).`),
    };
  }
  if (report.testOnly === true) {
    return {
      ok: false,
      verdict: rejection(
        'APK_INVALID',
        'Test-only builds (android:testOnly) cannot be distributed.',
      ),
    };
  }
  const { package: pkg, versionCode, md5, sha256, size } = report;
  if (pkg === null || versionCode === null || md5 === null || sha256 === null || size === null) {
    return {
      ok: false,
      verdict: rejection('APK_INVALID', 'The manifest lacks a package name or versionCode.'),
    };
  }
  // Android would not install it, and the name ends up in headers, paths and pages.
  if (!isAndroidPackageName(pkg)) {
    return {
      ok: false,
      verdict: rejection(
        'APK_PACKAGE_NAME_INVALID',
        `${JSON.stringify(pkg.slice(0, 300))} is not a valid Android package name (dot-separated segments of letters, digits and underscores, each starting with a letter; at most 223 characters).`,
      ),
    };
  }
  if (report.signers.length === 0) {
    return { ok: false, verdict: rejection('APK_INVALID', 'The APK has no signer.') };
  }
  if (expectedPackage !== null && expectedPackage !== pkg) {
    return {
      ok: false,
      verdict: rejection('APK_PACKAGE_MISMATCH', `The APK is ${pkg}, not ${expectedPackage}.`),
    };
  }
  const signerSha256 = report.signers
    .map((s) => s.sha256)
    .sort()
    .join(',');
  return { ok: true, apk: { package: pkg, versionCode, md5, sha256, size, signerSha256 } };
}

export type Continuity = 'same' | 'rotated' | 'mismatch';

/**
 * May an APK signed by `apkSigner` (with v3 lineage `lineage`, oldest first) update an app whose
 * devices run `appSigner`? Android accepts the same signer, or a newer one whose lineage proves
 * rotation from the installed one. Anything else every device would refuse.
 */
export function signerContinuity(
  appSigner: string,
  apkSigner: string,
  lineage: readonly string[],
): Continuity {
  if (appSigner === apkSigner) return 'same';
  const from = lineage.indexOf(appSigner);
  const to = lineage.lastIndexOf(apkSigner);
  return from >= 0 && to > from ? 'rotated' : 'mismatch';
}
