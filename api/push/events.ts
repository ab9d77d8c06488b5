/**
 * The signed events of the push stream, built from catalogue records. An event names the app
 * (package) and the APK, not the device: one signature serves every stream a notice reaches
 * (Ed25519 per device cost ~1.5 s of CPU per notice at 10,000 devices). What a signature still
 * guarantees: only this server orders an install, of exactly this APK (md5, sha256, size), for
 * this package. Relaying one device's event to another device of the same app tells it what the
 * server tells every device of that app.
 */
import { createEventBuffer, type EventBuffer } from 'better-sse';
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

/**
 * The events of one sync, each signed and written out as SSE text the first time a stream needs
 * it. Streams are sent the ready text (better-sse's `session.batch(buffer)`), so a notice to
 * 10,000 streams serialises and sanitises its event once, not once per stream.
 */
export class SignedOnce {
  private version_: EventBuffer | undefined;
  private readonly giveups = new Map<string, EventBuffer>();

  /** `eventId`: the notice's id in the app's stream (what `Last-Event-ID` resumes from). */
  constructor(
    private readonly ctx: EventContext,
    private readonly eventId: string,
  ) {}

  version(apk: ApkDoc): EventBuffer {
    return (this.version_ ??= this.text(versionEvent(this.ctx, apk), 'version'));
  }

  giveup(pkg: string, apk: ApkDoc | null, apkId: string): EventBuffer {
    let event = this.giveups.get(apkId);
    if (!event) {
      event = this.text(giveupEvent(this.ctx, pkg, apk, apkId), 'giveup');
      this.giveups.set(apkId, event);
    }
    return event;
  }

  private text(data: unknown, name: string): EventBuffer {
    return createEventBuffer().push(data, name, this.eventId);
  }
}
