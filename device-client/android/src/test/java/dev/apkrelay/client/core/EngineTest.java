package dev.apkrelay.client.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
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
 * exceptions wait out an outage and are delivered once.
 */
class EngineTest {
  static final String MD5_ABC = "900150983cd24fb0d6963f7d28e17f72"; // RFC 1321 A.5
  static final String SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; // FIPS 180-2 B.1

  @TempDir Path dir;
  HttpServer server;
  KeyPair keys;
  final BlockingQueue<String> streamBodies = new LinkedBlockingQueue<>();
  final BlockingQueue<String> presented = new LinkedBlockingQueue<>();
  final List<String> downloads = Collections.synchronizedList(new ArrayList<>());
  final AtomicInteger exceptionPosts = new AtomicInteger();
  final List<String> exceptionBodies = Collections.synchronizedList(new ArrayList<>());
  Engine engine;

  @BeforeEach
  void start() throws Exception {
    keys = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext("/api/v2/installations", ex -> TestHttp.reply(ex, 200, "{\"status\":\"enabled\",\"heartbeatSeconds\":3600}"));
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
  void stop() {
    if (engine != null) engine.stop();
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

  Map<String, Object> version() {
    return Json.object("type", "version", "package", "dev.apkrelay.demo", "apkId", "apk-2", "md5", MD5_ABC,
        "sha256", SHA256_ABC, "versionCode", 2, "versionName", "2.0", "size", 3,
        "url", base() + "/download?package=dev.apkrelay.demo", "issuedAt", "2026-11-25T16:00:00.000Z");
  }

  @Test
  void versionDownloadGiveupAndExceptionsEndToEnd() throws Exception {
    Engine.Config c = new Engine.Config();
    c.packageName = "dev.apkrelay.demo";
    c.apiKey = "key-1";
    c.deviceId = "device-1";
    c.pushUrl = base();
    c.baseUrl = base();
    c.pushKeySpki = Base64.getEncoder().encodeToString(keys.getPublic().getEncoded());
    c.installedMd5 = "11111111111111111111111111111111";
    List<String> withdrawn = Collections.synchronizedList(new ArrayList<>());
    Engine.Presenter presenter = new Engine.Presenter() {
      @Override public void present(VersionEvent event, String location) {
        presented.add(event.md5 + " " + location);
      }
      @Override public void withdraw(boolean gaveUp) {
        if (gaveUp) withdrawn.add("gave up");
      }
      @Override public void install(VersionEvent event, String location) {
        throw new UnsupportedOperationException();
      }
    };
    engine = new Engine(c, new UrlConnectionTransport(2_000, 2_000, 2_000), new FileStorage(dir.toFile()),
        Clock.SYSTEM, (level, message) -> { }, presenter, Executors.newSingleThreadScheduledExecutor(),
        () -> Json.object("package", "dev.apkrelay.demo", "deviceId", "device-1", "installedMd5", c.installedMd5,
            "strategy", "CUSTOM", "metadata", Collections.emptyList()));

    Map<String, Object> forged = version();
    String forgedText = signed(forged).replace("\"size\":3", "\"size\":4");
    streamBodies.add("id: 1\nevent: version\ndata: " + forgedText + "\n\n");
    streamBodies.add("id: 2\nevent: version\ndata: " + signed(version()) + "\n\n");
    engine.start();
    engine.report(ExceptionReport.of(List.of("java.lang.IllegalStateException: offline"), true,
        Collections.emptyList(), Collections.emptyList(), "dev.apkrelay.demo", "device-1", c.installedMd5), false);

    String shown = presented.poll(20, TimeUnit.SECONDS);
    File apk = new File(dir.toFile(), "update-" + MD5_ABC + ".apk");
    assertEquals(MD5_ABC + " " + apk.getAbsolutePath(), shown);
    assertEquals(List.of("null", "bytes=1-"), downloads); // the forged event downloaded nothing
    assertTrue(engine.hasPendingUpdate());

    streamBodies.add("id: 3\nevent: giveup\ndata: " + signed(Json.object("type", "giveup", "package", "dev.apkrelay.demo",
        "apkId", "apk-2", "md5", MD5_ABC, "issuedAt", "2026-11-25T17:00:00.000Z")) + "\n\n");
    long deadline = System.currentTimeMillis() + 20_000;
    while ((withdrawn.isEmpty() || exceptionPosts.get() < 2) && System.currentTimeMillis() < deadline) Thread.sleep(50);
    assertEquals(List.of("gave up"), withdrawn);
    assertFalse(apk.exists());
    assertFalse(engine.hasPendingUpdate());
    assertEquals(2, exceptionPosts.get()); // refused once (503), then delivered once
    assertEquals(exceptionBodies.get(0), exceptionBodies.get(1));
  }
}
