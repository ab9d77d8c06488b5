package dev.apkrelay.client.core.sse;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Reconnect delays, as device-client/core/backoff.ts: exponential from {@code initialMs}, capped at
 * {@code maxMs}, with jitter (0.5: the delay is drawn from [d/2, d]); never sooner than the
 * stream's {@code retry:} nor a 429/503's {@code Retry-After}. Pure: the caller passes the random
 * number and the time.
 */
public final class Backoff {
  public final long initialMs;
  public final long maxMs;
  public final double jitter;

  public Backoff(long initialMs, long maxMs, double jitter) {
    if (initialMs < 0 || maxMs < initialMs || jitter < 0 || jitter > 1) {
      throw new IllegalArgumentException("backoff: 0 <= initialMs <= maxMs, 0 <= jitter <= 1");
    }
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.jitter = jitter;
  }

  /** The TS client's defaults for the push stream and downloads: 1 s doubling to 60 s, 50 %. */
  public static Backoff reconnectDefault() {
    return new Backoff(1_000, 60_000, 0.5);
  }

  /** The TS client's default for exception delivery: 1 s doubling to 5 min, 50 %. */
  public static Backoff exceptionDefault() {
    return new Backoff(1_000, 5 * 60_000, 0.5);
  }

  /** The delay before attempt {@code attempt} (0 first), {@code random} in [0, 1). */
  public long delay(int attempt, double random) {
    double base = Math.min((double) maxMs, initialMs * Math.pow(2, Math.max(0, attempt)));
    return Math.round(base * (1 - jitter * random));
  }

  /** The next wait: the backoff's delay, but never less than retry: or Retry-After (nullable). */
  public long next(int attempt, double random, Long retryFieldMs, Long retryAfterMs) {
    long d = delay(attempt, random);
    if (retryFieldMs != null) d = Math.max(d, retryFieldMs);
    if (retryAfterMs != null) d = Math.max(d, retryAfterMs);
    return d;
  }

  /**
   * {@code Retry-After} (RFC 9110 10.2.3) in ms: delay-seconds, or an HTTP-date counted from
   * {@code nowMs} (never negative); null when absent or unreadable.
   */
  public static Long retryAfterMs(String header, long nowMs) {
    if (header == null) return null;
    String h = header.trim();
    if (h.isEmpty()) return null;
    boolean digits = true;
    for (int i = 0; i < h.length(); i++) {
      if (h.charAt(i) < '0' || h.charAt(i) > '9') digits = false;
    }
    if (digits) {
      try {
        return Math.multiplyExact(Long.parseLong(h), 1000L);
      } catch (ArithmeticException | NumberFormatException tooLarge) {
        return null;
      }
    }
    try {
      long at = ZonedDateTime.parse(h, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
      return Math.max(0, at - nowMs);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
