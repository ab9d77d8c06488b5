/**
 * `inspect`: one APK in, one report out. Opens the file (I/O edge), runs the pure verification
 * core (`verify-apk.ts`) and flattens its result into the report the CLI prints and the upload
 * pipeline stores. Never throws for a bad file: unreadable, empty, non-ZIP or hostile input is a
 * report with `valid: false` and error codes.
 */
import { ApkIssueCode, issue, issueFromError, type ApkIssue } from './issues';
import type { RandomAccessSource } from './random-access';
import { openFileSource } from './sources';
import { verifyApk, type ApkVerification } from './verify-apk';

export interface InspectReport {
  file: string;
  /** Android accepts its signatures (apksig ApkVerifier with minSdk from the manifest). */
  valid: boolean;
  package: string | null;
  versionCode: number | null;
  versionName: string | null;
  minSdk: number | null;
  targetSdk: number | null;
  testOnly: boolean | null;
  debuggable: boolean | null;
  /** Application label when the manifest holds it as a literal string. */
  label: string | null;
  /** Schemes whose signatures verified (as apksigner's "Verified using ..." lines). */
  schemes: { v1: boolean; v2: boolean; v3: boolean; v31: boolean };
  /** The signer(s) Android uses; the newest certificate of a v3 lineage. */
  signers: Array<{ sha256: string }>;
  md5: string | null;
  sha256: string | null;
  size: number | null;
  errors: ApkIssue[];
}

export interface InspectResult {
  report: InspectReport;
  /** Full verification, including the v3 lineage (oldest first) and warnings. */
  verification: ApkVerification | null;
}

export function toReport(file: string, v: ApkVerification): InspectReport {
  const m = v.manifest;
  return {
    file,
    valid: v.verified,
    package: m?.package ?? null,
    versionCode: m?.versionCode ?? null,
    versionName: m?.versionName ?? null,
    minSdk: m?.minSdk ?? null,
    targetSdk: m?.targetSdk ?? null,
    testOnly: m?.testOnly ?? null,
    debuggable: m?.debuggable ?? null,
    label: m?.label ?? null,
    schemes: v.schemes,
    signers: v.signers.map((s) => ({ sha256: s.sha256 })),
    md5: v.md5,
    sha256: v.sha256,
    size: v.size,
    errors: v.errors.map((e) => ({ code: e.code, message: e.message })),
  };
}

function failedReport(file: string, error: ApkIssue): InspectReport {
  return {
    file,
    valid: false,
    package: null,
    versionCode: null,
    versionName: null,
    minSdk: null,
    targetSdk: null,
    testOnly: null,
    debuggable: null,
    label: null,
    schemes: { v1: false, v2: false, v3: false, v31: false },
    signers: [],
    md5: null,
    sha256: null,
    size: null,
    errors: [error],
  };
}

/** Inspects an already-open source; the caller keeps ownership of it. */
export async function inspectSource(
  source: RandomAccessSource,
  file: string,
): Promise<InspectResult> {
  try {
    const verification = await verifyApk(source);
    return { report: toReport(file, verification), verification };
  } catch (err) {
    return { report: failedReport(file, issueFromError(err)), verification: null };
  }
}

/** Inspects the APK at `path` (or an open source, reported under `file`). */
export async function inspectApkDetailed(
  input: string | RandomAccessSource,
  file: string = typeof input === 'string' ? input : '<source>',
): Promise<InspectResult> {
  if (typeof input !== 'string') return inspectSource(input, file);
  let source: RandomAccessSource;
  try {
    source = await openFileSource(input);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      report: failedReport(file, issue(ApkIssueCode.IO_ERROR, message)),
      verification: null,
    };
  }
  try {
    return await inspectSource(source, file);
  } finally {
    await source.close();
  }
}

export async function inspectApk(
  input: string | RandomAccessSource,
  file?: string,
): Promise<InspectReport> {
  return (await inspectApkDetailed(input, file)).report;
}
