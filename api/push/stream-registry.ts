/**
 * The device streams one API process holds, grouped by app. Only the bookkeeping: registering a
 * stream (replacing the same installation's older one), forgetting it when it disconnects, and
 * dropping it when another process or the owner asks. What to send lives in hub.ts.
 */
import type { Session } from 'better-sse';
import type { AppScope, OfferState } from '../../shared/devices/store';

/** The HTTP connection under a session. */
export interface StreamConnection {
  /** Ends the stream politely (the client reconnects). */
  end(): void;
  /** Closes the connection at once, dropping what it holds. */
  destroy(): void;
  /** Bytes written to the stream that the client has not read yet. */
  unreadBytes(): number;
}

export interface Stream {
  readonly installationId: string;
  /** The device id and metadata as of the connect: what target selection reads. */
  readonly deviceId: string;
  readonly metadata: readonly { readonly key: string; readonly value: string }[];
  readonly session: Session;
  readonly conn: StreamConnection;
  /**
   * What this process knows of the installation, loaded at connect and kept up to date by its
   * own writes: one process speaks for an installation, and a status change by the owner drops
   * the stream (see PushHub.kick), so a notice needs no read per installation.
   */
  readonly installedMd5: string | null;
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
   * of the same installation, and forgets it when its session disconnects (the group too, once
   * empty); `onGone` runs then. The group is looked up here, not earlier: one that emptied while
   * this stream was being prepared may have been removed.
   */
  add(appId: string, scope: AppScope, stream: Stream, onGone: () => void): void {
    const group = this.byApp.get(appId) ?? { scope, streams: new Map<string, Stream>() };
    this.byApp.set(appId, group);
    const { installationId: key, session } = stream;
    group.streams.get(key)?.conn.end(); // the same device reconnected before its old stream closed
    group.streams.set(key, stream);
    session.once('disconnected', () => {
      if (group.streams.get(key)?.session === session) group.streams.delete(key);
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
