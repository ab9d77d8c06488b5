/** Public surface of the APK inspection core. */
export {
  inspectApk,
  inspectApkDetailed,
  inspectSource,
  type InspectReport,
  type InspectResult,
} from './inspect-apk';
export {
  verifyApk,
  type ApkVerification,
  type ApkSignerInfo,
  type VerifyApkOptions,
} from './verify-apk';
export { openFileSource, bufferSource } from './sources';
export type { RandomAccessSource } from './random-access';
export { ApkFormatError, ApkIssueCode, type ApkIssue } from './issues';
export type { ManifestInfo } from './manifest/read-manifest';
