/**
 * A device's SSE push stream as the hub's channel (stream-registry.ts): `status` on attaching,
 * then the signed `version`/`giveup` events a sync decides, each written out once for all streams
 * (events.ts). Its open stream counts as the device being seen.
 */
import type { EventBuffer, Session } from 'better-sse';
import type { DeviceChannel } from './stream-registry';

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
