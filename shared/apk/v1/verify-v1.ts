/**
 * JAR signature (APK Signature Scheme v1) verification, equivalent to AOSP apksig's
 * `V1SchemeVerifier`: the APK verifies iff its JAR signatures are expected to verify on every
 * Android version in [minSdk, maxSdk]. Steps, each stopping at the first error as Android does:
 *
 * 1. no duplicate entry names; META-INF/MANIFEST.MF present, its sections named, unique and
 *    referring to existing entries;
 * 2. signers = signature blocks (.RSA/.DSA/.EC) with a matching .SF; at most 10;
 * 3. each block's PKCS #7 signature verifies over its .SF (verify-signature-block.ts);
 * 4. each .SF verifies against the manifest (verify-signature-file.ts);
 * 5. every entry outside META-INF/ matches its manifest digest and is signed by the same
 *    signers (verify-entry-digests.ts).
 *
 * Bad or hostile input yields issues, never a thrown error; entries are read with size caps and
 * entry data is streamed.
 */
import { createHash } from 'node:crypto';
import { appendIssues, issue, issueFromError, type ApkIssue } from '../issues';
import type { ZipArchive, ZipEntry } from '../zip/types';
import { V1IssueCode } from './issue-codes';
import { parseManifest, type ManifestSection } from './manifest-parser';
import type { V1Options, V1Result, V1Signer } from './types';
import { verifyEntryDigests } from './verify-entry-digests';
import { verifySignatureBlock } from './verify-signature-block';
import { verifySignatureFile, type ManifestContext } from './verify-signature-file';
import type { X509Certificate } from './x509-certificate';

export const MANIFEST_ENTRY_NAME = 'META-INF/MANIFEST.MF';
/** Android accepts at most this many JAR signers (apksig Constants.MAX_APK_SIGNERS). */
export const MAX_APK_SIGNERS = 10;
/** Size caps for the files read whole; larger ones are refused by the ZIP reader. */
export const MAX_MANIFEST_BYTES = 32 * 1024 * 1024;
export const MAX_SIGNATURE_FILE_BYTES = 32 * 1024 * 1024;
export const MAX_SIGNATURE_BLOCK_BYTES = 4 * 1024 * 1024;

interface Signer {
  readonly name: string;
  readonly blockEntry: ZipEntry;
  readonly sigFileEntry: ZipEntry;
}

class Abort extends Error {}

function isSignatureBlock(name: string): boolean {
  return name.endsWith('.RSA') || name.endsWith('.DSA') || name.endsWith('.EC');
}

export async function verifyV1(zip: ZipArchive, opts: V1Options): Promise<V1Result> {
  const result: V1Result = {
    present: false,
    verified: false,
    signers: [],
    errors: [],
    warnings: [],
    strippedSchemeIds: [],
    declaredSchemeIds: [],
  };
  try {
    await verifyInto(zip, opts, result);
  } catch (err) {
    if (!(err instanceof Abort)) result.errors.push(issueFromError(err));
  }
  if (result.errors.length > 0) {
    result.verified = false;
    result.signers = [];
  }
  return result;
}

