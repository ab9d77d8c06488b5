/**
 * Problems found in an APK, with stable upper-snake codes modelled on apksig's
 * `ApkVerifier.Issue` names (AOSP platform/tools/apksig `ApkVerifier.java`). Tests and
 * callers match on `code`, never on message text. Both the inspection core and the JAR (v1)
 * verifier in `shared/apk/v1/` report through these types.
 */
export interface ApkIssue {
  code: string;
  message: string;
}

/**
 * Codes raised by the ZIP reader, the manifest reader and the orchestrator. The signature-scheme
 * verifiers (shared/apk/signing/) use apksig's Issue names verbatim: `V2_SIG_*` and `V3_SIG_*`
 * (v3.1 signers report `V3_SIG_*` too, as apksig does), `V3_*`, `V31_*`; the JAR verifier
 * (shared/apk/v1/) uses `JAR_SIG_*`.
 */
export const ApkIssueCode = {
  // Input shape
  NOT_A_ZIP: 'NOT_A_ZIP',
  APK_TRUNCATED: 'APK_TRUNCATED',
  APK_TOO_LARGE: 'APK_TOO_LARGE',
  IO_ERROR: 'IO_ERROR',
  ZIP64_UNSUPPORTED: 'ZIP64_UNSUPPORTED',
  ZIP_CD_TOO_LARGE: 'ZIP_CD_TOO_LARGE',
  ZIP_TOO_MANY_ENTRIES: 'ZIP_TOO_MANY_ENTRIES',
  ZIP_MALFORMED_CD_RECORD: 'ZIP_MALFORMED_CD_RECORD',
  ZIP_DUPLICATE_ENTRY: 'ZIP_DUPLICATE_ENTRY',
  ZIP_LFH_MISMATCH: 'ZIP_LFH_MISMATCH',
  ZIP_MALFORMED_ENTRY_DATA: 'ZIP_MALFORMED_ENTRY_DATA',
  ZIP_ENTRY_TOO_LARGE: 'ZIP_ENTRY_TOO_LARGE',
  ZIP_BOMB: 'ZIP_BOMB',
  // Manifest
  MANIFEST_MISSING: 'MANIFEST_MISSING',
  MANIFEST_MALFORMED: 'MANIFEST_MALFORMED',
  MANIFEST_UNKNOWN_CODENAME: 'MANIFEST_UNKNOWN_CODENAME',
  // Verdict-level, named as apksig's ApkVerifier.Issue
  JAR_SIG_NO_SIGNATURES: 'JAR_SIG_NO_SIGNATURES',
  JAR_SIG_MISSING: 'JAR_SIG_MISSING',
  V2_SIG_MISSING: 'V2_SIG_MISSING',
  NO_SIG_FOR_TARGET_SANDBOX_VERSION: 'NO_SIG_FOR_TARGET_SANDBOX_VERSION',
  MIN_SIG_SCHEME_FOR_TARGET_SDK_NOT_MET: 'MIN_SIG_SCHEME_FOR_TARGET_SDK_NOT_MET',
  V31_BLOCK_FOUND_WITHOUT_V3_BLOCK: 'V31_BLOCK_FOUND_WITHOUT_V3_BLOCK',
  V3_SIG_PAST_SIGNERS_MISMATCH: 'V3_SIG_PAST_SIGNERS_MISMATCH',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
} as const;

export type ApkIssueCodeName = (typeof ApkIssueCode)[keyof typeof ApkIssueCode];

/** A malformed or refused input. Thrown inside the core, turned into an `ApkIssue` at its edge. */
export class ApkFormatError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'ApkFormatError';
    this.code = code;
  }
}

export function issue(code: string, message: string): ApkIssue {
  return { code, message };
}

/** Any thrown value as an issue; unknown failures keep their message under `fallbackCode`. */
export function issueFromError(
  err: unknown,
  fallbackCode: string = ApkIssueCode.INTERNAL_ERROR,
): ApkIssue {
  if (err instanceof ApkFormatError) return { code: err.code, message: err.message };
  return { code: fallbackCode, message: err instanceof Error ? err.message : String(err) };
}

/**
 * Appends `items` to `target` one by one. `target.push(...items)` passes every item as a call
 * argument, and hostile input can make a list long enough (a few 100,000 issues) to overflow the
 * call stack with a RangeError.
 */
export function appendIssues(target: ApkIssue[], items: Iterable<ApkIssue>): void {
  for (const item of items) target.push(item);
}
