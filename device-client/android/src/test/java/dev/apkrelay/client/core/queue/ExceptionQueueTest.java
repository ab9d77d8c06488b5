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
import dev.apkrelay.client.core.ports.Logger;
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
 * The queue against scripted replies shaped as the server's verdicts (REGISTERED / LOST with
 * reason, message and budget) and file storage in a temporary directory. Log texts are spec
 * section 3's statuses in device-client/core/exception-queue.ts's lines.
 */
class ExceptionQueueTest {
  @TempDir Path dir;
  final List<String> log = new ArrayList<>();
  final List<String> bodies = new ArrayList<>();
  final List<Object> replies = new ArrayList<>(); // HttpReply, or IOException to throw
  long now = Instant("2026-11-25T12:00:00Z");
  final Logger logger = (level, message) -> log.add(level + " " + message);
  final Clock clock = new Clock() {
    @Override public long now() { return now; }
    @Override public double random() { return 0; }
  };
  final HttpTransport transport = new HttpTransport() {
    @Override public HttpReply request(HttpRequest r) throws IOException {
      assertEquals("https://api.example/api/v2/exceptions", r.url);
      assertEquals("Bearer key-1", r.headers.get("authorization"));
      bodies.add(r.body);
      Object next = replies.remove(0);
      if (next instanceof IOException) throw (IOException) next;
      return (HttpReply) next;
    }
    @Override public HttpStream open(HttpRequest r) {
      throw new AssertionError("not used");
    }
  };

  static long Instant(String iso) {
    return java.time.Instant.parse(iso).toEpochMilli();
  }

  static HttpReply reply(int status, String json, String... headers) {
    Map<String, String> h = new java.util.LinkedHashMap<>();
    for (int i = 0; i + 1 < headers.length; i += 2) h.put(headers[i], headers[i + 1]);
    return new HttpReply(status, h, json);
  }

  static final HttpReply REGISTERED = reply(201,
      "{\"status\":\"REGISTERED\",\"reason\":null,\"message\":\"Exception sent.\",\"reportId\":\"r1\",\"budget\":{\"limit\":10,\"remaining\":9,\"freesAt\":null}}");

  ExceptionQueue queue(int max) throws IOException {
    return new ExceptionQueue(new FileStorage(dir.toFile()), transport, clock, logger,
        new Backoff(1_000, 300_000, 0.5), "https://api.example/", "key-1", max);
  }

  static ExceptionReport report(String message) {
    return ExceptionReport.of(Arrays.asList("java.lang.IllegalStateException: " + message, "\tat a.B.c(B.java:1)"),
        true, Collections.emptyList(), Collections.emptyList(), "dev.apkrelay.demo", "device-1", null);
  }

  @Test
  void sendsInOrderAndLogsRegistered() throws IOException {
    ExceptionQueue q = queue(50);
    ExceptionReport a = report("a");
    assertTrue(q.enqueue(a));
    assertTrue(q.enqueue(report("b")));
    replies.addAll(Arrays.asList(REGISTERED, REGISTERED));
    assertEquals(ExceptionQueue.EMPTY, q.deliver());
    assertEquals(2, bodies.size());
    assertEquals("{\"package\":\"dev.apkrelay.demo\",\"hash\":null,\"deviceId\":\"device-1\",\"stack\":[\"java.lang.IllegalStateException: a\",\"\\tat a.B.c(B.java:1)\"],\"handled\":true,\"metadata\":[],\"extra\":[]}", bodies.get(0));
    assertEquals("INFO exception " + a.fingerprint.substring(0, 12) + ": REGISTERED", log.get(0));
    assertEquals(0, queue(50).size());
  }

  @Test
  void heldWhileTheServerIsDownAcrossProcessDeathThenAllDeliveredOnce() throws IOException {
    ExceptionQueue q = queue(50);
    ExceptionReport a = report("a");
    q.enqueue(a);
    replies.add(new IOException("Connection refused"));
    assertEquals(1_000, q.deliver()); // backoff 1 s, jitter drawn as 0
    assertEquals("WARN exception " + a.fingerprint.substring(0, 12) + ": QUEUED (network: Connection refused)", log.get(0));
    ExceptionReport b = report("b");
    q.enqueue(b);
    assertEquals("WARN exception " + b.fingerprint.substring(0, 12) + ": QUEUED (service unreachable)", log.get(1));
    now += 500;
    assertEquals(500, q.deliver()); // not before the wait is over
    now += 500;
    replies.add(reply(503, "", "Retry-After", "120"));
    assertEquals(120_000, q.deliver()); // Retry-After beats the 2 s backoff
    assertEquals(2, log.size()); // QUEUED once per report

    // The process dies; a new one reads the queue back and delivers both, once.
    ExceptionQueue after = queue(50);
    assertEquals(2, after.size());
    replies.addAll(Arrays.asList(REGISTERED, REGISTERED));
    assertEquals(ExceptionQueue.EMPTY, after.deliver());
    assertTrue(log.get(2).endsWith(a.fingerprint.substring(0, 12) + ": REGISTERED"));
    assertTrue(log.get(3).endsWith(b.fingerprint.substring(0, 12) + ": REGISTERED"));
    assertFalse(queue(50).enqueue(a));
  }

