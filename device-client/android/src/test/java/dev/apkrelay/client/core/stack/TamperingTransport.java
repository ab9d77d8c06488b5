package dev.apkrelay.client.core.stack;

import dev.apkrelay.client.core.ports.HttpReply;
import dev.apkrelay.client.core.ports.HttpRequest;
import dev.apkrelay.client.core.ports.HttpStream;
import dev.apkrelay.client.core.ports.HttpTransport;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real transport (HTTPS to the real stack) with a man in the middle the test controls, acting
 * on what arrives: it can cut the next download's connection after N bytes of its body (the
 * connection to the server is really closed, the core sees a read fail), flip one byte of the next
 * download's body, and change the versionCode of every {@code version} event on the push stream
 * (its signature then no longer matches). It records every download request and reply.
 */
final class TamperingTransport implements HttpTransport {
  /** One download as the server answered it: the request's Range and If-Range, the reply's status and Content-Range. */
  static final class Download {
    final String range;
    final String ifRange;
    final int status;
    final String contentRange;

    Download(String range, String ifRange, int status, String contentRange) {
      this.range = range;
      this.ifRange = ifRange;
      this.status = status;
      this.contentRange = contentRange;
    }

    @Override
    public String toString() {
      return range + " " + ifRange + " -> " + status + " " + contentRange;
    }
  }

  private static final Pattern VERSION_CODE = Pattern.compile("\"versionCode\":(\\d+)");
  private final HttpTransport real;
  final List<Download> downloads = Collections.synchronizedList(new ArrayList<>());
  volatile boolean tamperVersionEvents;
  private volatile long cutNextDownloadAfter = -1;
  private volatile long flipNextDownloadByte = -1;

  TamperingTransport(HttpTransport real) {
    this.real = real;
  }

  void cutNextDownloadAfter(long bytes) {
    cutNextDownloadAfter = bytes;
  }

  void flipNextDownloadByte(long offset) {
    flipNextDownloadByte = offset;
  }

  @Override
  public HttpReply request(HttpRequest request) throws IOException {
    return real.request(request);
  }

  @Override
  public HttpStream open(HttpRequest request) throws IOException {
    HttpStream s = real.open(request);
    if (request.url.contains("/download?")) {
      downloads.add(new Download(request.headers.get("range"), request.headers.get("if-range"), s.status(),
          s.header("content-range")));
      long cut = cutNextDownloadAfter;
      long flip = flipNextDownloadByte;
      cutNextDownloadAfter = -1;
      flipNextDownloadByte = -1;
      return cut < 0 && flip < 0 ? s : with(s, new Tampered(s, cut, flip));
    }
    // Every stream is read through the filter: one opened before tampering starts is altered too.
    if (request.url.contains("/api/v2/stream?")) return with(s, new VersionEvents(s.body()));
    return s;
  }

  private static HttpStream with(HttpStream s, InputStream body) {
    return new HttpStream() {
      @Override public int status() { return s.status(); }
      @Override public String header(String name) { return s.header(name); }
      @Override public InputStream body() { return body; }
      @Override public void close() { s.close(); }
    };
  }

  /** A download body cut after {@code cut} bytes (closing the connection) or with byte {@code flip} changed. */
  private static final class Tampered extends FilterInputStream {
    private final HttpStream stream;
    private final long cut;
    private final long flip;
    private long offset;

    Tampered(HttpStream stream, long cut, long flip) {
      super(stream.body());
      this.stream = stream;
      this.cut = cut;
      this.flip = flip;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (cut >= 0 && offset >= cut) {
        stream.close();
        throw new IOException("test: connection cut after " + cut + " bytes");
      }
      int n = super.read(b, off, cut >= 0 ? (int) Math.min(len, cut - offset) : len);
      if (n > 0 && flip >= offset && flip < offset + n) b[off + (int) (flip - offset)] ^= 0x01;
      if (n > 0) offset += n;
      return n;
    }
  }

  /** The event stream; while tampering, the versionCode of every version event's data raised by one. */
  private final class VersionEvents extends InputStream {
    private final InputStream in;
    private byte[] line = new byte[0];
    private int at;

    VersionEvents(InputStream in) {
      this.in = in;
    }

    @Override
    public int read() throws IOException {
      if (at == line.length && !nextLine()) return -1;
      return line[at++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) return 0;
      if (at == line.length && !nextLine()) return -1;
      int n = Math.min(len, line.length - at);
      System.arraycopy(line, at, b, off, n);
      at += n;
      return n;
    }

    private boolean nextLine() throws IOException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int c;
      while ((c = in.read()) >= 0) {
        out.write(c);
        if (c == '\n') break;
      }
      if (out.size() == 0) return false;
      String text = new String(out.toByteArray(), StandardCharsets.UTF_8);
      if (tamperVersionEvents && text.startsWith("data:") && text.contains("\"type\":\"version\"")) {
        Matcher m = VERSION_CODE.matcher(text);
        if (m.find()) text = m.replaceFirst("\"versionCode\":" + (Long.parseLong(m.group(1)) + 1));
      }
      line = text.getBytes(StandardCharsets.UTF_8);
      at = 0;
      return true;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
