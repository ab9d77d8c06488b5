/**
 * The signed events of the push stream, built from catalogue records. An event names the app
 * (package) and the APK, not the device: one signature serves every stream a notice reaches
 * (Ed25519 per device cost ~1.5 s of CPU per notice at 10,000 devices). What a signature still
 * guarantees: only this server orders an install, of exactly this APK (md5, sha256, size), for
 * this package. Relaying one device's event to another device of the same app tells it what the
 * server tells every device of that app.
 */
import type { ApkDoc } from '../../shared/catalog/types';
import { signEvent, type PushKeys } from '../../shared/devices/push-signing';

export interface EventContext {
  readonly keys: PushKeys;
  readonly webUrl: string;
  readonly now: Date;
}

export function versionEvent(ctx: EventContext, apk: ApkDoc) {
  return signEvent(ctx.keys, {
    type: 'version',
    package: apk.package,
    apkId: apk._id.toHexString(),
    md5: apk.md5,
    sha256: apk.sha256,
    versionCode: apk.versionCode,
    versionName: apk.versionName,
    size: apk.size,
    // The client adds its api_key and deviceId, as PushLink clients do.
    url: `${ctx.webUrl}/download?package=${encodeURIComponent(apk.package)}`,
    issuedAt: ctx.now.toISOString(),
  });
}

export function giveupEvent(ctx: EventContext, pkg: string, apk: ApkDoc | null, apkId: string) {
  return signEvent(ctx.keys, {
    type: 'giveup',
    package: pkg,
    apkId,
    md5: apk?.md5 ?? null,
    issuedAt: ctx.now.toISOString(),
  });
}

/** The events of one sync, each signed the first time a stream needs it. */
export class SignedOnce {
  private version_: ReturnType<typeof versionEvent> | undefined;
  private readonly giveups = new Map<string, ReturnType<typeof giveupEvent>>();

  constructor(private readonly ctx: EventContext) {}

  version(apk: ApkDoc): ReturnType<typeof versionEvent> {
    return (this.version_ ??= versionEvent(this.ctx, apk));
  }

  giveup(pkg: string, apk: ApkDoc | null, apkId: string): ReturnType<typeof giveupEvent> {
    let event = this.giveups.get(apkId);
    if (!event) this.giveups.set(apkId, (event = giveupEvent(this.ctx, pkg, apk, apkId)));
    return event;
  }
}
