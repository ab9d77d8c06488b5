/**
 * JAR (APK Signature Scheme v1) verifier, equivalent to AOSP apksig's `V1SchemeVerifier`
 * (see verify-v1.ts for the steps).
 *
 * Callers decide whether v1 matters, as apksig's ApkVerifier does: it runs the JAR verifier
 * only when minSdk < 24 or no v2/v3 signature was found, and passes the IDs of the schemes it
 * found (2, 3, 31) so that `X-Android-APK-Signed` stripping protection can be checked.
 * `signers[i].certificates[0]` is the certificate to compare with v2/v3 signers.
 */
export type { V1Options, V1Result, V1Signer } from './types';
export { verifyV1, MAX_APK_SIGNERS } from './verify-v1';
export { V1IssueCode, type V1IssueCodeName } from './issue-codes';
