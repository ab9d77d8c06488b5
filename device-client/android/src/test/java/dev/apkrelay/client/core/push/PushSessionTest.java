package dev.apkrelay.client.core.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.apkrelay.client.core.TestHttp;
import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.UrlConnectionTransport;
import dev.apkrelay.client.core.protocol.SignedEventsTest;
import dev.apkrelay.client.core.sse.Backoff;
import dev.apkrelay.client.core.sse.SseEvent;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A session against a real HTTP server speaking the device API's registration, stream and heartbeat. */
class PushSessionTest {
  @TempDir Path dir;
  HttpServer server;
  final List<String> requests = Collections.synchronizedList(new ArrayList<>());
  final List<String> streams = Collections.synchronizedList(new ArrayList<>()); // SSE bodies, or "503"
  final List<String> statuses = new ArrayList<>();
  /** What the listener was given: "event accountId". */
  final List<String> received = new ArrayList<>();
  String registrationReply = "{\"status\":\"enabled\",\"accountId\":\"6745a1b2c3d4e5f6000000aa\",\"heartbeatSeconds\":45}";
  int registrationStatus = 200;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/api/v2/push-key", ex -> TestHttp.reply(ex, 200, "{\"algorithm\":\"Ed25519\",\"publicKey\":\"" + SignedEventsTest.KEY + "\"}"));
    server.createContext("/api/v2/installations", ex -> {
      requests.add("register " + new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      if (registrationStatus != 200) ex.getResponseHeaders().add("Retry-After", "120");
      TestHttp.reply(ex, registrationStatus, registrationReply);
    });
    server.createContext("/api/v2/stream", ex -> {
      requests.add("stream " + ex.getRequestURI().getRawQuery() + " last-event-id=" + ex.getRequestHeaders().getFirst("last-event-id")
          + " auth=" + ex.getRequestHeaders().getFirst("authorization"));
      String body = streams.remove(0);
      if (body.equals("503")) {
        ex.getResponseHeaders().add("Retry-After", "30");
        TestHttp.reply(ex, 503, "");
      } else {
        ex.getResponseHeaders().add("Content-Type", "text/event-stream");
        TestHttp.reply(ex, 200, body);
      }
    });
    server.createContext("/api/v2/heartbeat", ex -> {
      requests.add("heartbeat " + new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      TestHttp.reply(ex, 200, "{\"status\":\"disabled\"}");
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  PushSession session() {
    return session(null);
  }

  PushSession session(String pinnedKey) {
    Clock clock = new Clock() {
      @Override public long now() { return 0; }
      @Override public double random() { return 0; }
    };
    return new PushSession(new UrlConnectionTransport(2_000, 2_000, 2_000), new FileStorage(dir.toFile()), clock,
        (level, message) -> { }, new Backoff(1_000, 60_000, 0.5),
        "http://127.0.0.1:" + server.getAddress().getPort() + "/", "key-1", pinnedKey,
        new PushSession.Listener() {
          @Override public void onEvent(SseEvent event, PushKey key, String accountId) {
            received.add(event.event + " " + accountId);
          }
          @Override public void onStatus(String status) {
            statuses.add(status);
          }
        });
  }

  static Map<String, Object> registration(String metadataValue) {
    return Json.object("package", "dev.apkrelay.demo", "deviceId", "device 1", "installedMd5", null,
        "lastDownloadedMd5", null, "strategy", "STATUS_BAR",
        "metadata", Collections.singletonList(Json.object("key", "k", "value", metadataValue)));
  }

  @Test
  void registersStreamsVerifiesAndResumesWithLastEventId() {
    streams.add(": keep-alive\n\nretry: 5000\nid: 41\nevent: version\ndata: " + SignedEventsTest.VERSION + "\n\n");
    streams.add("id: 42\nevent: giveup\ndata: " + SignedEventsTest.GIVEUP + "\n\n");
    PushSession s = session();
    assertEquals(5_000, s.connectOnce(registration("a"))); // retry: beats the 1 s backoff
    assertEquals(45_000, s.heartbeatMs());
    assertEquals(Collections.singletonList("enabled"), statuses);
    assertEquals(List.of("version 6745a1b2c3d4e5f6000000aa"), received); // the reply's accountId
    assertEquals(5_000, s.connectOnce(registration("a")));
    assertEquals(List.of("version 6745a1b2c3d4e5f6000000aa", "giveup 6745a1b2c3d4e5f6000000aa"), received);
    assertEquals("register {\"package\":\"dev.apkrelay.demo\",\"deviceId\":\"device 1\",\"installedMd5\":null,\"lastDownloadedMd5\":null,\"strategy\":\"STATUS_BAR\",\"metadata\":[{\"key\":\"k\",\"value\":\"a\"}]}", requests.get(0));
    assertEquals("stream package=dev.apkrelay.demo&deviceId=device+1 last-event-id=null auth=Bearer key-1", requests.get(1));
    assertEquals("stream package=dev.apkrelay.demo&deviceId=device+1 last-event-id=41 auth=Bearer key-1", requests.get(2));
    assertEquals(3, requests.size()); // registered once
  }

  @Test
  void refusalsWaitAtLeastRetryAfter() {
    registrationStatus = 503;
    registrationReply = "{\"error\":{\"code\":\"UNAVAILABLE\",\"message\":\"busy\"}}";
    PushSession s = session();
    assertEquals(120_000, s.connectOnce(registration("a")));
    registrationStatus = 200;
    registrationReply = "{\"status\":\"enabled\"}";
    streams.add("503");
    assertEquals(30_000, s.connectOnce(registration("a")));
    streams.add("data: x\n\n");
    long third = s.connectOnce(registration("a"));
    assertEquals(1_000, third); // events reset the backoff
    // A reply without accountId (an older server): "", so every format 2 notice is refused.
    assertEquals(List.of("message "), received);
  }

  @Test
  void heartbeatSendsMetadataOnlyWhenItChanged() {
    streams.add("");
    PushSession s = session();
    s.connectOnce(registration("a"));
    s.heartbeat(registration("a"));
    s.heartbeat(registration("b"));
    assertEquals("heartbeat {\"package\":\"dev.apkrelay.demo\",\"deviceId\":\"device 1\",\"installedMd5\":null,\"lastDownloadedMd5\":null}", requests.get(2));
    assertTrue(requests.get(3).endsWith(",\"metadata\":[{\"key\":\"k\",\"value\":\"b\"}]}"));
    assertEquals("disabled", statuses.get(statuses.size() - 1));
    assertNull(null);
  }

  /**
   * A Cordova app installed without {@code --variable PUSH_KEY}: aapt compiles {@code android:value=""}
   * to "", which means "not pinned" (trust on first use), not a key that can never verify.
   */
  @Test
  void aBlankPinnedKeyMeansNotPinned() {
    for (String blank : new String[] {"", "  "}) {
      requests.clear();
      received.clear();
      streams.add("id: 41\nevent: version\ndata: " + SignedEventsTest.VERSION + "\n\n");
      PushSession s = session(blank);
      s.connectOnce(registration("a"));
      assertTrue(s.registered(), "registered with PUSH_KEY \"" + blank + "\"");
      assertEquals(List.of("version 6745a1b2c3d4e5f6000000aa"), received);
    }
  }
}
