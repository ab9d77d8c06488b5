/**
 * What a JAR's entries say before any signature is checked (the first steps of apksig
 * `V1SchemeVerifier.verify`): entry names are unique, which META-INF files are the manifest,
 * signature files and signature blocks, which blocks pair with a .SF into signers, and the
 * manifest's named sections.
 */
import { issue, type ApkIssue } from '../issues';
import type { ZipEntry } from '../zip/types';
import { V1IssueCode } from './issue-codes';
import { parseManifest, type ManifestSection } from './manifest-parser';
import type { ManifestContext } from './verify-signature-file';

export const MANIFEST_ENTRY_NAME = 'META-INF/MANIFEST.MF';

/** A signature block and the .SF file it signs. */
export interface Signer {
  readonly name: string;
  readonly blockEntry: ZipEntry;
  readonly sigFileEntry: ZipEntry;
}

/** The META-INF entries that take part in the JAR signature. */
export interface MetaInf {
  readonly manifestEntry: ZipEntry | undefined;
  readonly sigFileEntries: ReadonlyMap<string, ZipEntry>;
  readonly sigBlockEntries: readonly ZipEntry[];
}

function isSignatureBlock(name: string): boolean {
  return name.endsWith('.RSA') || name.endsWith('.DSA') || name.endsWith('.EC');
}

/** The entries' names; each name given more than once is an error (once). */
export function uniqueEntryNames(entries: readonly ZipEntry[], errors: ApkIssue[]): Set<string> {
  const entryNames = new Set<string>();
  const reported = new Set<string>();
  for (const e of entries) {
    if (!entryNames.has(e.name)) entryNames.add(e.name);
    else if (!reported.has(e.name)) {
      reported.add(e.name);
      errors.push(issue(V1IssueCode.JAR_SIG_DUPLICATE_ZIP_ENTRY, `duplicate entry ${e.name}`));
    }
  }
  return entryNames;
}

export function metaInfEntries(entries: readonly ZipEntry[]): MetaInf {
  let manifestEntry: ZipEntry | undefined;
  const sigFileEntries = new Map<string, ZipEntry>();
  const sigBlockEntries: ZipEntry[] = [];
  for (const e of entries) {
    if (!e.name.startsWith('META-INF/')) continue;
    if (manifestEntry === undefined && e.name === MANIFEST_ENTRY_NAME) manifestEntry = e;
    else if (e.name.endsWith('.SF')) sigFileEntries.set(e.name, e);
    else if (isSignatureBlock(e.name)) sigBlockEntries.push(e);
  }
  return { manifestEntry, sigFileEntries, sigBlockEntries };
}

/** Signers: the blocks with a matching .SF (a block without one is a warning). */
export function pairSigners(metaInf: MetaInf, warnings: ApkIssue[]): Signer[] {
  const signers: Signer[] = [];
  for (const blockEntry of metaInf.sigBlockEntries) {
    const sigFileName = `${blockEntry.name.slice(0, blockEntry.name.lastIndexOf('.'))}.SF`;
    const sigFileEntry = metaInf.sigFileEntries.get(sigFileName);
    if (sigFileEntry === undefined) {
      warnings.push(
        issue(V1IssueCode.JAR_SIG_MISSING_FILE, `${blockEntry.name} has no ${sigFileName}`),
      );
      continue;
    }
    signers.push({ name: blockEntry.name.slice('META-INF/'.length), blockEntry, sigFileEntry });
  }
  return signers;
}

export function readManifestContext(
  bytes: Buffer,
  entryNames: ReadonlySet<string>,
  errors: ApkIssue[],
): ManifestContext {
  const parsed = parseManifest(bytes);
  const sections = new Map<string, ManifestSection>();
  parsed.individualSections.forEach((section, i) => {
    const name = section.name;
    if (name === null) {
      errors.push(
        issue(
          V1IssueCode.JAR_SIG_UNNNAMED_MANIFEST_SECTION,
          `manifest section #${i + 1} has no name`,
        ),
      );
    } else if (sections.has(name)) {
      errors.push(
        issue(
          V1IssueCode.JAR_SIG_DUPLICATE_MANIFEST_SECTION,
          `duplicate manifest section for ${name}`,
        ),
      );
    } else {
      sections.set(name, section);
      if (!entryNames.has(name)) {
        errors.push(
          issue(
            V1IssueCode.JAR_SIG_MISSING_ZIP_ENTRY_REFERENCED_IN_MANIFEST,
            `manifest refers to missing entry ${name}`,
          ),
        );
      }
    }
  });
  return { bytes, mainSection: parsed.mainSection, sections };
}
