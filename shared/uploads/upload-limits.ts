/**
 * Bounds on the upload routes' intake, beyond the size of one APK (MAX_APK_BYTES): what a form
 * may hold before its API key is known. Read from the environment by shared/config.ts; the API
 * takes them as a parameter.
 */
export interface UploadLimits {
  /**
   * Bytes of a form's apk part held in memory while its API key is not known yet (the key field
   * comes after the file). Beyond them the upload is refused before anything is stored: clients
   * send the key first (PushLink's form order) or in an `Authorization: Bearer` header.
   */
  readonly preAuthBytes: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = Object.freeze({
  preAuthBytes: 256 * 1024,
});
