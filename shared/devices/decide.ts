/**
 * What an installation should be told, from what it runs and what it was offered. Pure: the same
 * function decides on connect, on a version notice and on a heartbeat, in any API process.
 *
 * The target is offered unless the installation already runs it, and never as a downgrade: an
 * installation that runs a higher versionCode than the target (it installed a rollout's APK that
 * was then halted) is "ahead" and offered nothing, since Android refuses a lower versionCode
 * (PushLink offered downgrades; docs/push.md). Its versionCode is known from its installed MD5
 * among the app's APKs; an MD5 the server does not know is offered the target as before. An
 * update offered but not applied is given up when the target moves away from it or the
 * installation is ahead of it: the installation is told once per (installation, abandoned APK).
 */
export interface ApkRef {
  readonly id: string;
  readonly md5: string;
  readonly versionCode: number;
}

/**
 * True when an installation running `installedVersionCode` is ahead of `target`: offering it
 * would be a downgrade. False without a target or when the installed APK is unknown (null).
 */
export function isAhead(target: ApkRef | null, installedVersionCode: number | null): boolean {
  return (
    target !== null && installedVersionCode !== null && installedVersionCode > target.versionCode
  );
}

export interface InstallationView {
  readonly installedMd5: string | null;
  /** The versionCode of the installed APK, or null when the server knows no APK of that MD5. */
  readonly installedVersionCode: number | null;
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
  const ahead = isAhead(current, inst.installedVersionCode);
  const offered = inst.offeredApkId;
  const appliedOffered =
    offered !== null && offeredMd5 !== null && inst.installedMd5 === offeredMd5;
  const abandoned =
    offered !== null &&
    (offered !== current?.id || ahead) &&
    !appliedOffered &&
    !inst.gaveUp.includes(offered);
  const version = current !== null && !runsCurrent && !ahead ? current : null;
  return { giveup: abandoned ? offered : null, version, offeredApkId: version?.id ?? null };
}

/** How a give-up known by its MD5 is remembered among an installation's `gaveUp` APK ids. */
export function gaveUpMd5Mark(md5: string): string {
  return `md5:${md5}`;
}

export interface DownloadView {
  readonly installedMd5: string | null;
  /** As in InstallationView: null when the server knows no APK of the installed MD5. */
  readonly installedVersionCode: number | null;
  /** The last APK the device downloaded in full, as it reports it (PushLink's lastDownloadHash). */
  readonly lastDownloadedMd5: string | null;
  readonly gaveUp: readonly string[];
}

/**
 * PushLink SDK devices report the last APK they downloaded and never clear it. One that runs the
 * current APK while its last download is another holds an abandoned download (it was offered,
 * then the current APK moved back, perhaps before this server knew the device): it is told to
 * give it up once per (installation, abandoned MD5), remembered as `gaveUpMd5Mark(md5)`. Returns
 * the abandoned MD5, or null when there is nothing to give up. One that is ahead of the current
 * APK (offered nothing) gives up any download other than what it runs, the same way.
 */
export function abandonedDownload(current: ApkRef | null, inst: DownloadView): string | null {
  if (current === null) return null;
  if (inst.installedMd5 !== current.md5 && !isAhead(current, inst.installedVersionCode))
    return null;
  const last = inst.lastDownloadedMd5;
  if (last === null || last === inst.installedMd5) return null;
  return inst.gaveUp.includes(gaveUpMd5Mark(last)) ? null : last;
}
