package dev.apkrelay.client.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.protocol.RoutedEvent.Kind;
import dev.apkrelay.client.core.sse.SseEvent;
import org.junit.jupiter.api.Test;

class RoutedEventTest {
  final PushKey key = PushKey.fromSpkiBase64(SignedEventsTest.KEY);

  RoutedEvent route(String event, String data, String pkg) {
    return RoutedEvent.route(new SseEvent(event, data, "1"), pkg, key);
  }

  @Test
  void signedEventsForThisAppPass() {
    RoutedEvent v = route("version", SignedEventsTest.VERSION, "dev.apkrelay.demo");
    assertEquals(Kind.VERSION, v.kind);
    assertEquals("0123456789abcdef0123456789abcdef", v.version.md5);
    assertEquals(Kind.GIVEUP, route("giveup", SignedEventsTest.GIVEUP, "dev.apkrelay.demo").kind);
    assertEquals("disabled", route("status", "{\"status\":\"disabled\"}", "x").status);
  }

  @Test
  void everythingElseIsRefusedOrIgnored() {
    assertEquals("event addressed to another app", route("version", SignedEventsTest.VERSION, "com.other").reason);
    assertEquals("bad signature", route("version", SignedEventsTest.VERSION.replace("1048576", "1048577"), "dev.apkrelay.demo").reason);
    assertEquals("malformed event", route("version", SignedEventsTest.GIVEUP, "dev.apkrelay.demo").reason);
    assertEquals(Kind.IGNORED, route("version", "not json", "dev.apkrelay.demo").kind);
    assertEquals(Kind.IGNORED, route("message", "{}", "dev.apkrelay.demo").kind);
  }
}
