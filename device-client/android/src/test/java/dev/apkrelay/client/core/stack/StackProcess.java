package dev.apkrelay.client.core.stack;

import dev.apkrelay.client.core.json.Json;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A real apkrelay stack in its own processes: {@code node dist/ops/dev/stack.js} from the checkout
 * (embedded Redis and MongoDB-protocol server, the workers and the API on free ports in a
 * temporary DATA_DIR; see ops/dev/stack.ts), driven by commands on its standard input, answering
 * one JSON line each. {@link #close()} asks it to stop, then SIGTERM, and waits until it and every
 * process it started are gone.
 */
final class StackProcess implements AutoCloseable {
  /** Why the stack cannot be started here (no node, or no built dist/), or null when it can. */
  static String unavailable(Path checkout) {
    if (!Files.isRegularFile(checkout.resolve("dist/ops/dev/stack.js"))) {
      return "dist/ops/dev/stack.js is missing in " + checkout + ": run `npm ci` (or `npm run build`) first";
    }
    try {
      Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
      String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
      return p.waitFor() == 0 ? null : "`node --version` failed: " + version;
    } catch (IOException | InterruptedException e) {
      return "Node.js is not installed (no `node` on PATH): " + e.getMessage();
    }
  }

  final Map<String, Object> ready;
  private final Process process;
  private final OutputStream stdin;
  private final BlockingQueue<Map<String, Object>> events = new LinkedBlockingQueue<>();
  private List<ProcessHandle> started = List.of();

  StackProcess(Path checkout, File log, int heartbeatSeconds) throws Exception {
    process = new ProcessBuilder("node", "dist/ops/dev/stack.js", "--heartbeat-seconds", String.valueOf(heartbeatSeconds))
        .directory(checkout.toFile())
        .redirectError(log)
        .start();
    stdin = process.getOutputStream();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          if (line.startsWith("{")) events.add(Json.parseObject(line));
        }
      } catch (IOException | RuntimeException ignored) {
        // the stack ended
      }
    }, "stack-stdout");
    reader.setDaemon(true);
    reader.start();
    ready = next("ready", 240);
  }

  @SuppressWarnings("unchecked")
  String url(String host) {
    return (String) ((Map<String, Object>) ready.get("urls")).get(host);
  }

  String apiKey() {
    return (String) ready.get("apiKey");
  }

  /**
   * The pin of the stack's self-signed certificate, as docs/android-kiosk.md has an operator make
   * it ({@code openssl x509 -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256}),
   * here with the JDK: {@code sha256/} and the base64 SHA-256 of its SubjectPublicKeyInfo.
   */
  String pin() throws Exception {
    java.security.cert.Certificate cert = CertificateFactory.getInstance("X.509")
        .generateCertificate(new ByteArrayInputStream(((String) ready.get("ca")).getBytes(StandardCharsets.US_ASCII)));
    byte[] hash = java.security.MessageDigest.getInstance("SHA-256").digest(cert.getPublicKey().getEncoded());
    return "sha256/" + java.util.Base64.getEncoder().encodeToString(hash);
  }

  /** TLS sockets trusting the stack's self-signed certificate (and nothing else). */
  SSLSocketFactory tls() throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    trust.setCertificateEntry("apkrelay", CertificateFactory.getInstance("X.509")
        .generateCertificate(new ByteArrayInputStream(((String) ready.get("ca")).getBytes(StandardCharsets.US_ASCII))));
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context.getSocketFactory();
  }

  /** Sends one command and waits for its answer, which must be {@code expected}. */
  Map<String, Object> command(String line, String expected, int timeoutSeconds) throws Exception {
    stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    stdin.flush();
    return next(expected, timeoutSeconds);
  }

  private Map<String, Object> next(String expected, int timeoutSeconds) throws Exception {
    Map<String, Object> e = events.poll(timeoutSeconds, TimeUnit.SECONDS);
    if (e == null) throw new IllegalStateException("the stack answered nothing in " + timeoutSeconds + " s (waiting for " + expected + ")");
    if (!expected.equals(e.get("event"))) throw new IllegalStateException("the stack answered " + Json.stringify(e) + ", not " + expected);
    return e;
  }

  /** The processes it runs (API, workers, Redis, the MongoDB-protocol server...), to check they end. */
  List<ProcessHandle> descendants() {
    started = process.descendants().collect(Collectors.toList());
    return started;
  }

  /** Asks it to stop; SIGTERM after 60 s, SIGKILL after 30 more. Returns the exit status. */
  @Override
  public void close() throws Exception {
    if (started.isEmpty()) descendants();
    try {
      stdin.write("quit\n".getBytes(StandardCharsets.UTF_8));
      stdin.close();
    } catch (IOException gone) {
      // it ended already
    }
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
    }
  }

  int exitValue() {
    return process.exitValue();
  }
}
