/**
 * What an installation should be told, from what it runs and what it was offered. Pure: the same
 * function decides on connect, on a version notice and on a heartbeat, in any API process.
 *
 * PushLink's rule: the target is the current APK unless the installation already runs it
 * (downgrades are offered too; the OS may refuse them). An update offered but not applied is
 * given up when the current APK moves away from it: the installation is told once per
 * (installation, abandoned APK).
 */
export interface ApkRef {
  readonly id: string;
  readonly md5: string;
}

export interface InstallationView {
  readonly installedMd5: string | null;
  /** The APK last offered and not yet applied. */
  readonly offeredApkId: string | null;
  /** APKs already given up on this installation. */
  readonly gaveUp: readonly string[];
}

export interface Decision {
  /** Tell the installation to abandon this APK. */
  readonly giveup: string | null;
  /** Offer this APK. */
  readonly version: ApkRef | null;
  /** New value of `offeredApkId`. */
  readonly offeredApkId: string | null;
}

export function decide(
  current: ApkRef | null,
  inst: InstallationView,
  offeredMd5: string | null,
): Decision {
  const runsCurrent = current !== null && inst.installedMd5 === current.md5;
  const offered = inst.offeredApkId;
  const appliedOffered =
    offered !== null && offeredMd5 !== null && inst.installedMd5 === offeredMd5;
  const abandoned =
    offered !== null &&
    offered !== current?.id &&
    !appliedOffered &&
    !inst.gaveUp.includes(offered);
  const version = current !== null && !runsCurrent ? current : null;
  return { giveup: abandoned ? offered : null, version, offeredApkId: version?.id ?? null };
}

/** How a give-up known by its MD5 is remembered among an installation's `gaveUp` APK ids. */
export function gaveUpMd5Mark(md5: string): string {
  return `md5:${md5}`;
}

export interface DownloadView {
  readonly installedMd5: string | null;
  /** The last APK the device downloaded in full, as it reports it (PushLink's lastDownloadHash). */
  readonly lastDownloadedMd5: string | null;
  readonly gaveUp: readonly string[];
}

/**
 * PushLink SDK devices report the last APK they downloaded and never clear it. One that runs the
 * current APK while its last download is another holds an abandoned download (it was offered,
 * then the current APK moved back, perhaps before this server knew the device): it is told to
 * give it up once per (installation, abandoned MD5), remembered as `gaveUpMd5Mark(md5)`. Returns
 * the abandoned MD5, or null when there is nothing to give up.
 */
export function abandonedDownload(current: ApkRef | null, inst: DownloadView): string | null {
  if (current === null || inst.installedMd5 !== current.md5) return null;
  const last = inst.lastDownloadedMd5;
  if (last === null || last === inst.installedMd5) return null;
  return inst.gaveUp.includes(gaveUpMd5Mark(last)) ? null : last;
}
