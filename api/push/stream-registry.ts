/**
 * The device streams one API process holds, grouped by app. Only the bookkeeping: registering a
 * stream (replacing the same installation's older one), forgetting it when it disconnects, and
 * dropping it when another process or the owner asks. What to send lives in hub.ts; how to say it,
 * in each channel.
 */
import type { ApkDoc } from '../../shared/catalog/types';
import type { AppScope, OfferState } from '../../shared/devices/store';
import type { PushChannelKind } from '../../shared/devices/registration-input';
import type { SignedOnce } from './events';

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
 * A device's open push connection, whatever its protocol: an SSE stream (sse-channel.ts) or a
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

export interface Stream {
  readonly installationId: string;
  /** The device id and metadata as of the connect: what target selection reads. */
  readonly deviceId: string;
  readonly metadata: readonly { readonly key: string; readonly value: string }[];
  readonly conn: DeviceChannel;
  /**
   * What this process knows of the installation, loaded at connect and kept up to date by its
   * own writes: one process speaks for an installation, and a status change by the owner drops
   * the stream (see PushHub.kick), so a notice needs no read per installation.
   */
  readonly installedMd5: string | null;
  /** The last download a PushLink device reported (abandoned downloads); null for SSE streams. */
  readonly lastDownloadedMd5: string | null;
  readonly enabled: boolean;
  offer: OfferState;
}

/** The open streams of one app in this process. */
export interface AppStreams {
  readonly scope: AppScope;
  readonly streams: Map<string, Stream>;
}

export class StreamRegistry {
  private readonly byApp = new Map<string, AppStreams>();

  get size(): number {
    let n = 0;
    for (const app of this.byApp.values()) n += app.streams.size;
    return n;
  }

  /** Open streams by channel kind (every kind listed, 0 when none is open). */
  sizeByKind(): Record<PushChannelKind, number> {
    const counts: Record<PushChannelKind, number> = { sse: 0, pushlink: 0 };
    for (const app of this.byApp.values())
      for (const s of app.streams.values()) counts[s.conn.kind]++;
    return counts;
  }

  /** The app's group, or undefined when this process holds none of its streams. */
  app(appId: string): AppStreams | undefined {
    return this.byApp.get(appId);
  }

  /** Every app with open streams here, with its id. */
  apps(): IterableIterator<[string, AppStreams]> {
    return this.byApp.entries();
  }

  /**
   * Registers a connected stream in its app's group (made on first use), ending an older stream
   * of the same installation, and forgets it when its connection closes (the group too, once
   * empty); `onGone` runs then. The group is looked up here, not earlier: one that emptied while
   * this stream was being prepared may have been removed. The same connection added again (a
   * PushLink device resubscribing on its socket) replaces its entry and is not ended.
   */
  add(appId: string, scope: AppScope, stream: Stream, onGone: () => void): void {
    const group = this.byApp.get(appId) ?? { scope, streams: new Map<string, Stream>() };
    this.byApp.set(appId, group);
    const { installationId: key, conn } = stream;
    const older = group.streams.get(key);
    group.streams.set(key, stream);
    if (older?.conn === conn) return;
    older?.conn.end(); // the same device reconnected before its old stream closed
    conn.onceClosed(() => {
      if (group.streams.get(key)?.conn === conn) group.streams.delete(key);
      if (group.streams.size === 0 && this.byApp.get(appId) === group) this.byApp.delete(appId);
      onGone();
    });
  }

  /** Ends the installation's stream here, if this process holds one. */
  drop(installationId: string): void {
    for (const { streams } of this.byApp.values()) {
      const stream = streams.get(installationId);
      if (stream) {
        streams.delete(installationId);
        stream.conn.end();
      }
    }
  }

  /** Ends every stream (shutdown). */
  endAll(): void {
    for (const { streams } of this.byApp.values()) for (const s of streams.values()) s.conn.end();
    this.byApp.clear();
  }
}
