package dev.apkrelay.client.core.ports;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;

/**
 * {@link HttpTransport} over {@link HttpURLConnection}, which Android (API 1+) and the JVM both
 * have. No redirects are followed (the device API answers directly); {@code Accept-Encoding:
 * identity} keeps an event stream from being buffered by gzip. The read timeout of a stream is
 * what detects a dead connection (the server's keep-alive comments arrive well within it).
 */
public final class UrlConnectionTransport implements HttpTransport {
  private final int connectTimeoutMs;
  private final int readTimeoutMs;
  private final int streamReadTimeoutMs;
  private final SSLSocketFactory tls;

  public UrlConnectionTransport(int connectTimeoutMs, int readTimeoutMs, int streamReadTimeoutMs) {
    this(connectTimeoutMs, readTimeoutMs, streamReadTimeoutMs, null);
  }

  /**
   * @param tls the TLS sockets of https URLs (a private CA, e.g. a self-hosted server's
   *     self-signed certificate); null: the platform's default trust
   */
  public UrlConnectionTransport(int connectTimeoutMs, int readTimeoutMs, int streamReadTimeoutMs,
      SSLSocketFactory tls) {
    this.connectTimeoutMs = connectTimeoutMs;
    this.readTimeoutMs = readTimeoutMs;
    this.streamReadTimeoutMs = streamReadTimeoutMs;
    this.tls = tls;
  }

  /** 15 s to connect, 30 s per read, 90 s of silence on a stream (as the TS client's watchdog). */
  public UrlConnectionTransport() {
    this(15_000, 30_000, 90_000);
  }

  @Override
  public HttpReply request(HttpRequest request) throws IOException {
    HttpURLConnection c = connect(request, readTimeoutMs);
    try {
      int status = c.getResponseCode();
      InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
      String text = in == null ? "" : new String(readAll(in), StandardCharsets.UTF_8);
      return new HttpReply(status, headers(c), text);
    } finally {
      c.disconnect();
    }
  }

  @Override
  public HttpStream open(HttpRequest request) throws IOException {
    final HttpURLConnection c = connect(request, streamReadTimeoutMs);
    final int status = c.getResponseCode();
    InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
    final InputStream body = in != null ? in : new java.io.ByteArrayInputStream(new byte[0]);
    return new HttpStream() {
      @Override
      public int status() {
        return status;
      }

      @Override
      public String header(String name) {
        return c.getHeaderField(name);
      }

      @Override
      public InputStream body() {
        return body;
      }

      @Override
      public void close() {
        try {
          body.close();
        } catch (IOException ignored) {
          // closing is best effort
        }
        c.disconnect();
      }
    };
  }

  private HttpURLConnection connect(HttpRequest request, int readTimeout) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL(request.url).openConnection();
    if (tls != null && c instanceof HttpsURLConnection) ((HttpsURLConnection) c).setSSLSocketFactory(tls);
    c.setInstanceFollowRedirects(false);
    c.setConnectTimeout(connectTimeoutMs);
    c.setReadTimeout(readTimeout);
    c.setUseCaches(false);
    c.setRequestMethod(request.method);
    c.setRequestProperty("accept-encoding", "identity");
    for (Map.Entry<String, String> h : request.headers.entrySet()) {
      c.setRequestProperty(h.getKey(), h.getValue());
    }
    if (request.body != null) {
      byte[] bytes = request.body.getBytes(StandardCharsets.UTF_8);
      c.setDoOutput(true);
      c.setFixedLengthStreamingMode(bytes.length);
      try (OutputStream out = c.getOutputStream()) {
        out.write(bytes);
      }
    }
    return c;
  }

  private static Map<String, String> headers(HttpURLConnection c) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> h : c.getHeaderFields().entrySet()) {
      if (h.getKey() != null && !h.getValue().isEmpty()) out.put(h.getKey(), h.getValue().get(0));
    }
    return out;
  }

  static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    int n;
    while ((n = in.read(buf)) > 0) out.write(buf, 0, n);
    in.close();
    return out.toByteArray();
  }
}
