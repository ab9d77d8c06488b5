/**
 * Bounds on the upload routes' intake, beyond the size of one APK (MAX_APK_BYTES): what a form
 * may hold before its API key is known, how slowly its body may arrive, and how many arrive at
 * once. Read from the environment by shared/config.ts; the API
 * takes them as a parameter.
 */
export interface UploadLimits {
  /**
   * Bytes of a form's apk part held in memory while its API key is not known yet (the key field
   * comes after the file, as react-native-push-link sends it). The rest of the file waits in a
   * private spool file under DATA_DIR; nothing is stored before the key is accepted.
   */
  readonly preAuthBytes: number;
  /**
   * Bytes of such files this API process spools to disk at once, in all (past `preAuthBytes`
   * each). An upload that would pass it is refused (503) and its held bytes deleted: it bounds
   * the disk that clients who have not shown a key yet can take.
   */
  readonly spoolBytes: number;
  /**
   * The body-progress deadline: an upload whose body brings fewer than `progressBytes` bytes in
   * any `progressWindowMs` is cut (408), whatever is staged of it removed. Time the server itself
   * holds the body back (checking the key, waiting on storage) does not count.
   */
  readonly progressBytes: number;
  readonly progressWindowMs: number;
  /**
   * Uploads an API process receives at once from one client address (IPv6: per /64), and in
   * all; past them an upload is refused at once with Retry-After (429 for the address, 503 for
   * the total) before its body is read. A slot is held while the body is received.
   */
  readonly perAddress: number;
  readonly total: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = Object.freeze({
  preAuthBytes: 256 * 1024,
  spoolBytes: 4 * 1024 ** 3,
  progressBytes: 32 * 1024,
  progressWindowMs: 30_000,
  perAddress: 64,
  total: 128,
});
