package dev.apkrelay.client.core.push;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.Storage;
import dev.apkrelay.client.core.protocol.NoticeAudience;
import dev.apkrelay.client.core.protocol.RoutedEvent;
import dev.apkrelay.client.core.sse.SseEvent;
import java.io.IOException;

/**
 * Checks a pushed event as device-client/core/route-event.ts does (docs/push.md, "Notice binding
 * and staleness (format 2)"): a notice must name this account (from the registration reply; ""
 * when it named none, so every notice is refused), this package and this device (or {@code *}), be
 * signed by the pinned key, not be more than a minute older than the last notice accepted, and be
 * within a day of this device's clock. The issuedAt of the latest accepted notice is stored under
 * {@link #LAST_NOTICE_KEY} (epoch ms as decimal text, as the TS client), so a replay of an older
 * one is refused after a restart too.
 */
public final class NoticeGate {
  /** Where the issuedAt (epoch ms) of the latest accepted notice is kept: the TS client's key. */
  public static final String LAST_NOTICE_KEY = "last-notice-at";

  private final Storage storage;
  private final Clock clock;
  private final String packageName;
  private final String deviceId;

  public NoticeGate(Storage storage, Clock clock, String packageName, String deviceId) {
    this.storage = storage;
    this.clock = clock;
    this.packageName = packageName;
    this.deviceId = deviceId;
  }

  /** Routes {@code event}; an accepted notice newer than the stored one moves the stored issuedAt. */
  public RoutedEvent check(SseEvent event, PushKey key, String accountId) throws IOException {
    boolean notice = "version".equals(event.event) || "giveup".equals(event.event);
    Long lastAcceptedAtMs = notice ? lastAcceptedAtMs() : null;
    NoticeAudience to = new NoticeAudience(accountId == null ? "" : accountId, packageName, deviceId);
    RoutedEvent r = RoutedEvent.route(event, to, key, lastAcceptedAtMs, clock.now());
    boolean accepted = r.kind == RoutedEvent.Kind.VERSION || r.kind == RoutedEvent.Kind.GIVEUP;
    if (accepted && (lastAcceptedAtMs == null || r.issuedAtMs > lastAcceptedAtMs)) {
      storage.write(LAST_NOTICE_KEY, String.valueOf(r.issuedAtMs));
    }
    return r;
  }

  /** The stored issuedAt of the last accepted notice, or null when none (or unreadable). */
  private Long lastAcceptedAtMs() throws IOException {
    String stored = storage.read(LAST_NOTICE_KEY);
    if (stored == null) return null;
    try {
      long ms = Long.parseLong(stored.trim());
      return ms > 0 ? ms : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
