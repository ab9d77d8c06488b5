/**
 * Verifies one signer's signature file (.SF) against the JAR manifest; a port of apksig
 * `V1SchemeVerifier.Signer.verifySigFileAgainstManifest` and `checkForStrippedApkSignatures`.
 *
 * - The .SF main section must carry `Signature-Version`, else the signer is ignored.
 * - From Android N, `X-Android-APK-Signed` lists schemes (v2, v3) the APK was also signed
 *   with; a listed scheme the platform knows but which is missing means it was stripped.
 * - The digest of the whole manifest (`<alg>-Digest-Manifest`) is checked; when it does not
 *   verify, each .SF section must match the digest of its manifest section instead. The
 *   manifest main section's digest (`-Digest-Manifest-Main-Attributes`) must match if present.
 * - Files produced by Netscape's "signtool" use `<alg>-Digest` and an extra-newline quirk.
 */
import { createHash } from 'node:crypto';
import { issue, type ApkIssue } from '../issues';
import { V1IssueCode } from './issue-codes';
import { digestMatches, getDigestsToVerify, nodeHashName, type NamedDigest } from './jar-digests';
import { attributeValue, parseManifest, type ManifestSection } from './manifest-parser';
import { SdkVersion } from './sdk-versions';

export interface ManifestContext {
  readonly bytes: Buffer;
  readonly mainSection: ManifestSection | null;
  readonly sections: ReadonlyMap<string, ManifestSection>;
}

export interface SigFileOutcome {
  /** True when Android ignores this signer (its issues are then only warnings). */
  readonly ignored: boolean;
  /** Entry names listed in the .SF file; set when the signer is not ignored. */
  readonly entryNames: ReadonlySet<string>;
  readonly errors: ApkIssue[];
  readonly warnings: ApkIssue[];
  readonly declaredSchemeIds: number[];
  readonly strippedSchemeIds: number[];
}

/** Scheme IDs the platform range knows (apksig ApkVerifier.getSupportedSchemeNames). */
export function supportedSchemeIds(maxSdk: number): ReadonlySet<number> {
  if (maxSdk >= SdkVersion.P) return new Set([2, 3]);
  if (maxSdk >= SdkVersion.N) return new Set([2]);
  return new Set();
}

function digestOf(algorithm: NamedDigest['algorithm'], data: Buffer): Buffer {
  return createHash(nodeHashName(algorithm)).update(data).digest();
}

