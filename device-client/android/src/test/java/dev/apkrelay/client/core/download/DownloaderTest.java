package dev.apkrelay.client.core.download;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.UrlConnectionTransport;
import dev.apkrelay.client.core.protocol.VersionEvent;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Downloads from a real HTTP server (the JDK's). The APK is the three bytes "abc", whose digests
 * are the published test values: MD5 from RFC 1321 appendix A.5, SHA-256 from FIPS 180-2
 * appendix B.1.
 */
class DownloaderTest {
  static final String MD5_ABC = "900150983cd24fb0d6963f7d28e17f72";
  static final String SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

  @TempDir Path dir;
  HttpServer server;
  final List<String> seen = Collections.synchronizedList(new ArrayList<>());
  final List<Consumer<HttpExchange>> replies = Collections.synchronizedList(new ArrayList<>());
  Downloader downloader;
  FileStorage storage;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/download", ex -> {
      seen.add(ex.getRequestURI().getRawQuery() + " range=" + ex.getRequestHeaders().getFirst("range")
          + " if-range=" + ex.getRequestHeaders().getFirst("if-range"));
      replies.remove(0).accept(ex);
      ex.close();
    });
    server.start();
    storage = new FileStorage(dir.toFile());
    downloader = new Downloader(new UrlConnectionTransport(2_000, 2_000, 2_000), storage);
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  VersionEvent event(long size) {
    return new VersionEvent("dev.apkrelay.demo", "a1", MD5_ABC, SHA256_ABC, 2, "2.0", size,
        "http://127.0.0.1:" + server.getAddress().getPort() + "/download?package=dev.apkrelay.demo&apk=a1", null);
  }

  static Consumer<HttpExchange> send(int status, String body, String... headers) {
    return ex -> {
      try {
        for (int i = 0; i + 1 < headers.length; i += 2) ex.getResponseHeaders().add(headers[i], headers[i + 1]);
        byte[] b = body.getBytes(StandardCharsets.ISO_8859_1);
        ex.sendResponseHeaders(status, status == 404 ? -1 : 0); // chunked: the body may end anywhere
        try (OutputStream out = ex.getResponseBody()) {
          out.write(b);
        }
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    };
  }

  String file() throws IOException {
    File f = new File(dir.toFile(), "update.apk");
    return f.exists() ? new String(Files.readAllBytes(f.toPath()), StandardCharsets.ISO_8859_1) : null;
  }

  @Test
  void anInterruptedTransferResumesWithRangeAndIfRangeThenVerifies() throws IOException {
    replies.add(send(200, "a"));
    DownloadResult first = downloader.download(event(3), "update.apk", "key 1", "dev/1", () -> false);
    assertEquals(DownloadResult.Kind.FAILED, first.kind);
    assertEquals("the download ended early", first.reason);
    assertEquals("a", file());

    replies.add(send(206, "bc", "Content-Range", "bytes 1-2/3"));
    DownloadResult second = downloader.download(event(3), "update.apk", "key 1", "dev/1", () -> false);
    assertEquals(DownloadResult.Kind.VERIFIED, second.kind, second.toString());
    assertEquals("abc", file());
    assertEquals("package=dev.apkrelay.demo&apk=a1&api_key=key+1&deviceId=dev%2F1 range=null if-range=null", seen.get(0));
    assertEquals("package=dev.apkrelay.demo&apk=a1&api_key=key+1&deviceId=dev%2F1 range=bytes=1- if-range=\"" + SHA256_ABC + "\"", seen.get(1));
  }

  @Test
  void aWholeFileAnsweringARangeRestartsFromZero() throws IOException {
    Files.write(dir.resolve("update.apk"), "x".getBytes(StandardCharsets.ISO_8859_1));
    replies.add(send(200, "abc"));
    assertEquals(DownloadResult.Kind.VERIFIED, downloader.download(event(3), "update.apk", "k", "d", () -> false).kind);
    assertEquals("abc", file());
  }

  @Test
  void aTamperedFileIsDeleted() throws IOException {
    replies.add(send(200, "abd"));
    DownloadResult r = downloader.download(event(3), "update.apk", "k", "d", () -> false);
    assertEquals(DownloadResult.Kind.TAMPERED, r.kind);
    assertEquals("MD5 mismatch", r.reason);
    assertNull(file());
  }

  @Test
  void aLongerBodyIsRefusedAndDeleted() throws IOException {
    replies.add(send(200, "abcd"));
    DownloadResult r = downloader.download(event(3), "update.apk", "k", "d", () -> false);
    assertEquals(DownloadResult.Kind.TAMPERED, r.kind);
    assertEquals("longer than announced", r.reason);
    assertNull(file());
  }

  @Test
  void aPartialReplyStartingElsewhereFailsAndKeepsTheFile() throws IOException {
    Files.write(dir.resolve("update.apk"), "a".getBytes(StandardCharsets.ISO_8859_1));
    replies.add(send(206, "c", "Content-Range", "bytes 2-2/3"));
    DownloadResult r = downloader.download(event(3), "update.apk", "k", "d", () -> false);
    assertEquals(DownloadResult.Kind.FAILED, r.kind);
    assertEquals("unexpected Content-Range", r.reason);
    assertEquals("a", file());
  }

  @Test
  void aRefusalIsAFailureWithItsStatus() throws IOException {
    replies.add(send(404, ""));
    DownloadResult r = downloader.download(event(3), "update.apk", "k", "d", () -> false);
    assertEquals(DownloadResult.Kind.FAILED, r.kind);
    assertEquals(404, r.status);
  }

  @Test
  void aCompleteFileIsOnlyHashedAndAChangedOneIsCaughtBeforeInstall() throws IOException {
    Files.write(dir.resolve("update.apk"), "abc".getBytes(StandardCharsets.ISO_8859_1));
    assertEquals(DownloadResult.Kind.VERIFIED, downloader.download(event(3), "update.apk", "k", "d", () -> false).kind);
    assertTrue(seen.isEmpty());
    Files.write(dir.resolve("update.apk"), "abC".getBytes(StandardCharsets.ISO_8859_1));
    assertEquals("MD5 mismatch", downloader.verifyFile(event(3), "update.apk").reason);
    assertFalse(new File(dir.toFile(), "update.apk").exists());
  }

  @Test
  void credentialsReplaceThoseInTheEventUrl() {
    assertEquals("https://h/download?package=p&api_key=new&deviceId=d%C3%A9v+1#f",
        Downloader.downloadUrl("https://h/download?package=p&api_key=old&api_key=x#f", "new", "dév 1"));
  }
}
