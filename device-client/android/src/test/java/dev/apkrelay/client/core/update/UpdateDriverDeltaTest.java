package dev.apkrelay.client.core.update;

import static dev.apkrelay.client.core.delta.PatchWriter.ascii;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.apkrelay.client.core.delta.DeltaFetch;
import dev.apkrelay.client.core.delta.PatchWriter;
import dev.apkrelay.client.core.download.Downloader;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.HttpReply;
import dev.apkrelay.client.core.ports.HttpRequest;
import dev.apkrelay.client.core.ports.HttpStream;
import dev.apkrelay.client.core.ports.HttpTransport;
import dev.apkrelay.client.core.protocol.VersionEvent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 37 on the device: a verified notice is first asked as a patch from the installed APK
 * ({@code /download/delta} of the delta contract), applied and checked; every failure (no patch,
 * a bad patch, no space, a mismatch, the network) ends in the full download, and the install
 * outcome for the heartbeat carries {@code download: {via, bytes, fallback}}. A fake transport
 * serves the delta and the APK; the bytes counted are those it served, written here by hand.
 */
class UpdateDriverDeltaTest {
  /** The installed APK (1,024 bytes) and the update: its byte 8 plus one, then "!!". */
  static final byte[] OLD = ascii(("version 1 of the app " + "x".repeat(1024)).substring(0, 1024));
  static final byte[] NEW;
  static final byte[] PATCH;
  /** The right size, other bytes: what a wrong patch from the right base makes. */
  static final byte[] WRONG_PATCH;

  static {
    NEW = Arrays.copyOf(OLD, OLD.length + 2);
    NEW[8]++;
    NEW[OLD.length] = '!';
    NEW[OLD.length + 1] = '!';
    byte[] diff = new byte[OLD.length];
    diff[8] = 1;
    PATCH = new PatchWriter(NEW.length).record(diff, ascii("!!"), 0).patch();
    WRONG_PATCH = new PatchWriter(NEW.length).record(diff, ascii("??"), 0).patch();
  }

  static final Clock CLOCK = new Clock() {
    @Override public long now() { return 1_764_000_000_000L; }
    @Override public double random() { return 0; }
    @Override public void sleep(long ms) {} // waits for a patch being made pass at once (DeltaFetchNotReadyTest counts them)
  };

  @TempDir Path dir;
  FileStorage storage;
  String oldPath;
  String oldMd5;
  VersionEvent event;
  final List<String> requests = Collections.synchronizedList(new ArrayList<>());
  final Map<String, Function<HttpRequest, HttpStream>> routes = Collections.synchronizedMap(new LinkedHashMap<>());
  final List<String> presented = Collections.synchronizedList(new ArrayList<>());
  final List<String> log = Collections.synchronizedList(new ArrayList<>());
  ScheduledExecutorService executor;
  ScheduledExecutorService downloads;
  long usable = Long.MAX_VALUE;

