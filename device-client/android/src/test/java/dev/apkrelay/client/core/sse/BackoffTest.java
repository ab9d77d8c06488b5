package dev.apkrelay.client.core.sse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class BackoffTest {
  private final Backoff b = new Backoff(1_000, 60_000, 0.5);

  @Test
  void doublesToTheCapWithJitterTakingUpToHalf() {
    assertEquals(1_000, b.delay(0, 0));
    assertEquals(2_000, b.delay(1, 0));
    assertEquals(32_000, b.delay(5, 0));
    assertEquals(60_000, b.delay(6, 0));
    assertEquals(60_000, b.delay(40, 0));
    assertEquals(500, b.delay(0, 1));
    assertEquals(3_000, b.delay(2, 0.5));
  }

  @Test
  void neverSoonerThanRetryFieldOrRetryAfter() {
    assertEquals(5_000, b.next(0, 0, 5_000L, null));
    assertEquals(120_000, b.next(0, 0, 5_000L, 120_000L));
    assertEquals(4_000, b.next(2, 0, 3_000L, null));
  }

  @Test
  void retryAfterInSecondsOrAsHttpDate() {
    // RFC 9110 10.2.3 examples: "Retry-After: Fri, 31 Dec 1999 23:59:59 GMT", "Retry-After: 120".
    assertEquals(Long.valueOf(120_000), Backoff.retryAfterMs("120", 0));
    long now = 946_684_739_000L; // 1999-12-31T23:58:59Z
    assertEquals(Long.valueOf(60_000), Backoff.retryAfterMs("Fri, 31 Dec 1999 23:59:59 GMT", now));
    assertEquals(Long.valueOf(0), Backoff.retryAfterMs("Fri, 31 Dec 1999 23:59:59 GMT", now + 3_600_000));
    assertNull(Backoff.retryAfterMs(null, now));
    assertNull(Backoff.retryAfterMs("soon", now));
    assertNull(Backoff.retryAfterMs("-5", now));
  }
}
