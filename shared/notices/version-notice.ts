/**
 * What a version notice says and the port that sends it: "the current APK of this app changed".
 * Below the features that make an APK current (rollouts/current-apk.ts) and the queue that carries
 * the notice (queues/), so that neither imports the other.
 */
export interface VersionNoticePayload {
  readonly accountId: string;
  readonly appId: string;
  readonly package: string;
  /** The new current APK, or null when the current APK was cleared. */
  readonly apkId: string | null;
  /** The app's `currentVersion` after the change: orders notices and de-duplicates jobs. */
  readonly currentVersion: number;
}

export interface NoticeSink {
  publish(notice: VersionNoticePayload): Promise<void>;
}
