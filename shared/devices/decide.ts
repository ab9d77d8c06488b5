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