export function verifySignatureFile(
  sigFileName: string,
  sigFileBytes: Buffer,
  manifest: ManifestContext,
  foundSchemeIds: ReadonlySet<number>,
  minSdk: number,
  maxSdk: number,
): SigFileOutcome {
  const errors: ApkIssue[] = [];
  const warnings: ApkIssue[] = [];
  const out = {
    errors,
    warnings,
    declaredSchemeIds: [] as number[],
    strippedSchemeIds: [] as number[],
  };
  const ignored = (code: string, message: string): SigFileOutcome => ({
    ...out,
    errors: [...errors, issue(code, `${sigFileName}: ${message}`)],
    ignored: true,
    entryNames: new Set(),
  });
  const digests = (section: ManifestSection, suffix: string): NamedDigest[] => {
    const list = getDigestsToVerify(section, suffix, minSdk, maxSdk);
    if (list.some((d) => d.digest === null)) {
      errors.push(
        issue(
          V1IssueCode.JAR_SIG_MALFORMED_DIGEST,
          `${sigFileName}: malformed base64 in ${suffix} attribute`,
        ),
      );
    }
    return list;
  };

  const sf = parseManifest(sigFileBytes);
  const sfMain = sf.mainSection;
  if (sfMain === null || attributeValue(sfMain, 'Signature-Version') === null) {
    return ignored(
      V1IssueCode.JAR_SIG_MISSING_VERSION_ATTR_IN_SIG_FILE,
      'no Signature-Version attribute',
    );
  }
  const declared = attributeValue(sfMain, 'X-Android-APK-Signed');
  if (declared !== null) out.declaredSchemeIds = parseSchemeIds(declared);
  if (maxSdk >= SdkVersion.N) {
    checkStripped(sigFileName, declared, out, foundSchemeIds, supportedSchemeIds(maxSdk));
    if (errors.length > 0) return { ...out, ignored: false, entryNames: new Set() };
  }

  const createdBy = attributeValue(sfMain, 'Created-By');
  const bySigntool = createdBy !== null && createdBy.includes('signtool');
  let manifestDigestVerified = false;
  const wholeDigests = digests(sfMain, bySigntool ? '-Digest' : '-Digest-Manifest');
  if (wholeDigests.length === 0) {
    warnings.push(
      issue(
        V1IssueCode.JAR_SIG_NO_MANIFEST_DIGEST_IN_SIG_FILE,
        `${sigFileName}: no digest of the manifest`,
      ),
    );
  } else {
    manifestDigestVerified = true;
    for (const expected of wholeDigests) {
      if (!digestMatches(expected, digestOf(expected.algorithm, manifest.bytes))) {
        warnings.push(
          issue(
            V1IssueCode.JAR_SIG_ZIP_ENTRY_DIGEST_DID_NOT_VERIFY,
            `${sigFileName}: ${expected.algorithm} digest of META-INF/MANIFEST.MF does not match`,
          ),
        );
        manifestDigestVerified = false;
      }
    }
  }
  if (!bySigntool && manifest.mainSection !== null) {
    const main = manifest.mainSection;
    const mainBytes = manifest.bytes.subarray(main.startOffset, main.startOffset + main.sizeBytes);
    for (const expected of digests(sfMain, '-Digest-Manifest-Main-Attributes')) {
      if (!digestMatches(expected, digestOf(expected.algorithm, mainBytes))) {
        errors.push(
          issue(
            V1IssueCode.JAR_SIG_MANIFEST_MAIN_SECTION_DIGEST_DID_NOT_VERIFY,
            `${sigFileName}: ${expected.algorithm} digest of the manifest main section does not match`,
          ),
        );
      }
    }
  }
  if (errors.length > 0) return { ...out, ignored: false, entryNames: new Set() };

  const entryNames = new Set<string>();
  let ignoredSigner = false;
  for (const [index, sfSection] of sf.individualSections.entries()) {
    const name = sfSection.name;
    if (name === null) {
      return ignored(
        V1IssueCode.JAR_SIG_UNNNAMED_SIG_FILE_SECTION,
        `section #${index + 1} has no name`,
      );
    }
    if (entryNames.has(name)) {
      return ignored(
        V1IssueCode.JAR_SIG_DUPLICATE_SIG_FILE_SECTION,
        `duplicate section for ${name}`,
      );
    }
    entryNames.add(name);
    if (manifestDigestVerified) continue;
    const mfSection = manifest.sections.get(name);
    if (mfSection === undefined) {
      errors.push(
        issue(
          V1IssueCode.JAR_SIG_NO_ZIP_ENTRY_DIGEST_IN_SIG_FILE,
          `${sigFileName}: ${name} has no manifest section`,
        ),
      );
      ignoredSigner = true;
      continue;
    }
    const expectedDigests = digests(sfSection, '-Digest');
    if (expectedDigests.length === 0) {
      errors.push(
        issue(
          V1IssueCode.JAR_SIG_NO_ZIP_ENTRY_DIGEST_IN_SIG_FILE,
          `${sigFileName}: no digest for ${name}`,
        ),
      );
      continue;
    }
    let size = mfSection.sizeBytes;
    const end = mfSection.startOffset + size;
    if (
      bySigntool &&
      size >= 2 &&
      manifest.bytes[end - 1] === 0x0a &&
      manifest.bytes[end - 2] === 0x0a
    )
      size--;
    const sectionBytes = manifest.bytes.subarray(
      mfSection.startOffset,
      mfSection.startOffset + size,
    );
    for (const expected of expectedDigests) {
      if (!digestMatches(expected, digestOf(expected.algorithm, sectionBytes))) {
        errors.push(
          issue(
            V1IssueCode.JAR_SIG_MANIFEST_SECTION_DIGEST_DID_NOT_VERIFY,
            `${sigFileName}: ${expected.algorithm} digest of the manifest section for ${name} does not match`,
          ),
        );
      }
    }
  }
  return { ...out, ignored: ignoredSigner, entryNames };
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

function checkStripped(
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
