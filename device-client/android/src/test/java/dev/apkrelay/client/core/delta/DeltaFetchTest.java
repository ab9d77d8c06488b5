package dev.apkrelay.client.core.delta;

import static dev.apkrelay.client.core.delta.PatchWriter.ascii;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.apkrelay.client.core.download.Downloader;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.UrlConnectionTransport;
import dev.apkrelay.client.core.protocol.VersionEvent;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeltaFetch over real HTTP (the JDK's server, the library's UrlConnectionTransport): the
 * contract's 200 with Content-Length, ETag and the X-Apkrelay-Delta headers is applied; a partial
 * patch left by a stopped transfer is resumed with {@code Range} and {@code If-Range} and a 206;
 * a 404 is {@code no-patch}. The driver's other fallbacks are in UpdateDriverDeltaTest.
 */
class DeltaFetchTest {
  static final byte[] OLD = ascii("an installed APK, version 1, with some bytes that stay the same");
  static final byte[] NEW;
  static final byte[] PATCH;

  static {
    NEW = Arrays.copyOf(OLD, OLD.length + 3);
    NEW[26]++; // "version 1" becomes "version 2"
    System.arraycopy(ascii("new"), 0, NEW, OLD.length, 3);
    byte[] diff = new byte[OLD.length];
    diff[26] = 1;
    PATCH = new PatchWriter(NEW.length).record(diff, ascii("new"), 0).patch();
  }

  @TempDir Path dir;
  HttpServer server;
  FileStorage storage;
  VersionEvent event;
  String oldMd5;
  final List<String> seen = Collections.synchronizedList(new ArrayList<>());
  volatile int status = 200;

  static String hex(String algorithm, byte[] b) throws Exception {
    return Downloader.hex(MessageDigest.getInstance(algorithm).digest(b));
  }

  @BeforeEach
  void start() throws Exception {
    oldMd5 = hex("MD5", OLD);
    Files.write(dir.resolve("base.apk"), OLD);
    storage = new FileStorage(dir.resolve("store").toFile());
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/download/delta", ex -> {
      String range = ex.getRequestHeaders().getFirst("range");
      String ifRange = ex.getRequestHeaders().getFirst("if-range");
      seen.add(ex.getRequestURI().getRawQuery() + " range=" + range + " if-range=" + ifRange);
      if (status == 404) {
        byte[] text = ascii("Delta not available.");
        ex.getResponseHeaders().add("Content-Type", "text/plain");
        ex.sendResponseHeaders(404, text.length);
        ex.getResponseBody().write(text);
        ex.close();
        return;
      }
      int from = range != null && "\"patch-sha\"".equals(ifRange) ? Integer.parseInt(range.replaceAll("\\D", "")) : 0;
      ex.getResponseHeaders().add("Content-Type", "application/vnd.apkrelay.delta");
      ex.getResponseHeaders().add("ETag", "\"patch-sha\"");
      ex.getResponseHeaders().add("X-Apkrelay-Delta-From", oldMd5);
      ex.getResponseHeaders().add("X-Apkrelay-Delta-To", event.sha256);
      ex.getResponseHeaders().add("Accept-Ranges", "bytes");
      if (from > 0) ex.getResponseHeaders().add("Content-Range", "bytes " + from + "-" + (PATCH.length - 1) + "/" + PATCH.length);
      ex.sendResponseHeaders(from > 0 ? 206 : 200, PATCH.length - from);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(PATCH, from, PATCH.length - from);
      }
    });
    server.start();
    event = new VersionEvent("dev.apkrelay.demo", "apk-2", hex("MD5", NEW), hex("SHA-256", NEW), 2, "2.0", NEW.length,
        "http://127.0.0.1:" + server.getAddress().getPort() + "/download?package=dev.apkrelay.demo&apk=apk-2", null);
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  DeltaFetch.Result attempt(AtomicLong received) throws Exception {
    DeltaFetch fetch = new DeltaFetch(new UrlConnectionTransport(2_000, 2_000, 2_000), storage, () -> Long.MAX_VALUE,
        dir.resolve("base.apk").toString(), oldMd5, "key", "device 1");
    return fetch.attempt(event, "update.apk", () -> false, received::addAndGet);
  }

  String query() {
    return "package=dev.apkrelay.demo&api_key=key&deviceId=device+1&from=" + oldMd5 + "&to=" + event.sha256;
  }

  @Test
  void theContractsReplyIsAppliedIntoTheUpdatesFile() throws Exception {
    AtomicLong received = new AtomicLong();
    assertTrue(attempt(received).applied());
    assertArrayEquals(NEW, Files.readAllBytes(dir.resolve("store/update.apk")));
    assertEquals(PATCH.length, received.get());
    assertEquals(List.of(query() + " range=null if-range=null"), seen);
    assertFalse(Files.exists(dir.resolve("store/" + DeltaFetch.patchName(event))), "the patch is deleted once applied");
    assertNull(storage.read(DeltaFetch.META_KEY));
  }

  @Test
  void aPartialPatchIsResumedWithRangeAndIfRange() throws Exception {
    Files.createDirectories(dir.resolve("store"));
    Files.write(dir.resolve("store/" + DeltaFetch.patchName(event)), Arrays.copyOf(PATCH, 10));
    storage.write(DeltaFetch.META_KEY, "{\"to\":\"" + event.sha256 + "\",\"etag\":\"\\\"patch-sha\\\"\",\"size\":" + PATCH.length + "}");
    AtomicLong received = new AtomicLong();
    assertTrue(attempt(received).applied());
    assertArrayEquals(NEW, Files.readAllBytes(dir.resolve("store/update.apk")));
    assertEquals(PATCH.length - 10, received.get());
    assertEquals(List.of(query() + " range=bytes=10- if-range=\"patch-sha\""), seen);
  }

  @Test
  void aNotFoundIsNoPatchAndLeavesNothing() throws Exception {
    status = 404;
    DeltaFetch.Result r = attempt(new AtomicLong());
    assertEquals("no-patch", r.reason);
    assertFalse(Files.exists(dir.resolve("store/update.apk")));
  }
}
