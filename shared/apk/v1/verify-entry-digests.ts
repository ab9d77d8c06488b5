/**
 * Checks every JAR entry outside META-INF/ against the manifest and the signers' .SF files;
 * a port of apksig `V1SchemeVerifier.verifyJarEntriesAgainstManifestAndSigners`.
 *
 * Each such entry needs a manifest section whose digest(s) match its uncompressed data, and
 * must be listed by at least one .SF file; every entry must be listed by the same set of
 * signers, which becomes the APK's set of signers. Entry data is streamed (bounded memory),
 * in local-header order so the file is read mostly sequentially.
 */
import { createHash, type Hash } from 'node:crypto';
import { issue, issueFromError, type ApkIssue } from '../issues';
import type { ZipArchive, ZipEntry } from '../zip/types';
import { V1IssueCode } from './issue-codes';
import { digestMatches, getDigestsToVerify, nodeHashName } from './jar-digests';
import type { ManifestSection } from './manifest-parser';

export interface EntrySigner {
  readonly name: string;
  readonly entryNames: ReadonlySet<string>;
}

export interface EntryDigestsOutcome {
  readonly errors: ApkIssue[];
  /** Indexes (into the given signers) of the signers that sign the APK's entries. */
  readonly apkSigners: ReadonlySet<number>;
}

/** Entries whose digest Android requires in the manifest: everything outside META-INF/. */
export function isDigestNeededInManifest(entryName: string): boolean {
  return !entryName.startsWith('META-INF/') && !entryName.endsWith('/');
}

async function digestEntry(zip: ZipArchive, entry: ZipEntry, hashes: Hash[]): Promise<Buffer[]> {
  for await (const chunk of zip.openEntry(entry)) {
    for (const h of hashes) h.update(chunk);
  }
  return hashes.map((h) => h.digest());
}

export async function verifyEntryDigests(
  zip: ZipArchive,
  entries: readonly ZipEntry[],
  manifestSections: ReadonlyMap<string, ManifestSection>,
  signers: readonly EntrySigner[],
  minSdk: number,
  maxSdk: number,
): Promise<EntryDigestsOutcome> {
  const errors: ApkIssue[] = [];
  const byOffset = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  let firstSigners: number[] | null = null;
  let firstSignedEntryName = '';
  for (const entry of byOffset) {
    const name = entry.name;
    if (!isDigestNeededInManifest(name)) continue;
    const section = manifestSections.get(name);
    if (section === undefined) {
      errors.push(
        issue(
          V1IssueCode.JAR_SIG_NO_ZIP_ENTRY_DIGEST_IN_MANIFEST,
          `${name} is not in the manifest`,
        ),
      );
      continue;
    }
    const entrySigners = signers.flatMap((s, i) => (s.entryNames.has(name) ? [i] : []));
    if (entrySigners.length === 0) {
      errors.push(
        issue(V1IssueCode.JAR_SIG_ZIP_ENTRY_NOT_SIGNED, `${name} is not signed by any signer`),
      );
      continue;
    }
    if (firstSigners === null) {
      firstSigners = entrySigners;
      firstSignedEntryName = name;
    } else if (entrySigners.join(',') !== firstSigners.join(',')) {
      const names = (ids: number[]): string => ids.map((i) => signers[i]?.name ?? '?').join(', ');
      errors.push(
        issue(
          V1IssueCode.JAR_SIG_ZIP_ENTRY_SIGNERS_MISMATCH,
          `${firstSignedEntryName} is signed by [${names(firstSigners)}] but ${name} by [${names(entrySigners)}]`,
        ),
      );
      continue;
    }
    const read = await checkEntryDigest(zip, entry, section, { minSdk, maxSdk }, errors);
    if (!read) return { errors, apkSigners: new Set() };
  }
  if (firstSigners === null) {
    errors.push(
      issue(
        V1IssueCode.JAR_SIG_NO_SIGNED_ZIP_ENTRIES,
        'no JAR entries are covered by the signature',
      ),
    );
    return { errors, apkSigners: new Set() };
  }
  return { errors, apkSigners: new Set(firstSigners) };
}

/**
 * Checks `entry`'s data against its manifest section's digests, adding what does not match to
 * `errors`; false when the entry could not be read (verification stops there).
 */
async function checkEntryDigest(
  zip: ZipArchive,
  entry: ZipEntry,
  section: ManifestSection,
  { minSdk, maxSdk }: { readonly minSdk: number; readonly maxSdk: number },
  errors: ApkIssue[],
): Promise<boolean> {
  const name = entry.name;
  const expected = getDigestsToVerify(section, '-Digest', minSdk, maxSdk);
  if (expected.length === 0) {
    errors.push(
      issue(
        V1IssueCode.JAR_SIG_NO_ZIP_ENTRY_DIGEST_IN_MANIFEST,
        `no usable digest of ${name} in the manifest`,
      ),
    );
    return true;
  }
  let actual: Buffer[];
  try {
    actual = await digestEntry(
      zip,
      entry,
      expected.map((d) => createHash(nodeHashName(d.algorithm))),
    );
  } catch (err) {
    errors.push(issueFromError(err, V1IssueCode.JAR_SIG_ENTRY_UNREADABLE));
    return false;
  }
  expected.forEach((d, i) => {
    if (!digestMatches(d, actual[i] as Buffer)) {
      errors.push(
        issue(
          V1IssueCode.JAR_SIG_ZIP_ENTRY_DIGEST_DID_NOT_VERIFY,
          `${d.algorithm} digest of ${name} does not match META-INF/MANIFEST.MF`,
        ),
      );
    }
  });
  return true;
}
