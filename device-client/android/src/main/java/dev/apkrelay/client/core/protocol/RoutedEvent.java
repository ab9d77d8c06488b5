package dev.apkrelay.client.core.protocol;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.sse.SseEvent;
import java.util.Map;

/**
 * One push event checked and classified, as device-client/core/route-event.ts: {@code status}
 * carries the installation's status; {@code version} and {@code giveup} must be well formed
 * (format 2), addressed to this account, package and device, signed by the pinned key and recent
 * ({@link NoticeCheck}), or they are REFUSED (and nothing is downloaded or withdrawn). The caller
 * stores {@link #issuedAtMs} of accepted notices (the latest) and passes it back as
 * {@code lastAcceptedAtMs}, across restarts. Pure.
 */
public final class RoutedEvent {
  public enum Kind { STATUS, VERSION, GIVEUP, REFUSED, IGNORED }

  public final Kind kind;
  /** STATUS: "enabled" or "disabled". */
  public final String status;
  public final VersionEvent version;
  public final GiveupEvent giveup;
  /** REFUSED / IGNORED: why. */
  public final String reason;
  /** VERSION / GIVEUP: the notice's issuedAt (epoch ms). */
  public final long issuedAtMs;

  private RoutedEvent(Kind kind, String status, VersionEvent version, GiveupEvent giveup, String reason) {
    this(kind, status, version, giveup, reason, 0L);
  }

  private RoutedEvent(Kind kind, String status, VersionEvent version, GiveupEvent giveup,
      String reason, long issuedAtMs) {
    this.kind = kind;
    this.status = status;
    this.version = version;
    this.giveup = giveup;
    this.reason = reason;
    this.issuedAtMs = issuedAtMs;
  }

  /**
   * Routes an event for the device {@code to}: notices must be format 2, for its account, package
   * and device (or {@code *}), signed by {@code key}, not older than {@code lastAcceptedAtMs} (null:
   * none accepted yet) by more than a minute, and within a day of {@code nowMs}.
   */
  public static RoutedEvent route(SseEvent sse, NoticeAudience to, PushKey key,
      Long lastAcceptedAtMs, long nowMs) {
    return route(sse, (data, pkg) ->
        NoticeCheck.refusal(data, pkg, pkg, to, key, lastAcceptedAtMs, nowMs));
  }

  /** A notice's refusal reason, or null; {@code pkg} is null when its shape is wrong. */
  private interface Check {
    String refusal(Map<String, Object> data, String pkg);
  }

  private static RoutedEvent route(SseEvent sse, Check check) {
    Map<String, Object> data;
    try {
      data = Json.parseObject(sse.data);
    } catch (RuntimeException e) {
      return new RoutedEvent(Kind.IGNORED, null, null, null, "unreadable " + sse.event + " event");
    }
    if ("status".equals(sse.event)) {
      Object s = data.get("status");
      return "enabled".equals(s) || "disabled".equals(s)
          ? new RoutedEvent(Kind.STATUS, (String) s, null, null, null)
          : new RoutedEvent(Kind.IGNORED, null, null, null, "unknown status");
    }
    boolean isVersion = "version".equals(sse.event);
    if (!isVersion && !"giveup".equals(sse.event)) {
      return new RoutedEvent(Kind.IGNORED, null, null, null, "event " + sse.event);
    }
    VersionEvent v = isVersion ? SignedEvents.asVersion(data) : null;
    GiveupEvent g = isVersion ? null : SignedEvents.asGiveup(data);
    String pkg = v != null ? v.packageName : g != null ? g.packageName : null;
    String reason = check.refusal(data, pkg);
    if (reason != null) return new RoutedEvent(Kind.REFUSED, null, null, null, reason);
    Long issued = NoticeCheck.issuedAtMs(data.get("issuedAt"));
    long issuedAtMs = issued == null ? 0L : issued;
    return isVersion ? new RoutedEvent(Kind.VERSION, null, v, null, null, issuedAtMs)
        : new RoutedEvent(Kind.GIVEUP, null, null, g, null, issuedAtMs);
  }
}
