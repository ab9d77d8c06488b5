package dev.apkrelay.client.core.protocol;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.sse.SseEvent;
import java.util.Map;

/**
 * One push event checked and classified, as device-client/core/route-event.ts: {@code status}
 * carries the installation's status; {@code version} and {@code giveup} must be well formed,
 * addressed to this package and signed by the pinned key, or they are REFUSED (and nothing is
 * downloaded or withdrawn). Pure.
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

  private RoutedEvent(Kind kind, String status, VersionEvent version, GiveupEvent giveup, String reason) {
    this.kind = kind;
    this.status = status;
    this.version = version;
    this.giveup = giveup;
    this.reason = reason;
  }

  public static RoutedEvent route(SseEvent sse, String packageName, PushKey key) {
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
    String reason = pkg == null ? "malformed event"
        : !pkg.equals(packageName) ? "event addressed to another app"
        : !SignedEvents.verify(key, data) ? "bad signature"
        : null;
    if (reason != null) return new RoutedEvent(Kind.REFUSED, null, null, null, reason);
    return isVersion ? new RoutedEvent(Kind.VERSION, null, v, null, null)
        : new RoutedEvent(Kind.GIVEUP, null, null, g, null);
  }
}
