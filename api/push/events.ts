/** The signed events of the push stream, built from catalogue records. */
import type { ApkDoc } from '../../shared/catalog/types';
import { signEvent, type PushKeys } from '../../shared/devices/push-signing';

export interface EventContext {
  readonly keys: PushKeys;
  readonly webUrl: string;
  readonly now: Date;
}

export function versionEvent(ctx: EventContext, deviceId: string, apk: ApkDoc) {
  return signEvent(ctx.keys, {
    type: 'version',
    package: apk.package,
    deviceId,
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

export function giveupEvent(
  ctx: EventContext,
  pkg: string,
  deviceId: string,
  apk: ApkDoc | null,
  apkId: string,
) {
  return signEvent(ctx.keys, {
    type: 'giveup',
    package: pkg,
    deviceId,
    apkId,
    md5: apk?.md5 ?? null,
    issuedAt: ctx.now.toISOString(),
  });
}