async function verifyInto(zip: ZipArchive, opts: V1Options, result: V1Result): Promise<void> {
  const { minSdk, maxSdk } = opts;
  const fail = (code: string, message: string): never => {
    result.errors.push(issue(code, message));
    throw new Abort();
  };
  const stopOnErrors = (): void => {
    if (result.errors.length > 0) throw new Abort();
  };
  const read = async (entry: ZipEntry, maxBytes: number): Promise<Buffer> => {
    try {
      return await zip.readEntry(entry, maxBytes);
    } catch (err) {
      const found = issueFromError(err, V1IssueCode.JAR_SIG_ENTRY_UNREADABLE);
      return fail(found.code, `${entry.name}: ${found.message}`);
    }
  };
  if (!(minSdk <= maxSdk))
    fail(V1IssueCode.JAR_SIG_INVALID_SDK_RANGE, `minSdk ${minSdk} > maxSdk ${maxSdk}`);

  // Directory entries are ignored throughout, as apksig's parseZipCentralDirectory does.
  const entries = zip.entries.filter((e) => !e.name.endsWith('/'));
  const entryNames = new Set<string>();
  const reported = new Set<string>();
  for (const e of entries) {
    if (!entryNames.has(e.name)) entryNames.add(e.name);
    else if (!reported.has(e.name)) {
      reported.add(e.name);
      result.errors.push(
        issue(V1IssueCode.JAR_SIG_DUPLICATE_ZIP_ENTRY, `duplicate entry ${e.name}`),
      );
    }
  }
  stopOnErrors();

  let manifestEntry: ZipEntry | undefined;
  const sigFileEntries = new Map<string, ZipEntry>();
  const sigBlockEntries: ZipEntry[] = [];
  for (const e of entries) {
    if (!e.name.startsWith('META-INF/')) continue;
    if (manifestEntry === undefined && e.name === MANIFEST_ENTRY_NAME) manifestEntry = e;
    else if (e.name.endsWith('.SF')) sigFileEntries.set(e.name, e);
    else if (isSignatureBlock(e.name)) sigBlockEntries.push(e);
  }
  result.present = sigBlockEntries.length > 0;
  if (manifestEntry === undefined)
    return fail(V1IssueCode.JAR_SIG_NO_MANIFEST, `no ${MANIFEST_ENTRY_NAME}`);

  const manifest = readManifestContext(
    await read(manifestEntry, MAX_MANIFEST_BYTES),
    entryNames,
    result.errors,
  );
  stopOnErrors();

  const signers: Signer[] = [];
  for (const blockEntry of sigBlockEntries) {
    const sigFileName = `${blockEntry.name.slice(0, blockEntry.name.lastIndexOf('.'))}.SF`;
    const sigFileEntry = sigFileEntries.get(sigFileName);
    if (sigFileEntry === undefined) {
      result.warnings.push(
        issue(V1IssueCode.JAR_SIG_MISSING_FILE, `${blockEntry.name} has no ${sigFileName}`),
      );
      continue;
    }
    signers.push({ name: blockEntry.name.slice('META-INF/'.length), blockEntry, sigFileEntry });
  }
  if (signers.length === 0) fail(V1IssueCode.JAR_SIG_NO_SIGNATURES, 'no JAR signatures');
  if (signers.length > MAX_APK_SIGNERS) {
    fail(
      V1IssueCode.JAR_SIG_MAX_SIGNATURES_EXCEEDED,
      `${signers.length} JAR signers; at most ${MAX_APK_SIGNERS} are allowed`,
    );
  }

  // Verify each signature block against its .SF file; any error stops verification.
  const sigFiles: Buffer[] = [];
  const chains: X509Certificate[][] = [];
  for (const s of signers) {
    const blockBytes = await read(s.blockEntry, MAX_SIGNATURE_BLOCK_BYTES);
    const sigFileBytes = await read(s.sigFileEntry, MAX_SIGNATURE_FILE_BYTES);
    const outcome = verifySignatureBlock(
      s.blockEntry.name,
      s.sigFileEntry.name,
      blockBytes,
      sigFileBytes,
      minSdk,
      maxSdk,
    );
    appendIssues(result.errors, outcome.errors);
    sigFiles.push(sigFileBytes);
    chains.push(outcome.certChain ?? []);
  }
  stopOnErrors();

  // Verify each .SF file against the manifest; ignored signers drop out with warnings.
  const remaining: { index: number; entryNames: ReadonlySet<string> }[] = [];
  const declared = new Set<number>();
  const stripped = new Set<number>();
  signers.forEach((s, index) => {
    const outcome = verifySignatureFile(
      s.sigFileEntry.name,
      sigFiles[index] as Buffer,
      manifest,
      opts.foundSchemeIds,
      minSdk,
      maxSdk,
    );
    outcome.declaredSchemeIds.forEach((id) => declared.add(id));
    outcome.strippedSchemeIds.forEach((id) => stripped.add(id));
    appendIssues(result.warnings, outcome.warnings);
    if (outcome.ignored) {
      appendIssues(
        result.warnings,
        outcome.errors.map((e) => ({ ...e, message: `ignored signer ${s.name}: ${e.message}` })),
      );
    } else if (outcome.errors.length > 0) {
      appendIssues(result.errors, outcome.errors);
    } else {
      remaining.push({ index, entryNames: outcome.entryNames });
    }
  });
  result.declaredSchemeIds = [...declared].sort((a, b) => a - b);
  result.strippedSchemeIds = [...stripped].sort((a, b) => a - b);
  stopOnErrors();
  if (remaining.length === 0) fail(V1IssueCode.JAR_SIG_NO_SIGNATURES, 'no usable JAR signers');

  const entryOutcome = await verifyEntryDigests(
    zip,
    entries,
    manifest.sections,
    remaining.map((r) => ({ name: (signers[r.index] as Signer).name, entryNames: r.entryNames })),
    minSdk,
    maxSdk,
  );
  appendIssues(result.errors, entryOutcome.errors);
  stopOnErrors();

  const apkSigners = remaining
    .filter((_, i) => entryOutcome.apkSigners.has(i))
    .map((r) => signers[r.index] as Signer);
  const protectedNames = new Set([MANIFEST_ENTRY_NAME]);
  for (const s of apkSigners) {
    protectedNames.add(s.blockEntry.name);
    protectedNames.add(s.sigFileEntry.name);
  }
  for (const e of entries) {
    if (e.name.startsWith('META-INF/') && !protectedNames.has(e.name)) {
      result.warnings.push(
        issue(
          V1IssueCode.JAR_SIG_UNPROTECTED_ZIP_ENTRY,
          `${e.name} is not protected by the JAR signature`,
        ),
      );
    }
  }
  result.signers = apkSigners.map((s) => toV1Signer(s, chains[signers.indexOf(s)] ?? []));
  result.verified = true;
}

function readManifestContext(
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

function toV1Signer(s: Signer, chain: readonly X509Certificate[]): V1Signer {
  const certificates = chain.map((c) => c.der);
  const first = certificates[0] ?? Buffer.alloc(0);
  return {
    certificates,
    sha256: createHash('sha256').update(first).digest('hex'),
    name: s.name,
    signatureFileName: s.sigFileEntry.name,
    signatureBlockFileName: s.blockEntry.name,
  };
}
