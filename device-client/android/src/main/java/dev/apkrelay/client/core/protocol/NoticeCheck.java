package dev.apkrelay.client.core.protocol;

import dev.apkrelay.client.core.crypto.PushKey;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The format 2 notice rule, as device-client/core/signed-events.ts {@code checkNotice}, with the
 * same refusal reasons in the same order (test/fixtures/push-notices/vectors.json pins both):
 * shape, {@code v: 2}, addressed to this app, account and device (or {@code *}), the signature,
 * then time: not more than {@link #ORDER_SLACK_MS} older than the last accepted notice, and within
 * {@link #CLOCK_SKEW_MS} of this device's clock. Pure: the caller passes the clock and stores the
 * {@code issuedAt} of what it accepts (docs/push.md, "Signed events").
 */
public final class NoticeCheck {
  private NoticeCheck() {}

  public static final int FORMAT = 2;
  public static final long CLOCK_SKEW_MS = 24L * 3_600_000L;
  public static final long ORDER_SLACK_MS = 60_000L;

  /** What the server writes (JavaScript's {@code toISOString}), and nothing looser. */
  private static final Pattern INSTANT =
      Pattern.compile("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$");

  /** The refusal reason, or null when the notice is accepted. */
  static String refusal(Map<String, Object> data, Object shaped, String packageName,
      NoticeAudience to, PushKey key, Long lastAcceptedAtMs, long nowMs) {
    Long issuedAtMs = issuedAtMs(data.get("issuedAt"));
    if (shaped == null || issuedAtMs == null) return "malformed event";
    Object v = data.get("v");
    if (!(v instanceof Number) || ((Number) v).doubleValue() != FORMAT) {
      return "unsupported notice format";
    }
    Object account = data.get("account");
    Object device = data.get("device");
    if (!(account instanceof String) || !(device instanceof String)) return "malformed event";
    if (!packageName.equals(to.packageName)) return "event addressed to another app";
    if (!account.equals(to.account)) return "event addressed to another account";
    if (!"*".equals(device) && !device.equals(to.device)) return "event addressed to another device";
    if (!SignedEvents.verify(key, data)) return "bad signature";
    if (lastAcceptedAtMs != null && issuedAtMs < lastAcceptedAtMs - ORDER_SLACK_MS) {
      return "older than the last accepted notice";
    }
    if (Math.abs(issuedAtMs - nowMs) > CLOCK_SKEW_MS) return "issued too far from this device's clock";
    return null;
  }

  /** Epoch milliseconds of a notice's {@code issuedAt}, or null when it is not one. */
  public static Long issuedAtMs(Object issuedAt) {
    if (!(issuedAt instanceof String) || !INSTANT.matcher((String) issuedAt).matches()) return null;
    try {
      return Instant.parse((String) issuedAt).toEpochMilli();
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
