/**
 * What one open stream is told by one sync, and its offer state after: decide.ts's decision (and
 * abandonedDownload for channels that report their last download, PushLink sockets), said by the
 * stream's channel. No I/O: the hub reads the APKs and writes the offer states.
 */
import type { ApkDoc } from '../../shared/catalog/types';
import { abandonedDownload, decide, gaveUpMd5Mark, type ApkRef } from '../../shared/devices/decide';
import type { OfferState } from '../../shared/devices/store';
import type { SignedOnce } from './events';
import type { Stream } from './stream-registry';

/** Give-ups remembered per installation: an APK's id and, for PushLink devices, its MD5 mark. */
export const GAVE_UP_KEPT = 40;

export interface SyncContext {
  readonly pkg: string;
  /** The target APK (PushHub.targetApk). */
  readonly current: ApkDoc | null;
  /** The APK the stream was last offered, if any. */
  readonly offered: ApkDoc | null;
  /** The client saw the latest notice (SSE Last-Event-ID): an offer made already is not repeated. */
  readonly quietOffer: boolean;
  readonly notices: SignedOnce;
}

/**
 * Tells the stream what the decision says; returns its new offer state, or null when unchanged.
 * A give-up is remembered by the APK's id and by its MD5 (a PushLink device reports abandoned
 * downloads by MD5 only), so either way it is given up once.
 */
export function tellStream(stream: Stream, c: SyncContext): OfferState | null {
  const { offer } = stream;
  const { current, offered } = c;
  const target: ApkRef | null = current
    ? { id: current._id.toHexString(), md5: current.md5 }
    : null;
  const d = decide(target, { installedMd5: stream.installedMd5, ...offer }, offered?.md5 ?? null);
  let gaveUp = offer.gaveUp;
  if (d.giveup) gaveUp = [...gaveUp, d.giveup, ...(offered ? [gaveUpMd5Mark(offered.md5)] : [])];
  const dropped = stream.lastDownloadedMd5
    ? abandonedDownload(target, { ...stream, gaveUp })
    : null;
  if (dropped) gaveUp = [...gaveUp, gaveUpMd5Mark(dropped)];
  const repeat = c.quietOffer && d.version !== null && offer.offeredApkId === d.version.id;
  stream.conn.deliver(c.notices, {
    package: c.pkg,
    version: d.version && current && !repeat ? current : null,
    giveup: d.giveup
      ? { apkId: d.giveup, apk: offered }
      : dropped
        ? { apkId: null, apk: null }
        : null,
    installedMd5: stream.installedMd5,
  });
  if (gaveUp === offer.gaveUp && d.offeredApkId === offer.offeredApkId) return null;
  return { offeredApkId: d.offeredApkId, gaveUp: gaveUp.slice(-GAVE_UP_KEPT) };
}
