/**
 * The outcome of an upload and the exact reply PushLink upload clients expect for it (spec
 * section 7). Real clients rely on these bytes: one judges only by HTTP status, one fails on a
 * non-2xx reply without Content-Type, and prints the body only when Content-Length is present.
 */
import { ERRORS, type ErrorCode } from '../errors';

export type RejectionCode = Extract<
  ErrorCode,
  | 'APK_INVALID'
  | 'APK_DUPLICATE'
  | 'APK_SIGNER_MISMATCH'
  | 'APK_TOO_LARGE'
  | 'APK_PACKAGE_MISMATCH'
  | 'APK_PACKAGE_NAME_INVALID'
  | 'UPLOAD_FAILED'
>;

export type Verdict =
  | { readonly status: 'accepted'; readonly apkId: string }
  | { readonly status: 'rejected'; readonly code: RejectionCode; readonly message: string };

export const LEGACY_TEXT = {
  ACCEPTED: 'deploy successful',
  INVALID_API_KEY: 'deploy fails, Invalid Api Key',
  APK_INVALID: 'deploy fails, Invalid APK file',
  APK_DUPLICATE: 'deploy fails, this APK hash is the same of another APK uploaded',
  APK_SIGNER_MISMATCH: "deploy fails, APK signer does not match this app's signer",
  PACKAGE_FIELD_INVALID: 'deploy fails, the package field must name an Android package',
} as const;

/** The legacy plain-text reply of a verdict (or of an authentication failure). */
export function legacyReply(
  outcome: Verdict | { status: 'unauthenticated' },
  maxApkBytes: number,
): { status: number; text: string } {
  if (outcome.status === 'accepted') return { status: 200, text: LEGACY_TEXT.ACCEPTED };
  if (outcome.status === 'unauthenticated')
    return { status: 401, text: LEGACY_TEXT.INVALID_API_KEY };
  switch (outcome.code) {
    case 'APK_INVALID':
    case 'APK_PACKAGE_MISMATCH':
    case 'APK_PACKAGE_NAME_INVALID':
      return { status: 422, text: LEGACY_TEXT.APK_INVALID };
    case 'APK_DUPLICATE':
      return { status: 409, text: LEGACY_TEXT.APK_DUPLICATE };
    case 'APK_SIGNER_MISMATCH':
      return { status: 409, text: LEGACY_TEXT.APK_SIGNER_MISMATCH };
    case 'APK_TOO_LARGE':
      return { status: 413, text: `deploy fails, APK file larger than ${maxApkBytes} bytes` };
    case 'UPLOAD_FAILED':
      return { status: 500, text: 'deploy fails, internal error; try again' };
  }
}

export function rejection(code: RejectionCode, message: string = ERRORS[code].message): Verdict {
  return { status: 'rejected', code, message };
}
