package dev.apkrelay.client.core.queue;

import dev.apkrelay.client.core.json.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Throwable turned into the JSON body of {@code POST /api/v2/exceptions} and its fingerprint,
 * as device-client/core/exception-report.ts: identical reports (same stack lines, same handled
 * label, same extra map) have the same fingerprint; metadata may differ between them.
 */
public final class ExceptionReport {
  /** The server keeps the newest 200 log lines (shared/exceptions/report.ts, MAX_LOG_LINES). */
  public static final int MAX_LOG_LINES = 200;
  /** A longer line makes the server refuse the whole report (MAX_FIELD_CHARS): cut here. */
  public static final int MAX_LINE_CHARS = 8_192;
  /**
   * Screenshots above this are left out: the server refuses a body above MAX_EXCEPTION_BYTES
   * (2 MiB by default) and the queue rewrites its file on every change. A JPEG at quality 70 of a
   * 1280-pixel screen is far below it.
   */
  public static final int MAX_SCREEN_BYTES = 512 * 1024;

  public final String fingerprint;
  public final Map<String, Object> body;

  private ExceptionReport(String fingerprint, Map<String, Object> body) {
    this.fingerprint = fingerprint;
    this.body = body;
  }

  /** Stack trace lines as printStackTrace writes them (causes included), right-trimmed, no blanks. */
  public static List<String> stackLines(Throwable error) {
    StringWriter text = new StringWriter();
    error.printStackTrace(new PrintWriter(text));
    List<String> lines = new ArrayList<>();
    for (String line : text.toString().split("\r?\n")) {
      String trimmed = line.replaceAll("\\s+$", "");
      if (!trimmed.isEmpty()) lines.add(trimmed);
    }
    return lines;
  }

  /**
   * @param extra pairs in the caller's order, as {@code [{key, value}]}
   * @param metadata installation and exception metadata, as {@code [{key, value}]}
   */
  public static ExceptionReport of(List<String> stack, boolean handled, List<Map<String, Object>> extra,
      List<Map<String, Object>> metadata, String packageName, String deviceId, String hash) {
    String fingerprint = fingerprint(Json.object("stack", stack, "handled", handled, "extra", extra));
    Map<String, Object> body = Json.object("package", packageName, "hash", hash, "deviceId", deviceId,
        "stack", stack, "handled", handled, "metadata", metadata, "extra", extra);
    return new ExceptionReport(fingerprint, body);
  }

  /**
   * This report with the device log's last lines ({@code log}, newest 200, each cut to
   * MAX_LINE_CHARS) and a screenshot ({@code screen}, base64 of JPEG bytes, as the JSON route
   * reads it), both as {@code api/exceptions/json-report.ts} takes them. Either is left out when
   * empty; a screenshot that is not a JPEG (FF D8 FF) or above MAX_SCREEN_BYTES is left out. The
   * fingerprint does not change: the same crash with another log is still the same exception.
   */
  public ExceptionReport withAttachments(List<String> log, byte[] jpeg) {
    Map<String, Object> b = new LinkedHashMap<>(body);
    if (log != null && !log.isEmpty()) {
      List<String> lines = new ArrayList<>();
      for (String line : log.subList(Math.max(0, log.size() - MAX_LOG_LINES), log.size())) {
        String l = String.valueOf(line);
        lines.add(l.length() > MAX_LINE_CHARS ? l.substring(0, MAX_LINE_CHARS) : l);
      }
      b.put("log", lines);
    }
    if (isJpeg(jpeg) && jpeg.length <= MAX_SCREEN_BYTES) b.put("screen", Base64.getEncoder().encodeToString(jpeg));
    return new ExceptionReport(fingerprint, b);
  }

  static boolean isJpeg(byte[] bytes) {
    return bytes != null && bytes.length >= 3 && (bytes[0] & 0xff) == 0xff && (bytes[1] & 0xff) == 0xd8
        && (bytes[2] & 0xff) == 0xff;
  }

  /** Two cyrb53 hashes (seeds 1 and 2) of the canonical JSON: 28 hex digits. */
  public static String fingerprint(Object value) {
    String text = Json.canonical(value);
    return hash53(text, 1) + hash53(text, 2);
  }

  /** cyrb53 (public domain, bryc), with JavaScript's 32-bit Math.imul and >>> semantics. */
  static String hash53(String text, int seed) {
    int h1 = 0xdeadbeef ^ seed;
    int h2 = 0x41c6ce57 ^ seed;
    for (int i = 0; i < text.length(); i++) {
      int ch = text.charAt(i);
      h1 = (h1 ^ ch) * (int) 2654435761L;
      h2 = (h2 ^ ch) * 1597334677;
    }
    h1 = ((h1 ^ (h1 >>> 16)) * (int) 2246822507L) ^ ((h2 ^ (h2 >>> 13)) * (int) 3266489909L);
    h2 = ((h2 ^ (h2 >>> 16)) * (int) 2246822507L) ^ ((h1 ^ (h1 >>> 13)) * (int) 3266489909L);
    long v = ((long) (h2 & 0x1fffff) << 32) + (h1 & 0xffffffffL);
    String hex = Long.toHexString(v);
    StringBuilder out = new StringBuilder();
    for (int i = hex.length(); i < 14; i++) out.append('0');
    return out.append(hex).toString();
  }
}
