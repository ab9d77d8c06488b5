package dev.apkrelay.client.core.download;

import dev.apkrelay.client.core.ports.HttpStream;
import dev.apkrelay.client.core.ports.HttpTransport;
import dev.apkrelay.client.core.ports.HttpRequest;
import dev.apkrelay.client.core.ports.Storage;
import dev.apkrelay.client.core.protocol.VersionEvent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UnsupportedEncodingException;
import java.net.URLEncoder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One attempt at downloading the APK of a verified version event into a file, as
 * device-client/core/download.ts: resume what an earlier attempt left ({@code Range: bytes=N-},
 * with {@code If-Range} on the APK's ETag, the quoted SHA-256, so a changed file restarts from
 * zero); a 200 to a ranged request restarts; a 206 must start where the file ends; then size, MD5
 * and SHA-256 are checked over the whole file. A file that fails the check is deleted: it is never
 * handed to the installer. Blocking: call it off the main thread.
 */
public final class Downloader {
  private static final Pattern CONTENT_RANGE = Pattern.compile("^bytes (\\d+)-");
  private final HttpTransport transport;
  private final Storage storage;

  public Downloader(HttpTransport transport, Storage storage) {
    this.transport = transport;
    this.storage = storage;
  }

  /** The event's URL with the device's credentials set ({@code api_key}, {@code deviceId}). */
  public static String downloadUrl(String eventUrl, String apiKey, String deviceId) {
    String url = setParam(eventUrl, "api_key", apiKey);
    return setParam(url, "deviceId", deviceId);
  }

  /**
   * The delta contract's {@code /download/delta} URL for a notice: the notice URL's origin, the
   * path replaced, its {@code package} kept, and the credentials and both ends of the patch set.
   */
  public static String deltaUrl(String eventUrl, String apiKey, String deviceId, String fromMd5, String toSha256) {
    java.net.URI u = java.net.URI.create(eventUrl);
    String pkg = null;
    for (String pair : u.getRawQuery() == null ? new String[0] : u.getRawQuery().split("&")) {
      if (pair.startsWith("package=")) pkg = pair.substring("package=".length());
    }
    String url = u.getScheme() + "://" + u.getRawAuthority() + "/download/delta"
        + (pkg == null ? "" : "?package=" + pkg);
    url = setParam(setParam(url, "api_key", apiKey), "deviceId", deviceId);
    return setParam(setParam(url, "from", fromMd5), "to", toSha256);
  }

  private static String setParam(String url, String name, String value) {
    int hash = url.indexOf('#');
    String fragment = hash < 0 ? "" : url.substring(hash);
    String base = hash < 0 ? url : url.substring(0, hash);
    int q = base.indexOf('?');
    String path = q < 0 ? base : base.substring(0, q);
    String query = q < 0 ? "" : base.substring(q + 1);
    StringBuilder out = new StringBuilder();
    boolean set = false;
    for (String pair : query.isEmpty() ? new String[0] : query.split("&", -1)) {
      String key = pair.contains("=") ? pair.substring(0, pair.indexOf('=')) : pair;
      if (key.equals(name)) {
        if (set) continue;
        pair = name + "=" + encode(value);
        set = true;
      }
      out.append(out.length() == 0 ? "" : "&").append(pair);
    }
    if (!set) out.append(out.length() == 0 ? "" : "&").append(name).append('=').append(encode(value));
    return path + "?" + out + fragment;
  }

  private static String encode(String v) {
    try {
      return URLEncoder.encode(v, "UTF-8");
    } catch (UnsupportedEncodingException e) {
      throw new IllegalStateException(e);
    }
  }

  public DownloadResult download(VersionEvent event, String file, String apiKey, String deviceId,
      BooleanSupplier cancelled) throws IOException {
    return download(event, file, apiKey, deviceId, cancelled, n -> {});
  }

  /** @param received told each count of body bytes read from the network (the heartbeat's {@code download.bytes}) */
  public DownloadResult download(VersionEvent event, String file, String apiKey, String deviceId,
      BooleanSupplier cancelled, LongConsumer received) throws IOException {
    long have = storage.fileSize(file);
    if (have > event.size) {
      storage.removeFile(file);
      have = 0;
    }
    if (have < event.size) {
      Map<String, String> headers = new LinkedHashMap<>();
      headers.put("accept", "application/vnd.android.package-archive");
      if (have > 0) {
        headers.put("range", "bytes=" + have + "-");
        headers.put("if-range", "\"" + event.sha256 + "\"");
      }
      HttpStream res;
      try {
        res = transport.open(new HttpRequest("GET", downloadUrl(event.url, apiKey, deviceId), headers, null));
      } catch (IOException e) {
        return DownloadResult.failed(String.valueOf(e.getMessage()), 0);
      }
      try {
        int status = res.status();
        if (status == 200 && have > 0) {
          // The whole file came back (no range support, or the APK changed): restart.
          storage.removeFile(file);
          have = 0;
        } else if (status == 206) {
          Matcher m = CONTENT_RANGE.matcher(String.valueOf(res.header("content-range")));
          if (!m.find() || Long.parseLong(m.group(1)) != have) {
            return DownloadResult.failed("unexpected Content-Range", status);
          }
        } else if (status != 200) {
          return DownloadResult.failed("HTTP " + status, status);
        }
        have = copy(res.body(), file, have, event.size, cancelled, received);
        if (have < 0) return DownloadResult.failed("cancelled", 0);
      } catch (IOException e) {
        return DownloadResult.failed(String.valueOf(e.getMessage()), 0);
      } finally {
        res.close();
      }
      if (have < event.size) return DownloadResult.failed("the download ended early", 0);
      if (have > event.size) {
        storage.removeFile(file);
        return DownloadResult.tampered("longer than announced");
      }
    }
    return verifyFile(event, file);
  }

  /** Appends the body; returns the new length (size + 1 when longer than announced), -1 when cancelled. */
  private long copy(InputStream in, String file, long have, long size, BooleanSupplier cancelled,
      LongConsumer received) throws IOException {
    byte[] buf = new byte[64 * 1024];
    try (OutputStream out = storage.append(file)) {
      int n;
      while ((n = in.read(buf)) > 0) {
        received.accept(n);
        if (cancelled.getAsBoolean()) return -1;
        if (have + n > size) {
          out.write(buf, 0, (int) (size - have));
          return size + 1;
        }
        out.write(buf, 0, n);
        have += n;
      }
    }
    return have;
  }

  /** Hashes a stored file: the check after every download and right before every install. */
  public DownloadResult verifyFile(VersionEvent event, String file) throws IOException {
    MessageDigest md5 = digest("MD5");
    MessageDigest sha256 = digest("SHA-256");
    long size = 0;
    try (InputStream in = storage.readFile(file)) {
      byte[] buf = new byte[64 * 1024];
      int n;
      while ((n = in.read(buf)) > 0) {
        size += n;
        md5.update(buf, 0, n);
        sha256.update(buf, 0, n);
      }
    }
    String problem = size != event.size ? "size " + size + " instead of " + event.size
        : !hex(md5.digest()).equals(event.md5) ? "MD5 mismatch"
        : !hex(sha256.digest()).equals(event.sha256) ? "SHA-256 mismatch"
        : null;
    if (problem == null) return DownloadResult.verified();
    storage.removeFile(file);
    return DownloadResult.tampered(problem);
  }

  private static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is missing from this platform", e);
    }
  }

  /** Lower-case hex, as the notices write digests. */
  public static String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder();
    for (byte b : bytes) out.append(String.format("%02x", b & 0xff));
    return out.toString();
  }
}
