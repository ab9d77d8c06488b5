/**
 * JAR (APK Signature Scheme v1) verifier, equivalent to AOSP apksig's `V1SchemeVerifier`.
 * See verify-v1.ts for the steps.
 */
export type { V1Options, V1Result, V1Signer } from './types';
export { verifyV1, MAX_APK_SIGNERS } from './verify-v1';
export { V1IssueCode, type V1IssueCodeName } from './issue-codes';
