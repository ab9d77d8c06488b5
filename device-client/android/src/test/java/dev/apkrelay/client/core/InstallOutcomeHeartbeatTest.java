package dev.apkrelay.client.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.apkrelay.client.core.download.DownloadResultFactory;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.UrlConnectionTransport;
import dev.apkrelay.client.core.protocol.VersionEvent;
import dev.apkrelay.client.core.update.DownloadRecord;
import dev.apkrelay.client.core.update.PendingUpdate;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17: the installer's outcome is reported on the next heartbeat, as its {@code lastInstall}
 * (docs/push.md, "Installation outcome"), and only once: a heartbeat the server does not accept
 * keeps it for the next one, and once one is accepted it is not sent again. A JDK HTTP server
 * plays the device API; the stack test (StackTest) shows the server storing it.
 */
class InstallOutcomeHeartbeatTest {
  static final String INSTALLED = "11111111111111111111111111111111";
  static final VersionEvent V2 = new VersionEvent("dev.apkrelay.demo", "apk-2", "22222222222222222222222222222222",
      "2222222222222222222222222222222222222222222222222222222222222222", 2, "2.0", 3, "https://h/download", null);
  static final long NOW = Instant.parse("2026-11-25T17:00:00.000Z").toEpochMilli();
  static final Clock CLOCK = new Clock() {
    @Override public long now() { return NOW; }
    @Override public double random() { return 0.5; }
  };

  @TempDir Path dir;
  HttpServer server;
  Engine engine;
  final List<Map<String, Object>> beats = Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext("/api/v2/installations", ex -> TestHttp.reply(ex, 200,
        "{\"status\":\"enabled\",\"accountId\":\"6745a1b2c3d4e5f6000000aa\",\"heartbeatSeconds\":1}"));
    server.createContext("/api/v2/stream", ex -> TestHttp.reply(ex, 200, ": keep-alive\n\n"));
    server.createContext("/api/v2/heartbeat", ex -> {
      beats.add(Json.parseObject(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
      // The first heartbeat is not accepted: the outcome must wait for the next one.
      TestHttp.reply(ex, beats.size() == 1 ? 503 : 200, beats.size() == 1 ? "" : "{\"status\":\"enabled\",\"heartbeatSeconds\":1}");
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

  Engine engine(String installedMd5) {
    Engine.Config c = new Engine.Config();
    c.packageName = "dev.apkrelay.demo";
    c.apiKey = "key-1";
    c.deviceId = "device-1";
    c.pushUrl = "http://127.0.0.1:" + server.getAddress().getPort();
    c.baseUrl = c.pushUrl;
    c.pushKeySpki = "MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE="; // RFC 8032 7.1 test 1
    c.installedMd5 = installedMd5;
    Engine.Presenter presenter = new Engine.Presenter() {
      @Override public void present(VersionEvent event, String location) {}
      @Override public void withdraw(boolean gaveUp) {}
      @Override public void install(VersionEvent event, String location) {}
    };
    return new Engine(c, new UrlConnectionTransport(2_000, 2_000, 2_000), new FileStorage(dir.toFile()), CLOCK,
        (level, message) -> {}, presenter, Executors.newSingleThreadScheduledExecutor(),
        () -> Json.object("package", "dev.apkrelay.demo", "deviceId", "device-1", "installedMd5", installedMd5,
            "strategy", "CUSTOM", "metadata", Collections.emptyList()));
  }

  /** The update V2 was handed to the OS, which refused it (as UpdateReceiver reports it). */
  void osRefusedV2() throws Exception {
    PendingUpdate u = new PendingUpdate(new FileStorage(dir.toFile()), (l, m) -> {}, INSTALLED, 3, CLOCK);
    u.load();
    u.onVersion(V2);
    u.onDownloaded(V2, DownloadResultFactory.verified());
    u.installing();
    u.installFailed(4, "INSTALL_FAILED_UPDATE_INCOMPATIBLE: signatures do not match");
  }

  List<Object> lastInstalls(int n) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 20_000;
    while (beats.size() < n && System.currentTimeMillis() < deadline) Thread.sleep(50);
    assertTrue(beats.size() >= n, "heartbeats: " + beats.size());
    List<Object> out = new ArrayList<>();
    synchronized (beats) {
      for (Map<String, Object> b : beats.subList(0, n)) {
        out.add(b.containsKey("lastInstall") ? Json.stringify(b.get("lastInstall")) : null);
      }
    }
    return out;
  }

  @Test
  void aFailureIsSentOnTheNextAcceptedHeartbeatAndThenNoMore() throws Exception {
    osRefusedV2();
    engine = engine(INSTALLED);
    engine.start();
    String failure = "{\"md5\":\"" + V2.md5 + "\",\"versionCode\":2,\"status\":\"failure\",\"osStatus\":4,"
        + "\"message\":\"INSTALL_FAILED_UPDATE_INCOMPATIBLE: signatures do not match\",\"at\":\"2026-11-25T17:00:00Z\"}";
    // 503 to the first, so the second carries it again; accepted there, so the rest do not.
    assertEquals(java.util.Arrays.asList(failure, failure, null, null), lastInstalls(4));
    assertFalse(engine.installOutcome().contains("\"reported\":false"));
  }

  @Test
  void aSelfUpdateSeenAtTheNextStartIsReportedAsASuccessOnce() throws Exception {
    osRefusedV2();
    PendingUpdate u = new PendingUpdate(new FileStorage(dir.toFile()), (l, m) -> {}, INSTALLED, 3, CLOCK);
    u.load();
    u.installing(); // tried again; the OS installed it and replaced the process
    engine = engine(V2.md5);
    engine.start();
    String success = "{\"md5\":\"" + V2.md5 + "\",\"versionCode\":2,\"status\":\"success\",\"osStatus\":0,"
        + "\"message\":\"installed\",\"at\":\"2026-11-25T17:00:00Z\"}";
    assertEquals(java.util.Arrays.asList(success, success, null), lastInstalls(3));
  }

  /** Issue 37: how the update came rides in lastInstall as its download object. */
  @Test
  void theOutcomeCarriesHowTheUpdateWasDownloaded() throws Exception {
    DownloadRecord record = DownloadRecord.load(new FileStorage(dir.toFile()), V2.md5);
    record.received(40);
    record.fellBack("no-patch", "no patch from " + INSTALLED + " (HTTP 404)");
    record.received(3);
    record.save(new FileStorage(dir.toFile()));
    osRefusedV2();
    engine = engine(INSTALLED);
    engine.start();
    String failure = "{\"md5\":\"" + V2.md5 + "\",\"versionCode\":2,\"status\":\"failure\",\"osStatus\":4,"
        + "\"message\":\"INSTALL_FAILED_UPDATE_INCOMPATIBLE: signatures do not match\",\"at\":\"2026-11-25T17:00:00Z\","
        + "\"download\":{\"via\":\"full\",\"bytes\":43,\"fallback\":{\"reason\":\"no-patch\","
        + "\"message\":\"no patch from " + INSTALLED + " (HTTP 404)\"}}}";
    assertEquals(java.util.Arrays.asList(failure, failure, null), lastInstalls(3));
  }
}
