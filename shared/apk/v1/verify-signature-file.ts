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
import { checkStripped, parseSchemeIds, supportedSchemeIds } from './strip-protection';

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

function digestOf(algorithm: NamedDigest['algorithm'], data: Buffer): Buffer {
  return createHash(nodeHashName(algorithm)).update(data).digest();
}

/** One .SF file's check: where its issues go, and the platform range. */
interface SigFileCheck {
  readonly sigFileName: string;
  readonly minSdk: number;
  readonly maxSdk: number;
  readonly errors: ApkIssue[];
  readonly warnings: ApkIssue[];
}

/** How the .SF's individual sections came out. */
type SectionsOutcome =
  | { readonly ignoredBy: { readonly code: string; readonly message: string } }
  | { readonly ignoredBy: null; readonly entryNames: Set<string>; readonly ignored: boolean };

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
  const c: SigFileCheck = { sigFileName, minSdk, maxSdk, errors, warnings };
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
  const manifestDigestVerified = checkManifestDigest(c, sfMain, manifest, bySigntool);
  if (!bySigntool && manifest.mainSection !== null)
    checkMainSectionDigest(c, sfMain, manifest.bytes, manifest.mainSection);
  if (errors.length > 0) return { ...out, ignored: false, entryNames: new Set() };

  const sections = checkSections(c, sf.individualSections, manifest, {
    bySigntool,
    manifestDigestVerified,
  });
  if (sections.ignoredBy) return ignored(sections.ignoredBy.code, sections.ignoredBy.message);
  return { ...out, ignored: sections.ignored, entryNames: sections.entryNames };
}

/** The digests of `section`'s `<alg><suffix>` attributes to check; malformed base64 is an error. */
function digestsIn(c: SigFileCheck, section: ManifestSection, suffix: string): NamedDigest[] {
  const list = getDigestsToVerify(section, suffix, c.minSdk, c.maxSdk);
  if (list.some((d) => d.digest === null)) {
    c.errors.push(
      issue(
        V1IssueCode.JAR_SIG_MALFORMED_DIGEST,
        `${c.sigFileName}: malformed base64 in ${suffix} attribute`,
      ),
    );
  }
  return list;
}

/** Checks the digest of the whole manifest: true when it verifies (mismatches only warn). */
function checkManifestDigest(
  c: SigFileCheck,
  sfMain: ManifestSection,
  manifest: ManifestContext,
  bySigntool: boolean,
): boolean {
  const wholeDigests = digestsIn(c, sfMain, bySigntool ? '-Digest' : '-Digest-Manifest');
  if (wholeDigests.length === 0) {
    c.warnings.push(
      issue(
        V1IssueCode.JAR_SIG_NO_MANIFEST_DIGEST_IN_SIG_FILE,
        `${c.sigFileName}: no digest of the manifest`,
      ),
    );
    return false;
  }
  let verified = true;
  for (const expected of wholeDigests) {
    if (!digestMatches(expected, digestOf(expected.algorithm, manifest.bytes))) {
      c.warnings.push(
        issue(
          V1IssueCode.JAR_SIG_ZIP_ENTRY_DIGEST_DID_NOT_VERIFY,
          `${c.sigFileName}: ${expected.algorithm} digest of META-INF/MANIFEST.MF does not match`,
        ),
      );
      verified = false;
    }
  }
  return verified;
}

/** Checks `-Digest-Manifest-Main-Attributes` against the manifest's main section, if present. */
function checkMainSectionDigest(
  c: SigFileCheck,
  sfMain: ManifestSection,
  manifestBytes: Buffer,
  main: ManifestSection,
): void {
  const mainBytes = manifestBytes.subarray(main.startOffset, main.startOffset + main.sizeBytes);
  for (const expected of digestsIn(c, sfMain, '-Digest-Manifest-Main-Attributes')) {
    if (!digestMatches(expected, digestOf(expected.algorithm, mainBytes))) {
      c.errors.push(
        issue(
          V1IssueCode.JAR_SIG_MANIFEST_MAIN_SECTION_DIGEST_DID_NOT_VERIFY,
          `${c.sigFileName}: ${expected.algorithm} digest of the manifest main section does not match`,
        ),
      );
    }
  }
}

/**
 * Walks the .SF's individual sections: each must be named and unique (else the signer is
 * ignored); unless the whole manifest's digest verified, each must match its manifest section.
 */
function checkSections(
  c: SigFileCheck,
  sfSections: readonly ManifestSection[],
  manifest: ManifestContext,
  how: { readonly bySigntool: boolean; readonly manifestDigestVerified: boolean },
): SectionsOutcome {
  const entryNames = new Set<string>();
  let ignored = false;
  for (const [index, sfSection] of sfSections.entries()) {
    const name = sfSection.name;
    if (name === null) {
      return {
        ignoredBy: {
          code: V1IssueCode.JAR_SIG_UNNNAMED_SIG_FILE_SECTION,
          message: `section #${index + 1} has no name`,
        },
      };
    }
    if (entryNames.has(name)) {
      return {
        ignoredBy: {
          code: V1IssueCode.JAR_SIG_DUPLICATE_SIG_FILE_SECTION,
          message: `duplicate section for ${name}`,
        },
      };
    }
    entryNames.add(name);
    if (how.manifestDigestVerified) continue;
    const mfSection = manifest.sections.get(name);
    if (mfSection === undefined) {
      c.errors.push(
        issue(
          V1IssueCode.JAR_SIG_NO_ZIP_ENTRY_DIGEST_IN_SIG_FILE,
          `${c.sigFileName}: ${name} has no manifest section`,
        ),
      );
      ignored = true;
      continue;
    }
    checkSectionDigest(c, name, sfSection, mfSection, manifest.bytes, how.bySigntool);
  }
  return { ignoredBy: null, entryNames, ignored };
}

/** Checks one .SF section's digests against its manifest section's bytes. */
function checkSectionDigest(
  c: SigFileCheck,
  name: string,
  sfSection: ManifestSection,
  mfSection: ManifestSection,
  manifestBytes: Buffer,
  bySigntool: boolean,
): void {
  const expectedDigests = digestsIn(c, sfSection, '-Digest');
  if (expectedDigests.length === 0) {
    c.errors.push(
      issue(
        V1IssueCode.JAR_SIG_NO_ZIP_ENTRY_DIGEST_IN_SIG_FILE,
        `${c.sigFileName}: no digest for ${name}`,
      ),
    );
    return;
  }
  let size = mfSection.sizeBytes;
  const end = mfSection.startOffset + size;
  if (bySigntool && size >= 2 && manifestBytes[end - 1] === 0x0a && manifestBytes[end - 2] === 0x0a)
    size--;
  const sectionBytes = manifestBytes.subarray(mfSection.startOffset, mfSection.startOffset + size);
  for (const expected of expectedDigests) {
    if (!digestMatches(expected, digestOf(expected.algorithm, sectionBytes))) {
      c.errors.push(
        issue(
          V1IssueCode.JAR_SIG_MANIFEST_SECTION_DIGEST_DID_NOT_VERIFY,
          `${c.sigFileName}: ${expected.algorithm} digest of the manifest section for ${name} does not match`,
        ),
      );
    }
  }
}
