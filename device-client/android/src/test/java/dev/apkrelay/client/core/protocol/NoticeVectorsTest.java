package dev.apkrelay.client.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.sse.SseEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The push-notice vectors the TypeScript client core runs too (test/fixtures/push-notices/
 * vectors.json: signed once by the server's signer, verdicts written by hand): the Java core must
 * verify exactly the same canonical bytes and reach exactly the same verdicts.
 */
class NoticeVectorsTest {
  @SuppressWarnings("unchecked")
  static Map<String, Object> vectors() throws IOException {
    byte[] bytes = Files.readAllBytes(Paths.get("../../test/fixtures/push-notices/vectors.json"));
    return Json.parseObject(new String(bytes, StandardCharsets.UTF_8));
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyCaseHasItsHandWrittenVerdict() throws IOException {
    Map<String, Object> v = vectors();
    PushKey key = PushKey.fromSpkiBase64((String) v.get("publicKey"));
    long now = Instant.parse((String) v.get("now")).toEpochMilli();
    Map<String, Object> d = (Map<String, Object>) v.get("device");
    NoticeAudience device = new NoticeAudience(
        (String) d.get("account"), (String) d.get("package"), (String) d.get("device"));
    List<String> wrong = new ArrayList<>();
    TreeSet<String> verdicts = new TreeSet<>();
    List<Object> cases = (List<Object>) v.get("cases");
    for (Object o : cases) {
      Map<String, Object> c = (Map<String, Object>) o;
      Object last = c.get("lastAcceptedAt");
      Long lastAcceptedAt = last instanceof String ? Instant.parse((String) last).toEpochMilli() : null;
      RoutedEvent r = RoutedEvent.route(
          new SseEvent((String) c.get("event"), (String) c.get("data"), "1-0"),
          device, key, lastAcceptedAt, now);
      String got = r.kind == RoutedEvent.Kind.REFUSED ? r.reason
          : r.kind == RoutedEvent.Kind.VERSION || r.kind == RoutedEvent.Kind.GIVEUP ? "accept"
          : "ignored: " + r.reason;
      verdicts.add(got);
      if (!got.equals(c.get("verdict"))) wrong.add(c.get("name") + ": " + got);
      if (got.equals("accept")) {
        assertEquals(Instant.parse((String) Json.parseObject((String) c.get("data")).get("issuedAt")).toEpochMilli(),
            r.issuedAtMs);
      }
    }
    assertEquals(List.of(), wrong);
    assertTrue(cases.size() >= 25, "cases: " + cases.size());
    assertEquals(9, verdicts.size(), verdicts.toString());
  }

  @Test
  void aHandBuiltNoticeOfAccountAIsRefusedByAClientOfAccountB() throws IOException {
    Map<String, Object> v = vectors();
    PushKey key = PushKey.fromSpkiBase64((String) v.get("publicKey"));
    @SuppressWarnings("unchecked")
    String forX = (String) ((Map<String, Object>) ((List<Object>) v.get("cases")).get(0)).get("data");
    long now = Instant.parse("2026-11-25T17:00:00.000Z").toEpochMilli();
    SseEvent sse = new SseEvent("version", forX, "1-0");
    String pkg = "dev.apkrelay.demo";
    assertEquals(RoutedEvent.Kind.VERSION,
        RoutedEvent.route(sse, new NoticeAudience("6745a1b2c3d4e5f6000000aa", pkg, "device-x"), key, null, now).kind);
    assertEquals("event addressed to another account",
        RoutedEvent.route(sse, new NoticeAudience("6745a1b2c3d4e5f6000000bb", pkg, "device-x"), key, null, now).reason);
    assertEquals("event addressed to another device",
        RoutedEvent.route(sse, new NoticeAudience("6745a1b2c3d4e5f6000000aa", pkg, "device-y"), key, null, now).reason);
    long issued = Instant.parse("2026-11-25T16:59:30.000Z").toEpochMilli();
    assertEquals("older than the last accepted notice",
        RoutedEvent.route(sse, new NoticeAudience("6745a1b2c3d4e5f6000000aa", pkg, "device-x"), key,
            issued + 61_000, now).reason);
    assertEquals(RoutedEvent.Kind.VERSION,
        RoutedEvent.route(sse, new NoticeAudience("6745a1b2c3d4e5f6000000aa", pkg, "device-x"), key,
            issued + 59_000, now + 23 * 3_600_000L).kind);
  }
}
