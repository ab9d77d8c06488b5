/**
 * The signed events of the push stream (format 2, `v: 2`), built from catalogue records. Each
 * names the account, the package, the device and when it was signed (`issuedAt`), and the APK.
 * A notice sent to one stream (a device connecting or reconnecting: every replay after
 * Last-Event-ID) names that device and is signed afresh; a notice fanned out live to every open
 * stream of an app names `*` (every installation of that app in that account), so one signature
 * serves them all (signing per device made a notice to a large fleet cost seconds of CPU). A client
 * refuses another account's notice, another device's, and stale ones (docs/push.md). The notice's
 * fields and format are the protocol layer's (device-client/protocol/signed-notice.ts).
 */
import { createEventBuffer, type EventBuffer } from 'better-sse';
import type { ApkDoc } from '../../shared/catalog/types';
import { signEvent, type PushKeys } from '../../shared/devices/push-signing';
import {
  NOTICE_FORMAT,
  type GiveupNoticeBody,
  type VersionNoticeBody,
} from '../../device-client/protocol/signed-notice';

export interface EventContext {
  readonly keys: PushKeys;
  readonly webUrl: string;
  readonly now: Date;
}

/** Whom a notice is for: the app's account, and a device id or `*` (every device of the app). */
export interface NoticeAudience {
  readonly account: string;
  readonly device: string;
}

export function versionEvent(ctx: EventContext, to: NoticeAudience, apk: ApkDoc) {
  return signEvent(ctx.keys, {
    v: NOTICE_FORMAT,
    type: 'version',
    account: to.account,
    package: apk.package,
    device: to.device,
    apkId: apk._id.toHexString(),
    md5: apk.md5,
    sha256: apk.sha256,
    versionCode: apk.versionCode,
    versionName: apk.versionName,
    size: apk.size,
    // The client adds its api_key and deviceId, as PushLink clients do.
    url: `${ctx.webUrl}/download?package=${encodeURIComponent(apk.package)}`,
    issuedAt: ctx.now.toISOString(),
  } satisfies VersionNoticeBody);
}

export function giveupEvent(
  ctx: EventContext,
  to: NoticeAudience,
  pkg: string,
  apk: ApkDoc | null,
  apkId: string,
) {
  return signEvent(ctx.keys, {
    v: NOTICE_FORMAT,
    type: 'giveup',
    account: to.account,
    package: pkg,
    device: to.device,
    apkId,
    md5: apk?.md5 ?? null,
    issuedAt: ctx.now.toISOString(),
  } satisfies GiveupNoticeBody);
}

/**
 * The events of one sync, each signed and written out as SSE text the first time a stream needs
 * it. Streams are sent the ready text (better-sse's `session.batch(buffer)`), so a notice to
 * 10,000 streams serialises and sanitises its event once, not once per stream.
 */
export class SignedOnce {
  private readonly versions = new Map<string, EventBuffer>();
  private readonly giveups = new Map<string, EventBuffer>();

  /**
   * `eventId`: the notice's id in the app's stream (what `Last-Event-ID` resumes from); `to`:
   * whom every event of this sync is addressed to.
   */
  constructor(
    private readonly ctx: EventContext,
    private readonly eventId: string,
    private readonly to: NoticeAudience,
  ) {}

  /** A sync may offer two APKs (a rollout's and the current one): each is signed once. */
  version(apk: ApkDoc): EventBuffer {
    const id = apk._id.toHexString();
    let event = this.versions.get(id);
    if (!event) {
      event = this.text(versionEvent(this.ctx, this.to, apk), 'version');
      this.versions.set(id, event);
    }
    return event;
  }

  giveup(pkg: string, apk: ApkDoc | null, apkId: string): EventBuffer {
    let event = this.giveups.get(apkId);
    if (!event) {
      event = this.text(giveupEvent(this.ctx, this.to, pkg, apk, apkId), 'giveup');
      this.giveups.set(apkId, event);
    }
    return event;
  }

  private text(data: unknown, name: string): EventBuffer {
    return createEventBuffer().push(data, name, this.eventId);
  }
}
