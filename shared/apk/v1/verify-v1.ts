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
import {
  MANIFEST_ENTRY_NAME,
  metaInfEntries,
  pairSigners,
  readManifestContext,
  uniqueEntryNames,
  type Signer,
} from './jar-layout';
import type { V1Options, V1Result, V1Signer } from './types';
import { verifyEntryDigests } from './verify-entry-digests';
import { verifySignatureBlock } from './verify-signature-block';
import { verifySignatureFile, type ManifestContext } from './verify-signature-file';
import type { X509Certificate } from './x509-certificate';

export { MANIFEST_ENTRY_NAME };
/** Android accepts at most this many JAR signers (apksig Constants.MAX_APK_SIGNERS). */
export const MAX_APK_SIGNERS = 10;
/** Size caps for the files read whole; larger ones are refused by the ZIP reader. */
export const MAX_MANIFEST_BYTES = 32 * 1024 * 1024;
export const MAX_SIGNATURE_FILE_BYTES = 32 * 1024 * 1024;
export const MAX_SIGNATURE_BLOCK_BYTES = 4 * 1024 * 1024;

class Abort extends Error {}

/** One verification: the archive, the options and the result being filled. */
interface Run {
  readonly zip: ZipArchive;
  readonly opts: V1Options;
  readonly result: V1Result;
}

/** A signer whose .SF verified against the manifest, with the entries it lists. */
interface Remaining {
  readonly index: number;
  readonly entryNames: ReadonlySet<string>;
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
    await verifyInto({ zip, opts, result });
  } catch (err) {
    if (!(err instanceof Abort)) result.errors.push(issueFromError(err));
  }
  if (result.errors.length > 0) {
    result.verified = false;
    result.signers = [];
  }
  return result;
}

/** Adds the error and stops verification. */
function fail(result: V1Result, code: string, message: string): never {
  result.errors.push(issue(code, message));
  throw new Abort();
}

/** Stops verification when a step found errors. */
function stopOnErrors(result: V1Result): void {
  if (result.errors.length > 0) throw new Abort();
}

/** Reads an entry whole, at most `maxBytes`; an unreadable one stops verification. */
async function read(run: Run, entry: ZipEntry, maxBytes: number): Promise<Buffer> {
  try {
    return await run.zip.readEntry(entry, maxBytes);
  } catch (err) {
    const found = issueFromError(err, V1IssueCode.JAR_SIG_ENTRY_UNREADABLE);
    return fail(run.result, found.code, `${entry.name}: ${found.message}`);
  }
}

async function verifyInto(run: Run): Promise<void> {
  const { zip, opts, result } = run;
  const { minSdk, maxSdk } = opts;
  if (!(minSdk <= maxSdk))
    fail(result, V1IssueCode.JAR_SIG_INVALID_SDK_RANGE, `minSdk ${minSdk} > maxSdk ${maxSdk}`);

  // Directory entries are ignored throughout, as apksig's parseZipCentralDirectory does.
  const entries = zip.entries.filter((e) => !e.name.endsWith('/'));
  const entryNames = uniqueEntryNames(entries, result.errors);
  stopOnErrors(result);

  const metaInf = metaInfEntries(entries);
  result.present = metaInf.sigBlockEntries.length > 0;
  if (metaInf.manifestEntry === undefined)
    return fail(result, V1IssueCode.JAR_SIG_NO_MANIFEST, `no ${MANIFEST_ENTRY_NAME}`);

  const manifest = readManifestContext(
    await read(run, metaInf.manifestEntry, MAX_MANIFEST_BYTES),
    entryNames,
    result.errors,
  );
  stopOnErrors(result);

  const signers = pairSigners(metaInf, result.warnings);
  if (signers.length === 0) fail(result, V1IssueCode.JAR_SIG_NO_SIGNATURES, 'no JAR signatures');
  if (signers.length > MAX_APK_SIGNERS) {
    fail(
      result,
      V1IssueCode.JAR_SIG_MAX_SIGNATURES_EXCEEDED,
      `${signers.length} JAR signers; at most ${MAX_APK_SIGNERS} are allowed`,
    );
  }

  const { sigFiles, chains } = await verifyBlocks(run, signers);
  stopOnErrors(result);

  const remaining = verifySigFiles(run, signers, sigFiles, manifest);
  stopOnErrors(result);
  if (remaining.length === 0)
    fail(result, V1IssueCode.JAR_SIG_NO_SIGNATURES, 'no usable JAR signers');

  const entryOutcome = await verifyEntryDigests(
    zip,
    entries,
    manifest.sections,
    remaining.map((r) => ({ name: (signers[r.index] as Signer).name, entryNames: r.entryNames })),
    minSdk,
    maxSdk,
  );
  appendIssues(result.errors, entryOutcome.errors);
  stopOnErrors(result);

  const apkSigners = remaining
    .filter((_, i) => entryOutcome.apkSigners.has(i))
    .map((r) => signers[r.index] as Signer);
  warnUnprotected(entries, apkSigners, result.warnings);
  result.signers = apkSigners.map((s) => toV1Signer(s, chains[signers.indexOf(s)] ?? []));
  result.verified = true;
}

/** Verifies each signature block against its .SF file; any error stops verification. */
async function verifyBlocks(
  run: Run,
  signers: readonly Signer[],
): Promise<{ sigFiles: Buffer[]; chains: X509Certificate[][] }> {
  const { minSdk, maxSdk } = run.opts;
  const sigFiles: Buffer[] = [];
  const chains: X509Certificate[][] = [];
  for (const s of signers) {
    const blockBytes = await read(run, s.blockEntry, MAX_SIGNATURE_BLOCK_BYTES);
    const sigFileBytes = await read(run, s.sigFileEntry, MAX_SIGNATURE_FILE_BYTES);
    const outcome = verifySignatureBlock(
      s.blockEntry.name,
      s.sigFileEntry.name,
      blockBytes,
      sigFileBytes,
      minSdk,
      maxSdk,
    );
    appendIssues(run.result.errors, outcome.errors);
    sigFiles.push(sigFileBytes);
    chains.push(outcome.certChain ?? []);
  }
  return { sigFiles, chains };
}

/** Verifies each .SF file against the manifest; ignored signers drop out with warnings. */
function verifySigFiles(
  run: Run,
  signers: readonly Signer[],
  sigFiles: readonly Buffer[],
  manifest: ManifestContext,
): Remaining[] {
  const { opts, result } = run;
  const remaining: Remaining[] = [];
  const declared = new Set<number>();
  const stripped = new Set<number>();
  signers.forEach((s, index) => {
    const outcome = verifySignatureFile(
      s.sigFileEntry.name,
      sigFiles[index] as Buffer,
      manifest,
      opts.foundSchemeIds,
      opts.minSdk,
      opts.maxSdk,
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
  return remaining;
}

/** Warns of each META-INF entry that neither the manifest nor an APK signer's files cover. */
function warnUnprotected(
  entries: readonly ZipEntry[],
  apkSigners: readonly Signer[],
  warnings: ApkIssue[],
): void {
  const protectedNames = new Set([MANIFEST_ENTRY_NAME]);
  for (const s of apkSigners) {
    protectedNames.add(s.blockEntry.name);
    protectedNames.add(s.sigFileEntry.name);
  }
  for (const e of entries) {
    if (e.name.startsWith('META-INF/') && !protectedNames.has(e.name)) {
      warnings.push(
        issue(
          V1IssueCode.JAR_SIG_UNPROTECTED_ZIP_ENTRY,
          `${e.name} is not protected by the JAR signature`,
        ),
      );
    }
  }
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
