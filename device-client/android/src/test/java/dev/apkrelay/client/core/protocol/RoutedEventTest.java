package dev.apkrelay.client.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.protocol.RoutedEvent.Kind;
import dev.apkrelay.client.core.sse.SseEvent;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Routing beside the notice rule (NoticeVectorsTest holds that): status events, events that are
 * not notices, and format 1 notices, which the server's signer signed and which a format 2 client
 * refuses (docs/push.md, "Notice binding and staleness (format 2)", rule 2).
 */
class RoutedEventTest {
  final PushKey key = PushKey.fromSpkiBase64(SignedEventsTest.KEY);
  final NoticeAudience device = new NoticeAudience("6745a1b2c3d4e5f6000000aa", "dev.apkrelay.demo", "device-x");
  final long now = Instant.parse("2026-11-25T17:00:00.000Z").toEpochMilli();

  RoutedEvent route(String event, String data) {
    return RoutedEvent.route(new SseEvent(event, data, "1"), device, key, null, now);
  }

  @Test
  void statusEventsCarryTheStatus() {
    assertEquals(Kind.STATUS, route("status", "{\"status\":\"disabled\"}").kind);
    assertEquals("disabled", route("status", "{\"status\":\"disabled\"}").status);
    assertEquals("enabled", route("status", "{\"status\":\"enabled\"}").status);
    assertEquals(Kind.IGNORED, route("status", "{\"status\":\"paused\"}").kind);
  }

  @Test
  void formatOneNoticesAreRefusedEvenWhenSignedForThisApp() {
    assertEquals(Kind.REFUSED, route("version", SignedEventsTest.VERSION).kind);
    assertEquals("unsupported notice format", route("version", SignedEventsTest.VERSION).reason);
    assertEquals("unsupported notice format", route("giveup", SignedEventsTest.GIVEUP).reason);
  }

  @Test
  void everythingElseIsRefusedOrIgnored() {
    assertEquals("malformed event", route("version", SignedEventsTest.GIVEUP).reason);
    assertEquals("malformed event", route("giveup", SignedEventsTest.VERSION).reason);
    assertEquals(Kind.IGNORED, route("version", "not json").kind);
    assertEquals(Kind.IGNORED, route("message", "{}").kind);
  }
}