  @Test
  void identicalReportsAreSentOnce() throws IOException {
    ExceptionQueue q = queue(50);
    assertTrue(q.enqueue(report("a")));
    assertFalse(q.enqueue(report("a")));
    assertEquals(1, q.size());
    replies.add(REGISTERED);
    q.deliver();
    assertFalse(q.enqueue(report("a")));
    assertEquals(1, bodies.size());
  }

  @Test
  void aRejectionIsLostWithTheServersReasonAndMessage() throws IOException {
    ExceptionQueue q = queue(50);
    ExceptionReport a = report("a");
    q.enqueue(a);
    replies.add(reply(401, "{\"status\":\"LOST\",\"reason\":\"EXCEPTION_API_KEY_INVALID\",\"message\":\"Exception sent but rejected: Invalid API Key. Probably caused by the wrong configuration.\",\"budget\":null}"));
    assertEquals(ExceptionQueue.EMPTY, q.deliver());
    assertEquals("WARN exception " + a.fingerprint.substring(0, 12)
        + ": LOST (EXCEPTION_API_KEY_INVALID: Exception sent but rejected: Invalid API Key. Probably caused by the wrong configuration.)", log.get(0));
  }

  @Test
  void anExhaustedBudgetHoldsTheRestUntilFreesAt() throws IOException {
    ExceptionQueue q = queue(50);
    q.enqueue(report("a"));
    ExceptionReport b = report("b");
    q.enqueue(b);
    replies.add(reply(201, "{\"status\":\"REGISTERED\",\"reason\":null,\"message\":\"Exception sent.\",\"budget\":{\"limit\":10,\"remaining\":0,\"freesAt\":\"2026-11-25T13:00:00.000Z\"}}"));
    assertEquals(3_600_000, q.deliver());
    assertEquals("WARN exception " + b.fingerprint.substring(0, 12) + ": QUEUED (sending limit reached until 2026-11-25T13:00:00.000Z)", log.get(1));
  }

  @Test
  void theQueueIsBoundedDroppingTheOldest() throws IOException {
    ExceptionQueue q = queue(2);
    ExceptionReport a = report("a");
    q.enqueue(a);
    q.enqueue(report("b"));
    q.enqueue(report("c"));
    assertEquals(2, q.size());
    assertEquals("WARN exception queue full (2): dropped the oldest report " + a.fingerprint.substring(0, 12), log.get(0));
    q.setMaxSize(1);
    assertEquals(1, queue(5).size());
  }

  @Test
  void fingerprintsAreTheTypeScriptClients() {
    // Expected values printed by device-client/core/exception-report.ts's fingerprint().
    assertEquals("050eb844171ca2172c5ec13db77b", ExceptionReport.fingerprint(Json.object(
        "stack", Arrays.asList("java.lang.IllegalStateException: boom", "\tat a.B.c(B.java:1)"),
        "handled", true, "extra", Arrays.asList(Json.object("key", "screen", "value", "\u00fc\ud83d\ude80")))));
    assertEquals("09a716f4bed9b51f7e7b530eb429", ExceptionReport.fingerprint(Json.object(
        "stack", Arrays.asList("java.lang.IllegalStateException: boom", "\tat a.B.c(B.java:1)"),
        "handled", false, "extra", Collections.emptyList())));
    assertEquals("17c866a9c4e82f0e10792d6bfac0", ExceptionReport.fingerprint(""));
  }

  @Test
  void stackLinesIncludeTheCause() {
    Throwable t = new IllegalStateException("outer", new java.io.IOException("inner"));
    List<String> lines = ExceptionReport.stackLines(t);
    assertEquals("java.lang.IllegalStateException: outer", lines.get(0));
    assertTrue(lines.contains("Caused by: java.io.IOException: inner"));
  }
}
