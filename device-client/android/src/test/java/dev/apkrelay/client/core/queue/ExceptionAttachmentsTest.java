package dev.apkrelay.client.core.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.HttpReply;
import dev.apkrelay.client.core.ports.HttpRequest;
import dev.apkrelay.client.core.ports.HttpStream;
import dev.apkrelay.client.core.ports.HttpTransport;
import dev.apkrelay.client.core.sse.Backoff;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device log's lines and the screenshot in the JSON report, as api/exceptions/json-report.ts
 * reads them: {@code log} a list of strings, {@code screen} the JPEG's bytes in base64 (spec
 * section 3, exception record; docs/exceptions.md). Expected bodies are written by hand.
 */
class ExceptionAttachmentsTest {
  @TempDir Path dir;
  final List<String> bodies = new ArrayList<>();
  final List<Boolean> up = new ArrayList<>(Collections.singletonList(true));
  final HttpTransport transport = new HttpTransport() {
    @Override public HttpReply request(HttpRequest r) throws IOException {
      if (!up.get(0)) throw new IOException("Connection refused");
      bodies.add(r.body);
      return new HttpReply(202, Collections.emptyMap(),
          "{\"status\":\"REGISTERED\",\"reason\":null,\"message\":\"Exception sent.\",\"budget\":{\"limit\":10,\"remaining\":9,\"freesAt\":null}}");
    }
    @Override public HttpStream open(HttpRequest r) {
      throw new AssertionError("not used");
    }
  };
  final Clock clock = new Clock() {
    @Override public long now() { return 1_000_000; }
    @Override public double random() { return 0; }
  };

  /** The first six bytes of a JFIF file: FF D8 FF E0 00 10, "/9j/4AAQ" in base64. */
  static final byte[] JPEG_HEAD = {(byte) 0xff, (byte) 0xd8, (byte) 0xff, (byte) 0xe0, 0x00, 0x10};

  ExceptionQueue queue() throws IOException {
    return new ExceptionQueue(new FileStorage(dir.toFile()), transport, clock, (l, m) -> {},
        new Backoff(1_000, 300_000, 0.5), "https://api.example", "key-1", 50);
  }

  static ExceptionReport report(boolean handled) {
    return ExceptionReport.of(Arrays.asList("java.lang.IllegalStateException: boom", "\tat a.B.c(B.java:1)"),
        handled, Collections.emptyList(), Collections.emptyList(), "dev.apkrelay.demo", "device-1", "abc");
  }

  @Test
  void logLinesAndScreenshotAreSentAsTheJsonRouteReadsThemAndSurviveAReload() throws IOException {
    List<String> lines = Arrays.asList("11-25 12:00:00.000  1234  1234 E AndroidRuntime: FATAL EXCEPTION: main",
        "11-25 12:00:00.001  1234  1234 E AndroidRuntime: Process: dev.apkrelay.demo, PID: 1234");
    up.set(0, false);
    ExceptionQueue q = queue();
    q.enqueue(report(false).withAttachments(lines, JPEG_HEAD));
    q.deliver(); // refused connection: kept in the file
    up.set(0, true);
    assertEquals(ExceptionQueue.EMPTY, queue().deliver()); // a new process reads it back
    assertEquals("{\"package\":\"dev.apkrelay.demo\",\"hash\":\"abc\",\"deviceId\":\"device-1\","
        + "\"stack\":[\"java.lang.IllegalStateException: boom\",\"\\tat a.B.c(B.java:1)\"],\"handled\":false,"
        + "\"metadata\":[],\"extra\":[],"
        + "\"log\":[\"11-25 12:00:00.000  1234  1234 E AndroidRuntime: FATAL EXCEPTION: main\","
        + "\"11-25 12:00:00.001  1234  1234 E AndroidRuntime: Process: dev.apkrelay.demo, PID: 1234\"],"
        + "\"screen\":\"/9j/4AAQ\"}", bodies.get(0));
  }

  @Test
  void nothingIsAddedWhenThePortsHaveNothing() throws IOException {
    ExceptionQueue q = queue();
    q.enqueue(report(true).withAttachments(Collections.emptyList(), null));
    q.deliver();
    Map<String, Object> body = Json.parseObject(bodies.get(0));
    assertFalse(body.containsKey("log"));
    assertFalse(body.containsKey("screen"));
  }

  @Test
  void theFingerprintIgnoresTheAttachments() {
    ExceptionReport plain = report(false);
    assertEquals(plain.fingerprint, plain.withAttachments(Arrays.asList("x"), JPEG_HEAD).fingerprint);
  }

  @Test
  void onlyTheNewest200LinesEachCutTo8192CharsAndOnlyAJpegBelowTheCap() {
    List<String> many = new ArrayList<>();
    for (int i = 1; i <= 250; i++) many.add("line " + i);
    many.set(249, "y".repeat(9_000));
    byte[] big = Arrays.copyOf(JPEG_HEAD, 512 * 1024 + 1);
    Map<String, Object> body = report(false).withAttachments(many, big).body;
    @SuppressWarnings("unchecked")
    List<String> log = (List<String>) body.get("log");
    assertEquals(200, log.size());
    assertEquals("line 51", log.get(0));
    assertEquals("y".repeat(8_192), log.get(199));
    assertFalse(body.containsKey("screen")); // above 512 KiB
    assertFalse(report(false).withAttachments(null, "not a jpeg".getBytes()).body.containsKey("screen"));
    byte[] atCap = Arrays.copyOf(JPEG_HEAD, 512 * 1024);
    assertTrue(report(false).withAttachments(null, atCap).body.containsKey("screen"));
  }
}
