package dev.apkrelay.client.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.UrlConnectionTransport;
import dev.apkrelay.client.core.protocol.VersionEvent;
import dev.apkrelay.client.core.queue.ExceptionReport;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole core against a JDK HTTP server playing the device API (not yet the real apkrelay
 * stack): events are signed here with the JDK's own Ed25519 (JDK 15+), the verifier is the
 * library's. A forged version is refused and nothing downloaded; the signed one is downloaded
 * with an interruption and a resume, verified and presented; a give-up withdraws it once;
 * exceptions wait out an outage and are delivered once. Notices are format 2 (docs/push.md,
 * "Notice binding and staleness (format 2)"): one for another account or another device, one
 * older than the last accepted (after a restart too), or any when the registration reply names no
 * account, is refused and downloads nothing.
 */
class EngineTest {
  static final String MD5_ABC = "900150983cd24fb0d6963f7d28e17f72"; // RFC 1321 A.5
  static final String SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; // FIPS 180-2 B.1
  static final String ACCOUNT = "6745a1b2c3d4e5f6000000aa";
  static final String OTHER_ACCOUNT = "6745a1b2c3d4e5f6000000bb";
  static final String DEVICE = "device-1";
  /** The device's clock at the start of a test: notices must be within a day of it (docs/push.md, rule 6). */
  static final long NOW = Instant.parse("2026-11-25T17:00:00.000Z").toEpochMilli();

  @TempDir Path dir;
  HttpServer server;
  KeyPair keys;
  volatile String registrationReply =
      "{\"status\":\"enabled\",\"accountId\":\"" + ACCOUNT + "\",\"heartbeatSeconds\":3600}";
  final BlockingQueue<String> streamBodies = new LinkedBlockingQueue<>();
  final BlockingQueue<String> presented = new LinkedBlockingQueue<>();
  final List<String> downloads = Collections.synchronizedList(new ArrayList<>());
  final List<String> downloadQueries = Collections.synchronizedList(new ArrayList<>());
  final List<String> logged = Collections.synchronizedList(new ArrayList<>());
  final List<String> withdrawn = Collections.synchronizedList(new ArrayList<>());
  /** Installations handed to the "OS" (md5s); it answers nothing unless a test says so. */
  final BlockingQueue<String> installs = new LinkedBlockingQueue<>();
  final AtomicInteger exceptionPosts = new AtomicInteger();
  final List<String> exceptionBodies = Collections.synchronizedList(new ArrayList<>());
  /** Registrations still to refuse with 503 (the device API down for them). */
  final AtomicInteger registrationsToRefuse = new AtomicInteger();
  /** Device API calls in arrival order: "register 503", "register 200", "exception". */
  final List<String> calls = Collections.synchronizedList(new ArrayList<>());
  Engine engine;
  /** When set, each download waits for it before answering (a transfer that stalls). */
  volatile CountDownLatch stallDownloads;
  /** The engines' read timeout (a stalled download holds its thread that long). */
  int readTimeoutMs = 2_000;
  /** Retry-After (seconds) on a refused registration; null: none. */
  volatile String refusalRetryAfter;