  @BeforeEach
  void setUp() throws Exception {
    storage = new FileStorage(dir.resolve("store").toFile());
    Path old = dir.resolve("base.apk");
    Files.write(old, OLD);
    oldPath = old.toString();
    oldMd5 = hex("MD5", OLD);
    // The signed notice's digests of the new APK, as the server computes them.
    event = new VersionEvent("dev.apkrelay.demo", "apk-2", hex("MD5", NEW), hex("SHA-256", NEW), 2, "2.0",
        NEW.length, "https://relay.example:8443/download?package=dev.apkrelay.demo&apk=apk-2", null);
    routes.put("/download", req -> reply(200, NEW, "content-length", String.valueOf(NEW.length)));
    executor = Executors.newSingleThreadScheduledExecutor();
    downloads = Executors.newSingleThreadScheduledExecutor();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    executor.shutdownNow();
    downloads.shutdownNow();
    assertTrue(executor.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS));
    assertTrue(downloads.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS));
  }

  static String hex(String algorithm, byte[] b) throws Exception {
    return Downloader.hex(MessageDigest.getInstance(algorithm).digest(b));
  }

  static HttpStream reply(int status, byte[] body, String... headers) {
    return reply(status, new ByteArrayInputStream(body), headers);
  }

  static HttpStream reply(int status, InputStream body, String... headers) {
    Map<String, String> h = new LinkedHashMap<>();
    for (int i = 0; i + 1 < headers.length; i += 2) h.put(headers[i], headers[i + 1]);
    return new HttpStream() {
      @Override public int status() { return status; }
      @Override public String header(String name) { return h.get(name.toLowerCase(java.util.Locale.ROOT)); }
      @Override public InputStream body() { return body; }
      @Override public void close() {}
    };
  }

  /** The contract's 200 for a patch. */
  HttpStream patchReply(byte[] patch) {
    return reply(200, patch, "content-length", String.valueOf(patch.length), "etag", "\"patch-etag\"",
        "x-apkrelay-delta-from", oldMd5, "x-apkrelay-delta-to", event.sha256, "content-type", "application/vnd.apkrelay.delta");
  }

  final HttpTransport transport = new HttpTransport() {
    @Override
    public HttpReply request(HttpRequest request) {
      throw new UnsupportedOperationException(request.url);
    }

    @Override
    public HttpStream open(HttpRequest request) throws IOException {
      java.net.URI u = java.net.URI.create(request.url);
      requests.add(u.getPath() + "?" + u.getRawQuery() + " accept=" + request.headers.get("accept")
          + " range=" + request.headers.get("range") + " if-range=" + request.headers.get("if-range"));
      Function<HttpRequest, HttpStream> route = routes.get(u.getPath());
      if (route == null) throw new IOException("connection refused");
      return route.apply(request);
    }
  };

  UpdateDriver driver;
  int installs;

  /** Runs the update from notice to an installed outcome; answers the outcome's {@code download}. */
  Map<String, Object> update(boolean withDelta) throws Exception {
    driver = new UpdateDriver(storage, CLOCK, (level, m) -> log.add(level + " " + m), new UpdatePresenter() {
      @Override public void present(VersionEvent e, String location) { presented.add(e.md5); }
      @Override public void withdraw(boolean gaveUp) {}
      @Override public void install(VersionEvent e, String location) {}
    }, executor, downloads, new Downloader(transport, storage), "key 1", "dev-1");
    if (withDelta) driver.delta(new DeltaFetch(transport, storage, () -> usable, oldPath, oldMd5, "key 1", "dev-1", CLOCK, null));
    driver.start(new PendingUpdate(storage, (level, m) -> {}, oldMd5, 3, CLOCK));
    return downloadAndInstall();
  }

  Map<String, Object> downloadAndInstall() throws Exception {
    presented.clear();
    driver.onVersion(event);
    await(() -> !presented.isEmpty() && driver.applicable(), "the update is downloaded and presented; log: " + log);
    assertArrayEquals(NEW, Files.readAllBytes(dir.resolve("store").resolve("update-" + event.md5 + ".apk")));
    assertFalse(Files.exists(dir.resolve("store").resolve("update-" + event.md5 + ".patch")), "the patch is deleted");
    driver.apply();
    String answer = "INSTALL_FAILED_TEST " + (++installs);
    driver.installResult(event.md5, false, 4, answer);
    await(() -> driver.unreportedOutcome() != null && answer.equals(driver.unreportedOutcome().get("message")),
        "the outcome is recorded");
    @SuppressWarnings("unchecked")
    Map<String, Object> download = (Map<String, Object>) driver.unreportedOutcome().get("download");
    assertNotNull(download, "the outcome carries download");
    return download;
  }

  interface Check {
    boolean ok() throws Exception;
  }

  static void await(Check c, String what) throws Exception {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!c.ok()) {
      assertTrue(System.nanoTime() < deadline, what);
      Thread.sleep(20);
    }
  }

  @SuppressWarnings("unchecked")
  static void assertFallback(Map<String, Object> download, String reason, long bytes) {
    assertEquals("full", download.get("via"));
    assertEquals(bytes, Json.asLong(download.get("bytes")));
    Map<String, Object> fallback = (Map<String, Object>) download.get("fallback");
    assertNotNull(fallback, "a fallback: " + download);
    assertEquals(reason, fallback.get("reason"), String.valueOf(fallback.get("message")));
    String message = (String) fallback.get("message");
    assertTrue(message != null && !message.isEmpty() && message.length() <= 300, message);
  }

  String deltaRequest() {
    return "/download/delta?package=dev.apkrelay.demo&api_key=key+1&deviceId=dev-1&from=" + oldMd5 + "&to="
        + event.sha256 + " accept=application/vnd.apkrelay.delta";
  }

  @Test
  void aPatchFromTheInstalledApkIsAppliedAndNothingElseDownloaded() throws Exception {
    routes.put("/download/delta", req -> patchReply(PATCH));
    Map<String, Object> download = update(true);
    assertEquals("{\"via\":\"delta\",\"bytes\":" + PATCH.length + ",\"fallback\":null}", Json.stringify(download));
    assertEquals(List.of(deltaRequest() + " range=null if-range=null"), requests);
  }

  @Test
  void noPatchOnTheServerFallsBackToTheFullDownload() throws Exception {
    routes.put("/download/delta", req -> reply(404, ascii("Delta not available."), "content-type", "text/plain"));
    assertFallback(update(true), "no-patch", NEW.length);
    assertEquals(2, requests.size());
    assertTrue(requests.get(1).startsWith("/download?package=dev.apkrelay.demo&apk=apk-2&api_key=key+1&deviceId=dev-1 "), requests.get(1));
  }

  @Test
  void aPatchTheApplierRefusesFallsBackAndCountsBothDownloads() throws Exception {
    byte[] garbage = ascii("this is not a zlib stream");
    routes.put("/download/delta", req -> patchReply(garbage));
    assertFallback(update(true), "patch-failed", garbage.length + NEW.length);
  }

  @Test
  void aPatchNeverReadyFallsBackAsNoPatchAndCountsEveryNotReadyAnswer() throws Exception {
    byte[] notReady = ascii("Delta not ready yet.");
    routes.put("/download/delta", req -> reply(503, notReady, "content-type", "text/plain", "retry-after", "30"));
    // Four waits of 30 s make the contract's 120 s: five answers, then the full download.
    assertFallback(update(true), "no-patch", 5 * notReady.length + NEW.length);
    assertEquals(6, requests.size());
  }

  @Test
  void tooLittleFreeSpaceFallsBackWithoutReadingThePatch() throws Exception {
    usable = NEW.length + PATCH.length + DeltaFetch.SPACE_MARGIN - 1;
    routes.put("/download/delta", req -> patchReply(PATCH));
    assertFallback(update(true), "no-space", NEW.length);
  }

  @Test
  void aPatchMakingOtherBytesThanTheNoticeFallsBackAsAMismatch() throws Exception {
    routes.put("/download/delta", req -> patchReply(WRONG_PATCH));
    assertFallback(update(true), "mismatch", WRONG_PATCH.length + NEW.length);
  }

  @Test
  void aNetworkFailureFallsBack() throws Exception {
    // No route: the transport fails to connect, as when the delta host cannot be reached.
    assertFallback(update(true), "network", NEW.length);
  }

  @Test
  void aTransferCutInThePatchFallsBackAndCountsWhatArrived() throws Exception {
    routes.put("/download/delta", req -> reply(200, new InputStream() {
      int sent;

      @Override
      public int read() throws IOException {
        if (sent == 10) throw new IOException("connection reset");
        return PATCH[sent++] & 0xff;
      }
    }, "content-length", String.valueOf(PATCH.length), "etag", "\"patch-etag\""));
    assertFallback(update(true), "network", 10 + NEW.length);
  }

  @Test
  void anInterruptedPatchResumesWithRangeAndIfRange() throws Exception {
    int have = 12;
    Files.createDirectories(dir.resolve("store"));
    Files.write(dir.resolve("store").resolve("update-" + event.md5 + ".patch"), Arrays.copyOf(PATCH, have));
    storage.write("delta-patch", "{\"to\":\"" + event.sha256 + "\",\"etag\":\"\\\"patch-etag\\\"\",\"size\":" + PATCH.length + "}");
    routes.put("/download/delta", req -> reply(206, Arrays.copyOfRange(PATCH, have, PATCH.length),
        "content-range", "bytes " + have + "-" + (PATCH.length - 1) + "/" + PATCH.length, "etag", "\"patch-etag\""));
    Map<String, Object> download = update(true);
    assertEquals("{\"via\":\"delta\",\"bytes\":" + (PATCH.length - have) + ",\"fallback\":null}", Json.stringify(download));
    assertEquals(List.of(deltaRequest() + " range=bytes=12- if-range=\"patch-etag\""), requests);
  }

  @Test
  void withoutAKnownInstalledApkTheUpdateComesWholeWithNoFallback() throws Exception {
    routes.put("/download/delta", req -> patchReply(PATCH));
    Map<String, Object> download = update(false);
    assertEquals("{\"via\":\"full\",\"bytes\":" + NEW.length + ",\"fallback\":null}", Json.stringify(download));
    assertEquals(1, requests.size());
    assertTrue(requests.get(0).startsWith("/download?"), requests.get(0));
    assertNull(storage.read("delta-patch"));
  }

  @Test
  void anUpdatePatchedThenDownloadedWholeIsReportedAsFull() throws Exception {
    routes.put("/download/delta", req -> patchReply(PATCH));
    assertEquals("delta", update(true).get("via"));
    // The patched file changes before an install: refused and deleted; the notice comes again.
    Files.write(dir.resolve("store").resolve("update-" + event.md5 + ".apk"), OLD);
    driver.apply();
    await(() -> !driver.applicable(), "the changed file is refused and the update dropped");
    assertFalse(Files.exists(dir.resolve("store").resolve("update-" + event.md5 + ".apk")), "the changed file is deleted");
    Map<String, Object> download = downloadAndInstall();
    assertEquals("{\"via\":\"full\",\"bytes\":" + (PATCH.length + NEW.length) + ",\"fallback\":null}", Json.stringify(download));
  }
}
