/**
 * The v1 signer's protection against stripped v2/v3 signatures; a port of apksig
 * `V1SchemeVerifier.Signer.checkForStrippedApkSignatures`. From Android N, a .SF main section's
 * `X-Android-APK-Signed` lists schemes (v2, v3) the APK was also signed with; a listed scheme
 * the platform knows but which is missing means it was stripped.
 */
import { issue, type ApkIssue } from '../issues';
import { V1IssueCode } from './issue-codes';
import { SdkVersion } from './sdk-versions';

/** Scheme IDs the platform range knows (apksig ApkVerifier.getSupportedSchemeNames). */
export function supportedSchemeIds(maxSdk: number): ReadonlySet<number> {
  if (maxSdk >= SdkVersion.P) return new Set([2, 3]);
  if (maxSdk >= SdkVersion.N) return new Set([2]);
  return new Set();
}

/** Comma-separated integers; blanks and non-numbers are skipped (Java Integer.parseInt rules). */
export function parseSchemeIds(value: string): number[] {
  const ids: number[] = [];
  for (const token of value.split(',')) {
    const t = token.trim();
    if (!/^[+-]?\d{1,10}$/.test(t)) continue;
    const id = Number(t);
    if (id >= -2147483648 && id <= 2147483647) ids.push(id);
  }
  return ids;
}

export function checkStripped(
  sigFileName: string,
  declared: string | null,
  out: { errors: ApkIssue[]; warnings: ApkIssue[]; strippedSchemeIds: number[] },
  foundSchemeIds: ReadonlySet<number>,
  supported: ReadonlySet<number>,
): void {
  if (declared === null) {
    if (foundSchemeIds.size > 0) {
      out.warnings.push(
        issue(
          V1IssueCode.JAR_SIG_NO_APK_SIG_STRIP_PROTECTION,
          `${sigFileName}: no X-Android-APK-Signed attribute`,
        ),
      );
    }
    return;
  }
  if (supported.size === 0) return;
  const expected = new Set<number>();
  for (const id of parseSchemeIds(declared)) {
    if (supported.has(id)) expected.add(id);
    else
      out.warnings.push(
        issue(
          V1IssueCode.JAR_SIG_UNKNOWN_APK_SIG_SCHEME_ID,
          `${sigFileName}: unknown APK signature scheme ID ${id}`,
        ),
      );
  }
  for (const id of expected) {
    if (!foundSchemeIds.has(id)) {
      out.strippedSchemeIds.push(id);
      out.errors.push(
        issue(
          V1IssueCode.JAR_SIG_MISSING_APK_SIG_REFERENCED,
          `${sigFileName}: APK signed with scheme v${id} according to X-Android-APK-Signed, but no such signature was found`,
        ),
      );
    }
  }
}
