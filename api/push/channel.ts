/**
 * A device's open push connection as the hub sees it (hub.ts): the channel interface every
 * protocol implements, what one sync decided to tell it, and the SSE stream's own channel
 * (`status` on attaching, then the signed events below, each written out once for all streams).
 *
 * The signed events of the push stream (format 2, `v: 2`), built from catalogue records. Each
 * names the account, the package, the device and when it was signed (`issuedAt`), and the APK.
 * A notice sent to one stream (a device connecting or reconnecting: every replay after
 * Last-Event-ID) names that device and is signed afresh; a notice fanned out live to every open
 * stream of an app names `*` (every installation of that app in that account), so one signature
 * serves them all (signing per device made a notice to a large fleet cost seconds of CPU). A client
 * refuses another account's notice, another device's, and stale ones (docs/push.md). The notice's
 * fields and format are the protocol layer's (device-client/protocol/signed-notice.ts).
 */
import { createEventBuffer, type EventBuffer, type Session } from 'better-sse';
import type { ApkDoc } from '../../shared/catalog/types';
import { signEvent, type PushKeys } from '../../shared/devices/push-signing';
import {
  NOTICE_FORMAT,
  type GiveupNoticeBody,
  type VersionNoticeBody,
} from '../../device-client/protocol/signed-notice';
import type { PushChannelKind } from '../../shared/devices/registration-input';

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

/** What one sync decided to tell one installation. */
export interface Delivery {
  readonly package: string;
  /** Offer this APK. */
  readonly version: ApkDoc | null;
  /**
   * Give up an APK: its id and document (null when unknown), or, for an abandoned download known
   * only by its MD5 (decide.ts, abandonedDownload), a null id.
   */
  readonly giveup: { readonly apkId: string | null; readonly apk: ApkDoc | null } | null;
  /** What the installation runs, as it reported it. */
  readonly installedMd5: string | null;
}

/**
 * A device's open push connection, whatever its protocol: an SSE stream (sseChannel below) or a
 * PushLink SDK socket (legacy/). The hub decides alike for both; the channel says it its way.
 */
export interface DeviceChannel {
  /** Which protocol: apkrelay's SSE stream or the PushLink SDK's socket (metrics). */
  readonly kind: PushChannelKind;
  readonly isConnected: boolean;
  /**
   * Whether the open connection alone counts as the device being seen: an SSE stream does; a
   * PushLink socket counts only the lines it receives (a silent device goes offline).
   */
  readonly beatsWhileOpen: boolean;
  /** Runs `fn` once, when the connection closes. */
  onceClosed(fn: () => void): void;
  /** Ends the stream politely (the client reconnects). */
  end(): void;
  /** Closes the connection at once, dropping what it holds. */
  destroy(): void;
  /** Bytes written to the stream that the client has not read yet. */
  unreadBytes(): number;
  /** Says, on attaching, the installation's status; `latest`: the app's latest notice id. */
  greet(status: 'enabled' | 'disabled', latest: string): void;
  /** Says what a sync decided; `notices` signs each distinct event once for all streams. */
  deliver(notices: SignedOnce, what: Delivery): void;
}

/**
 * Sends an event written out once for all streams. With a ready buffer `batch` writes at once and
 * its promise is settled; a write to a stream that just closed only ends that stream.
 */
function send(session: Session, event: EventBuffer): void {
  session.batch(event).catch(() => undefined);
}

/** The HTTP connection under a session. */
export interface SseConnection {
  end(): void;
  destroy(): void;
  unreadBytes(): number;
}

/** A device's SSE push stream as a channel; its open stream counts as the device being seen. */
export function sseChannel(
  session: Session,
  conn: SseConnection,
  heartbeatSeconds: number,
): DeviceChannel {
  return {
    kind: 'sse',
    get isConnected() {
      return session.isConnected;
    },
    beatsWhileOpen: true,
    onceClosed: (fn) => void session.once('disconnected', fn),
    end: () => conn.end(),
    destroy: () => conn.destroy(),
    unreadBytes: () => conn.unreadBytes(),
    greet: (status, latest) => session.push({ status, heartbeatSeconds }, 'status', latest),
    deliver(notices, { package: pkg, giveup, version }) {
      if (giveup?.apkId) send(session, notices.giveup(pkg, giveup.apk, giveup.apkId));
      if (version) send(session, notices.version(version));
    },
  };
}
