package dev.apkrelay.client.core.delta;

import com.sun.net.httpserver.HttpServer;
import dev.apkrelay.client.core.download.Downloader;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.UrlConnectionTransport;
import dev.apkrelay.client.core.protocol.VersionEvent;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real HTTP server (the JDK's) answering {@code /download/delta} from a script of replies
 * written by each test (the last one repeats), with the installed APK, the update's notice and
 * a fake clock whose sleeps are recorded and never wait: what DeltaFetch's format and
 * not-ready-yet tests share. {@link #attempt} runs one DeltaFetch try over UrlConnectionTransport.
 */
final class DeltaServerScript implements AutoCloseable {
  /** One scripted reply: status, header name/value pairs, body. */
  static final class Reply {
    final int status;
    final byte[] body;
    final String[] headers;

    Reply(int status, byte[] body, String... headers) {
      this.status = status;
      this.body = body;
      this.headers = headers;
    }
  }

  final List<Reply> script = Collections.synchronizedList(new ArrayList<>());
  final List<String> queries = Collections.synchronizedList(new ArrayList<>());
  final List<Long> sleeps = new ArrayList<>();
  final AtomicLong received = new AtomicLong();
  final FileStorage storage;
  final Path dir;
  final String oldMd5;
  final VersionEvent event;
  private final HttpServer server;
  /** Set by a sleep when the test says so: the update is cancelled while waiting. */
  boolean cancelDuringSleep;
  private boolean cancelled;

  DeltaServerScript(Path dir, byte[] old, byte[] nu) throws Exception {
    this.dir = dir;
    Files.write(dir.resolve("base.apk"), old);
    oldMd5 = hex("MD5", old);
    storage = new FileStorage(dir.resolve("store").toFile());
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/download/delta", ex -> {
      queries.add(ex.getRequestURI().getRawQuery());
      Reply r;
      synchronized (script) {
        r = script.size() > 1 ? script.remove(0) : script.get(0);
      }
      for (int i = 0; i + 1 < r.headers.length; i += 2) ex.getResponseHeaders().add(r.headers[i], r.headers[i + 1]);
      ex.sendResponseHeaders(r.status, r.body.length == 0 ? -1 : r.body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(r.body);
      }
    });
    server.start();
    event = new VersionEvent("dev.apkrelay.demo", "apk-2", hex("MD5", nu), hex("SHA-256", nu), 2, "2.0", nu.length,
        "http://127.0.0.1:" + server.getAddress().getPort() + "/download?package=dev.apkrelay.demo&apk=apk-2", null);
  }

  static String hex(String algorithm, byte[] b) throws Exception {
    return Downloader.hex(MessageDigest.getInstance(algorithm).digest(b));
  }

  /** The contract's 200 for a patch, with X-Apkrelay-Delta-Format when {@code format} is not null. */
  Reply patch(byte[] patch, String format) {
    List<String> h = new ArrayList<>(List.of("Content-Type", "application/vnd.apkrelay.delta", "ETag", "\"patch-sha\"",
        "X-Apkrelay-Delta-From", oldMd5, "X-Apkrelay-Delta-To", event.sha256));
    if (format != null) h.addAll(List.of("X-Apkrelay-Delta-Format", format));
    return new Reply(200, patch, h.toArray(new String[0]));
  }

  /** The contract's "not ready yet": 503 text/plain with Retry-After when {@code retryAfter} is not null. */
  static Reply notReady(String retryAfter) {
    byte[] text = PatchWriter.ascii("Delta not ready yet.");
    return retryAfter == null ? new Reply(503, text, "Content-Type", "text/plain")
        : new Reply(503, text, "Content-Type", "text/plain", "Retry-After", retryAfter);
  }

  final Clock clock = new Clock() {
    @Override
    public long now() {
      return 1_764_000_000_000L + sleeps.stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public double random() {
      return 0;
    }

    @Override
    public void sleep(long ms) {
      sleeps.add(ms);
      if (cancelDuringSleep) cancelled = true;
    }
  };

  /** The query DeltaFetch sends, with {@code extra} appended. */
  String query(String extra) {
    return "package=dev.apkrelay.demo&api_key=key&deviceId=device+1&from=" + oldMd5 + "&to=" + event.sha256 + extra;
  }

  DeltaFetch.Result attempt(Recompressor recompressor) throws IOException {
    DeltaFetch fetch = new DeltaFetch(new UrlConnectionTransport(2_000, 2_000, 2_000), storage, () -> Long.MAX_VALUE,
        dir.resolve("base.apk").toString(), oldMd5, "key", "device 1", clock, recompressor);
    return fetch.attempt(event, "update.apk", () -> cancelled, received::addAndGet);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