  @BeforeEach
  void start() throws Exception {
    keys = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext("/api/v2/installations", ex -> {
      boolean refuse = registrationsToRefuse.getAndDecrement() > 0;
      calls.add(refuse ? "register 503" : "register 200");
      if (refuse && refusalRetryAfter != null) ex.getResponseHeaders().add("Retry-After", refusalRetryAfter);
      TestHttp.reply(ex, refuse ? 503 : 200, refuse ? "" : registrationReply);
    });
    server.createContext("/api/v2/stream", ex -> {
      String body;
      try {
        body = streamBodies.poll(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        body = null;
      }
      TestHttp.reply(ex, 200, body == null ? ": keep-alive\n\n" : body);
    });
    server.createContext("/download", ex -> {
      String range = ex.getRequestHeaders().getFirst("range");
      downloads.add(String.valueOf(range));
      CountDownLatch stall = stallDownloads;
      if (stall != null) {
        try {
          stall.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      downloadQueries.add(ex.getRequestURI().getRawQuery().split("&")[0]); // apk=…, before api_key and deviceId
      if (range == null) {
        ex.sendResponseHeaders(200, 0);
        try (OutputStream out = ex.getResponseBody()) {
          out.write('a'); // then the connection ends: an interrupted transfer
        }
      } else {
        ex.getResponseHeaders().add("Content-Range", "bytes 1-2/3");
        TestHttp.reply(ex, 206, "bc");
      }
      ex.close();
    });
    server.createContext("/api/v2/exceptions", ex -> {
      calls.add("exception");
      exceptionBodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      if (exceptionPosts.incrementAndGet() == 1) {
        TestHttp.reply(ex, 503, "");
      } else {
        TestHttp.reply(ex, 201, "{\"status\":\"REGISTERED\",\"reason\":null,\"message\":\"Exception sent.\",\"budget\":null}");
      }
    });
    server.start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (engine != null) {
      engine.stop();
      // Its threads may still be writing into the @TempDir that JUnit deletes next.
      assertTrue(engine.awaitStopped(5_000), "the engine's threads ended");
    }
    server.stop(0);
  }

  String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  String signed(Map<String, Object> event) throws Exception {
    Signature s = Signature.getInstance("Ed25519");
    s.initSign(keys.getPrivate());
    s.update(Json.canonical(event).getBytes(StandardCharsets.UTF_8));
    event.put("signature", Base64.getEncoder().encodeToString(s.sign()));
    return Json.stringify(event);
  }

  /** A format 2 version notice for this account and device, issued a minute before {@link #NOW}. */
  Map<String, Object> version() {
    return version(ACCOUNT, DEVICE, "2026-11-25T16:59:00.000Z", "apk-2");
  }

  /** A format 2 version notice; its url names {@code apkId}, so a download shows which one it was. */
  Map<String, Object> version(String account, String device, String issuedAt, String apkId) {
    return Json.object("v", 2, "type", "version", "account", account, "package", "dev.apkrelay.demo",
        "device", device, "apkId", apkId, "md5", MD5_ABC, "sha256", SHA256_ABC, "versionCode", 2,
        "versionName", "2.0", "size", 3, "url", base() + "/download?apk=" + apkId, "issuedAt", issuedAt);
  }

  static String sse(String id, String event, String data) {
    return "id: " + id + "\nevent: " + event + "\ndata: " + data + "\n\n";
  }

  Engine.Config config() {
    Engine.Config c = new Engine.Config();
    c.packageName = "dev.apkrelay.demo";
    c.apiKey = "key-1";
    c.deviceId = DEVICE;
    c.pushUrl = base();
    c.baseUrl = base();
    c.pushKeySpki = Base64.getEncoder().encodeToString(keys.getPublic().getEncoded());
    c.installedMd5 = "11111111111111111111111111111111";
    return c;
  }

  /** An engine on {@link #dir} (a second one there is the same device after a restart). */
  Engine engine(Engine.Config c) {
    Engine.Presenter presenter = new Engine.Presenter() {
      @Override public void present(VersionEvent event, String location) {
        presented.add(event.md5 + " " + location);
      }
      @Override public void withdraw(boolean gaveUp) {
        if (gaveUp) withdrawn.add("gave up");
      }
      @Override public void install(VersionEvent event, String location) {
        installs.add(event.md5);
      }
    };
    long started = System.currentTimeMillis();
    Clock clock = new Clock() { // NOW when the engine is made, then running (the exception queue waits)
      @Override public long now() { return NOW + System.currentTimeMillis() - started; }
      @Override public double random() { return Math.random(); }
    };
    return new Engine(c, new UrlConnectionTransport(2_000, readTimeoutMs, readTimeoutMs), new FileStorage(dir.toFile()),
        clock, (level, message) -> logged.add(message), presenter, Executors.newSingleThreadScheduledExecutor(),
        () -> Json.object("package", "dev.apkrelay.demo", "deviceId", DEVICE, "installedMd5", c.installedMd5,
            "strategy", "CUSTOM", "metadata", Collections.emptyList()));
  }

  /** Waits up to 20 s until {@code message} was logged. */
  void awaitLogged(String message) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 20_000;
    while (!logged.contains(message) && System.currentTimeMillis() < deadline) Thread.sleep(20);
    assertTrue(logged.contains(message), "not logged: " + message + " in " + logged);
  }

  @Test
  void versionDownloadGiveupAndExceptionsEndToEnd() throws Exception {
    Engine.Config c = config();
    engine = engine(c);

    Map<String, Object> forged = version();
    String forgedText = signed(forged).replace("\"size\":3", "\"size\":4");
    streamBodies.add(sse("1", "version", forgedText));
    streamBodies.add(sse("2", "version", signed(version())));
    engine.start();
    engine.report(ExceptionReport.of(List.of("java.lang.IllegalStateException: offline"), true,
        Collections.emptyList(), Collections.emptyList(), "dev.apkrelay.demo", DEVICE, c.installedMd5), false);

    String shown = presented.poll(20, TimeUnit.SECONDS);
    File apk = new File(dir.toFile(), "update-" + MD5_ABC + ".apk");
    assertEquals(MD5_ABC + " " + apk.getAbsolutePath(), shown);
    assertEquals(List.of("null", "bytes=1-"), downloads); // the forged event downloaded nothing
    assertTrue(logged.contains("push: event refused (bad signature)"), logged.toString());
    assertTrue(engine.hasPendingUpdate());

    streamBodies.add(sse("3", "giveup", signed(Json.object("v", 2, "type", "giveup", "account", ACCOUNT,
        "package", "dev.apkrelay.demo", "device", DEVICE, "apkId", "apk-2", "md5", MD5_ABC,
        "issuedAt", "2026-11-25T16:59:40.000Z"))));
    long deadline = System.currentTimeMillis() + 20_000;
    while ((withdrawn.isEmpty() || exceptionPosts.get() < 2) && System.currentTimeMillis() < deadline) Thread.sleep(50);
    assertEquals(List.of("gave up"), withdrawn);
    assertFalse(apk.exists());
    assertFalse(engine.hasPendingUpdate());
    assertEquals(2, exceptionPosts.get()); // refused once (503), then delivered once
    assertEquals(exceptionBodies.get(0), exceptionBodies.get(1));
  }

  /** The service takes reports only from registered installations (docs/exceptions.md). */
  @Test
  void exceptionsWaitForTheFirstRegistrationQueuedWhileItFails() throws Exception {
    Engine.Config c = config();
    engine = engine(c);
    registrationsToRefuse.set(1);
    engine.start();
    engine.report(ExceptionReport.of(List.of("java.lang.IllegalStateException: early"), true,
        Collections.emptyList(), Collections.emptyList(), "dev.apkrelay.demo", DEVICE, c.installedMd5), false);

    long deadline = System.currentTimeMillis() + 20_000;
    while (exceptionPosts.get() < 2 && System.currentTimeMillis() < deadline) Thread.sleep(50);
    // Refused once (503: the queue's backoff), then delivered; never before the registration.
    assertEquals(List.of("register 503", "register 200", "exception", "exception"), calls);
    assertTrue(logged.stream().anyMatch(l -> l.contains(": QUEUED (not registered yet: registration refused: HTTP 503")),
        logged.toString());
  }

  @Test
  void noticesForAnotherAccountOrDeviceAreRefusedAndOneForThisDeviceIsDownloaded() throws Exception {
    engine = engine(config());
    // Each names its own apkId in its url: a download shows which notice was acted on.
    streamBodies.add(sse("1", "version", signed(version(OTHER_ACCOUNT, DEVICE, "2026-11-25T16:59:00.000Z", "other-account")))
        + sse("2", "version", signed(version(ACCOUNT, "device-2", "2026-11-25T16:59:00.000Z", "other-device")))
        + sse("3", "version", signed(version(ACCOUNT, "*", "2026-11-25T16:59:00.000Z", "apk-2"))));
    engine.start();

    File apk = new File(dir.toFile(), "update-" + MD5_ABC + ".apk");
    assertEquals(MD5_ABC + " " + apk.getAbsolutePath(), presented.poll(20, TimeUnit.SECONDS));
    assertEquals(List.of("apk=apk-2", "apk=apk-2"), downloadQueries); // interrupted, then resumed
    assertEquals(List.of("push: event refused (event addressed to another account)",
        "push: event refused (event addressed to another device)"), refusals());
    assertEquals(String.valueOf(Instant.parse("2026-11-25T16:59:00.000Z").toEpochMilli()),
        new FileStorage(dir.toFile()).read("last-notice-at"));
  }

  @Test
  void aNoticeOlderThanTheLastAcceptedIsRefusedAfterARestart() throws Exception {
    engine = engine(config());
    streamBodies.add(sse("1", "version", signed(version(ACCOUNT, DEVICE, "2026-11-25T16:59:30.000Z", "apk-2"))));
    engine.start();
    assertTrue(presented.poll(20, TimeUnit.SECONDS).startsWith(MD5_ABC));
    engine.stop();
    assertTrue(engine.awaitStopped(5_000), "the stopped engine's threads (its last stream request) ended");
    long acceptedAt = Instant.parse("2026-11-25T16:59:30.000Z").toEpochMilli();
    assertEquals(String.valueOf(acceptedAt), new FileStorage(dir.toFile()).read("last-notice-at"));

    // The same device restarted: 61 s older than the last accepted is refused (60 s of slack), a
    // give-up 30 s older is within the slack and accepted, and the stored time stays the later one.
    engine = engine(config());
    streamBodies.add(sse("2", "version", signed(version(ACCOUNT, DEVICE, "2026-11-25T16:58:29.000Z", "stale")))
        + sse("3", "giveup", signed(Json.object("v", 2, "type", "giveup", "account", ACCOUNT,
            "package", "dev.apkrelay.demo", "device", DEVICE, "apkId", "apk-2", "md5", MD5_ABC,
            "issuedAt", "2026-11-25T16:59:00.000Z"))));
    engine.start();
    long deadline = System.currentTimeMillis() + 20_000;
    while (withdrawn.isEmpty() && System.currentTimeMillis() < deadline) Thread.sleep(50);
    assertEquals(List.of("gave up"), withdrawn);
    assertEquals(List.of("push: event refused (older than the last accepted notice)"), refusals());
    assertEquals(List.of("apk=apk-2", "apk=apk-2"), downloadQueries); // the stale one downloaded nothing
    assertEquals(String.valueOf(acceptedAt), new FileStorage(dir.toFile()).read("last-notice-at"));
  }

  @Test
  void everyNoticeIsRefusedWhenTheRegistrationReplyNamesNoAccount() throws Exception {
    registrationReply = "{\"status\":\"enabled\",\"heartbeatSeconds\":3600}"; // an older server
    engine = engine(config());
    streamBodies.add(sse("1", "version", signed(version())) + sse("2", "version", signed(version())));
    engine.start();
    // The second notice is the marker: refused after the first, on the same push thread.
    awaitCount(this::refusals, 2);
    CountDownLatch marker = new CountDownLatch(1); // then whatever the first could have queued has run
    engine.post(marker::countDown);
    assertTrue(marker.await(20, TimeUnit.SECONDS));
    assertEquals(List.of("push: event refused (event addressed to another account)",
        "push: event refused (event addressed to another account)"), refusals());
    assertEquals(List.of(), downloads);
    assertNull(presented.poll());
    assertNull(new FileStorage(dir.toFile()).read("last-notice-at"));
  }

  /** Issue 32, must-hold 1: a confirmation nobody gives never leaves the update installing. */
  @Test
  void anInstallationTheOsNeverAnswersIsOfferedAgainWithAFailureOutcome() throws Exception {
    Engine.Config c = config();
    c.installAnswerTimeoutMs = 500;
    engine = engine(c);
    assertFalse(engine.applyUpdate(), "nothing downloaded yet: nothing to apply");
    streamBodies.add(sse("1", "version", signed(version())));
    engine.start();
    File apk = new File(dir.toFile(), "update-" + MD5_ABC + ".apk");
    assertEquals(MD5_ABC + " " + apk.getAbsolutePath(), presented.poll(20, TimeUnit.SECONDS));
    engine.idle(false); // spec "Idle flag": nothing is installed until it is true again
    assertFalse(engine.applyUpdate(), "idle false: not applied");
    engine.idle(true);
    assertEquals(MD5_ABC + " " + apk.getAbsolutePath(), presented.poll(20, TimeUnit.SECONDS)); // idle true presents again
    assertTrue(engine.applyUpdate());
    assertEquals(MD5_ABC, installs.poll(20, TimeUnit.SECONDS)); // the first install: none while idle was false
    // No answer: after the timeout it is downloaded again, presented again, and the failure kept.
    assertEquals(MD5_ABC + " " + apk.getAbsolutePath(), presented.poll(20, TimeUnit.SECONDS));
    Map<String, Object> outcome = Json.parseObject(engine.installOutcome());
    assertEquals("failure", outcome.get("status"));
    assertEquals(-1L, ((Number) outcome.get("osStatus")).longValue());
    assertEquals("no answer from the installer within 500 ms (the confirmation was not given, or the OS dropped it)",
        outcome.get("message"));
    assertEquals(false, outcome.get("reported"));
    assertTrue(engine.applyUpdate(), "downloaded, not applied, again: it can be applied again");
    assertEquals(MD5_ABC, installs.poll(20, TimeUnit.SECONDS));
  }

  /** Issue 32, must-hold 4: a stalled download delays neither exception delivery nor anything else. */
  @Test
  void anExceptionIsDeliveredWhileADownloadStalls() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    stallDownloads = release;
    readTimeoutMs = 60_000; // the held download keeps its thread until released, not 2 s
    try {
      Engine.Config c = config();
      engine = engine(c);
      streamBodies.add(sse("1", "version", signed(version())));
      engine.start();
      long deadline = System.currentTimeMillis() + 20_000;
      while (downloads.isEmpty() && System.currentTimeMillis() < deadline) Thread.sleep(20);
      assertEquals(List.of("null"), downloads); // the download has started and is held
      engine.report(ExceptionReport.of(List.of("java.lang.IllegalStateException: during a download"), true,
          Collections.emptyList(), Collections.emptyList(), "dev.apkrelay.demo", DEVICE, c.installedMd5), false);
      deadline = System.currentTimeMillis() + 20_000;
      while (exceptionPosts.get() < 1 && System.currentTimeMillis() < deadline) Thread.sleep(20);
      assertTrue(exceptionPosts.get() >= 1, "the report was sent while the download was still held");
      assertEquals(List.of("null"), downloads);
      assertNull(presented.poll(), "the held download has presented nothing");
    } finally {
      release.countDown();
    }
  }

  /**
   * Issue 32, must-hold 2: the network back, the periodic job or a boot wake the engine, and a
   * stream waiting out a long Retry-After reconnects at once instead of an hour later.
   */
  @Test
  void wakeReconnectsAtOnceInsteadOfWaitingOutTheBackoff() throws Exception {
    registrationsToRefuse.set(1);
    refusalRetryAfter = "3600";
    engine = engine(config());
    engine.start();
    awaitCount(() -> new ArrayList<>(calls), 1);
    assertEquals(List.of("register 503"), calls); // and now an hour to wait
    long waiting = System.currentTimeMillis() + 20_000; // until the push thread sleeps it out
    while (!pushThreadWaits() && System.currentTimeMillis() < waiting) Thread.sleep(20);
    assertTrue(pushThreadWaits(), "the push thread waits out the Retry-After");
    engine.wake();
    long deadline = System.currentTimeMillis() + 20_000;
    while (!"enabled".equals(engine.status()) && System.currentTimeMillis() < deadline) Thread.sleep(20);
    assertEquals("enabled", engine.status());
    assertEquals(List.of("register 503", "register 200"), calls.subList(0, 2));
  }

  static boolean pushThreadWaits() {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals("apkrelay-push") && t.getState() == Thread.State.TIMED_WAITING) return true;
    }
    return false;
  }

  void awaitCount(java.util.function.Supplier<List<String>> list, int n) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 20_000;
    while (list.get().size() < n && System.currentTimeMillis() < deadline) Thread.sleep(20);
    assertEquals(n, list.get().size(), String.valueOf(list.get()));
  }

  List<String> refusals() {
    List<String> out = new ArrayList<>();
    synchronized (logged) {
      for (String m : logged) if (m.startsWith("push: event refused")) out.add(m);
    }
    return out;
  }
}
