package dev.apkrelay.client.core.delta;

import dev.apkrelay.client.core.delta.DeltaException.Reason;
import dev.apkrelay.client.core.download.Downloader;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.DiskSpace;
import dev.apkrelay.client.core.ports.HttpRequest;
import dev.apkrelay.client.core.ports.HttpStream;
import dev.apkrelay.client.core.ports.HttpTransport;
import dev.apkrelay.client.core.ports.Storage;
import dev.apkrelay.client.core.protocol.VersionEvent;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One try at an update by delta (issue 37; the delta contract): GET {@code /download/delta} from
 * the installed APK's MD5 to the notice's SHA-256 (resumed with {@code Range}/{@code If-Range} on
 * the patch's ETag, as the full download resumes), check the free space, apply the patch into the
 * update's file and check size, MD5 and SHA-256 against the signed notice. Any failure deletes
 * what it wrote and answers the contract's fallback reason; the caller then downloads the full
 * APK. A cancelled transfer keeps the partial patch for the next try. Blocking.
 *
 * <p>With a {@link Recompressor} it asks for {@code formats=2,1} and applies the format
 * {@code X-Apkrelay-Delta-Format} names (absent: 1); without one it asks for ARDELTA1 only. A
 * {@code 503} with {@code Retry-After} ("not ready yet": the server is still making the patch) is
 * waited out, {@code min(Retry-After, 30)} s at a time on the clock, and asked again, up to 120 s
 * in all for the update; then {@code no-patch}. A 503 without Retry-After is {@code network}.
 */
public final class DeltaFetch {
  /** Room kept free beyond the patch and the new APK. */
  public static final long SPACE_MARGIN = 8L * 1024 * 1024;
  static final String META_KEY = "delta-patch";
  private static final Pattern CONTENT_RANGE = Pattern.compile("^bytes (\\d+)-\\d+/(\\d+)$");
  /** The contract's bound on waiting for a patch being made, in all for one update. */
  public static final long MAX_NOT_READY_WAIT_MS = 120_000;
  /** The longest single wait, whatever Retry-After says. */
  static final long MAX_ONE_WAIT_MS = 30_000;
  private static final Pattern SECONDS = Pattern.compile("^\\s*(\\d{1,9})\\s*$");

  /** The outcome of one try. */
  public static final class Result {
    static final Result APPLIED = new Result(null, null);
    static final Result CANCELLED = new Result(null, null);
    /** The contract's fallback reason ({@code no-patch, patch-failed, no-space, mismatch, network}); null when none. */
    public final String reason;
    public final String message;

    Result(String reason, String message) {
      this.reason = reason;
      this.message = message;
    }

    /** The patched APK is in the update's file, verified. */
    public boolean applied() {
      return this == APPLIED;
    }

    /** Stopped: the partial patch is kept for the next try. */
    public boolean cancelled() {
      return this == CANCELLED;
    }
  }

  /** A failure that ends the try with a fallback reason. */
  private static final class Fallback extends Exception {
    private static final long serialVersionUID = 1L;
    final String reason;

    Fallback(String reason, String message) {
      super(message);
      this.reason = reason;
    }
  }

  private final HttpTransport transport;
  private final Storage storage;
  private final DiskSpace space;
  private final String installedPath;
  private final String installedMd5;
  private final String apiKey;
  private final String deviceId;
  private final Clock clock;
  private final Recompressor recompressor;

  /** ARDELTA1 only, waiting on the system clock. */
  public DeltaFetch(HttpTransport transport, Storage storage, DiskSpace space, String installedPath,
      String installedMd5, String apiKey, String deviceId) {
    this(transport, storage, space, installedPath, installedMd5, apiKey, deviceId, Clock.SYSTEM, null);
  }

  /** @param recompressor deflates ARDELTA2's ranges again; null: ARDELTA1 only */
  public DeltaFetch(HttpTransport transport, Storage storage, DiskSpace space, String installedPath,
      String installedMd5, String apiKey, String deviceId, Clock clock, Recompressor recompressor) {
    this.clock = clock;
    this.recompressor = recompressor;
    this.transport = transport;
    this.storage = storage;
    this.space = space;
    this.installedPath = installedPath;
    this.installedMd5 = installedMd5;
    this.apiKey = apiKey;
    this.deviceId = deviceId;
  }

  /** Where the patch of this update is kept while it downloads. */
  public static String patchName(VersionEvent e) {
    return "update-" + e.md5 + ".patch";
  }

  /** Where an ARDELTA2 patch's dfOld is built while it applies (deleted after). */
  public static String dfOldName(VersionEvent e) {
    return "update-" + e.md5 + ".dfold";
  }

  /**
   * @param file the update's file: the patched APK is written there, and is there only when APPLIED
   * @param received told each count of body bytes read from the network
   */
  public Result attempt(VersionEvent e, String file, BooleanSupplier cancelled, LongConsumer received)
      throws IOException {
    try {
      int format = fetchPatch(e, cancelled, received);
      if (format == 0) return Result.CANCELLED;
      apply(e, file, format);
    } catch (Fallback f) {
      return fallBack(e, file, f.reason, f.getMessage());
    } catch (RuntimeException bug) { // a malformed header or URL must not leave the update stuck
      return fallBack(e, file, "patch-failed", String.valueOf(bug));
    }
    forget(e);
    return Result.APPLIED;
  }

  private Result fallBack(VersionEvent e, String file, String reason, String message) throws IOException {
    storage.removeFile(file);
    forget(e);
    return new Result(reason, message);
  }

  private void forget(VersionEvent e) throws IOException {
    storage.removeFile(patchName(e));
    storage.remove(META_KEY);
  }

  /** The whole patch in {@link #patchName}: its format, or 0 when cancelled (the part is kept). */
  private int fetchPatch(VersionEvent e, BooleanSupplier cancelled, LongConsumer received)
      throws IOException, Fallback {
    String name = patchName(e);
    Map<String, Object> meta = meta(e);
    long have = meta == null ? 0 : storage.fileSize(name);
    Long total = meta == null ? null : Json.asLong(meta.get("size"));
    if (meta == null) storage.removeFile(name);
    Long stored = meta == null ? null : Json.asLong(meta.get("format"));
    int format = stored == null ? 1 : stored.intValue();
    if (total != null && have == total) return format;
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("accept", "application/vnd.apkrelay.delta");
    if (have > 0 && meta.get("etag") != null) {
      headers.put("range", "bytes=" + have + "-");
      headers.put("if-range", (String) meta.get("etag"));
    }
    String url = Downloader.deltaUrl(e.url, apiKey, deviceId, installedMd5, e.sha256)
        + (recompressor != null ? "&formats=2,1" : "");
    HttpStream res = ready(new HttpRequest("GET", url, headers, null), cancelled, received);
    if (res == null) return 0;
    try {
      int status = res.status();
      if (status == 404) throw new Fallback("no-patch", "no patch from " + installedMd5 + " (HTTP 404)");
      if (status == 200) {
        storage.removeFile(name);
        have = 0;
        total = length(res.header("content-length"));
      } else if (status == 206 && have > 0) {
        Matcher m = CONTENT_RANGE.matcher(String.valueOf(res.header("content-range")));
        if (!m.find() || Long.parseLong(m.group(1)) != have) throw new Fallback("network", "unexpected Content-Range");
        total = Long.parseLong(m.group(2));
      } else {
        throw new Fallback("network", "patch request answered HTTP " + status);
      }
      String named = res.header("x-apkrelay-delta-format");
      format = named != null ? format(named) : status == 206 ? format : 1;
      checkHeaders(e, res, total, format);
      storage.write(META_KEY, Json.stringify(Json.object("to", e.sha256, "etag", res.header("etag"), "size", total,
          "format", format)));
      return copy(res.body(), name, have, total, cancelled, received) ? format : 0;
    } finally {
      res.close();
    }
  }

  /**
   * The first answer that is not "not ready yet", or null when cancelled while waiting. Each 503's
   * body is read and counted (every byte of the update is reported).
   */
  private HttpStream ready(HttpRequest request, BooleanSupplier cancelled, LongConsumer received) throws Fallback {
    long waited = 0;
    while (true) {
      HttpStream res;
      try {
        res = transport.open(request);
      } catch (IOException io) {
        throw new Fallback("network", "patch request failed: " + io.getMessage());
      }
      if (res.status() != 503) return res;
      Long seconds = retryAfter(res.header("retry-after"));
      try (InputStream body = res.body()) {
        byte[] buf = new byte[4096];
        for (int n; body != null && (n = body.read(buf)) > 0; ) received.accept(n);
      } catch (IOException io) {
        throw new Fallback("network", "the patch's not-ready answer was cut: " + io.getMessage());
      } finally {
        res.close();
      }
      if (seconds == null) throw new Fallback("network", "patch request answered HTTP 503 without Retry-After");
      if (waited >= MAX_NOT_READY_WAIT_MS) {
        throw new Fallback("no-patch", "the patch was still not ready after " + waited / 1000 + " s of waiting");
      }
      long ms = Math.min(Math.min(seconds * 1000, MAX_ONE_WAIT_MS), MAX_NOT_READY_WAIT_MS - waited);
      try {
        clock.sleep(ms);
      } catch (InterruptedException stop) {
        Thread.currentThread().interrupt();
        return null;
      }
      waited += ms;
      if (cancelled.getAsBoolean()) return null;
    }
  }

  /** Retry-After in whole seconds (at least 1), or null when absent or not such a number. */
  private static Long retryAfter(String header) {
    Matcher m = SECONDS.matcher(header == null ? "" : header);
    long s = m.find() ? Long.parseLong(m.group(1)) : 0;
    return s >= 1 ? s : null;
  }

  /** The format the server names: one this fetch asked for, or the patch is refused. */
  private int format(String named) throws Fallback {
    String f = named.trim();
    if (f.equals("1") || (f.equals("2") && recompressor != null)) return f.charAt(0) - '0';
    throw new Fallback("patch-failed", "the server sent a patch of format " + named + ", not one asked for");
  }

  private void checkHeaders(VersionEvent e, HttpStream res, Long total, int format) throws Fallback {
    String to = res.header("x-apkrelay-delta-to");
    String from = res.header("x-apkrelay-delta-from");
    if ((to != null && !to.equalsIgnoreCase(e.sha256)) || (from != null && !from.equalsIgnoreCase(installedMd5))) {
      throw new Fallback("patch-failed", "the server sent a patch from " + from + " to " + to);
    }
    if (total == null) throw new Fallback("patch-failed", "the patch has no length");
    if (total >= e.size) {
      throw new Fallback("patch-failed", "the patch (" + total + " bytes) is not smaller than the APK (" + e.size + " bytes)");
    }
    // ARDELTA2 also builds dfOld: the installed APK with its changed entries inflated (dex
    // inflates to about twice its deflated size, so twice the installed APK is room enough).
    long need = total + e.size + SPACE_MARGIN + (format == 2 ? 2 * new File(installedPath).length() : 0);
    long usable = space.usableBytes();
    if (usable < need) {
      throw new Fallback("no-space", usable + " bytes free, " + need + " needed for the patch and the new APK");
    }
  }

  private boolean copy(InputStream in, String name, long have, long total, BooleanSupplier cancelled,
      LongConsumer received) throws IOException, Fallback {
    byte[] buf = new byte[64 * 1024];
    try (OutputStream out = storage.append(name)) {
      int n;
      while ((n = in.read(buf)) > 0) {
        received.accept(n);
        if (cancelled.getAsBoolean()) return false;
        if (have + n > total) throw new Fallback("patch-failed", "the patch is longer than its " + total + " bytes");
        out.write(buf, 0, n);
        have += n;
      }
    } catch (IOException io) {
      throw new Fallback("network", "patch download interrupted: " + io.getMessage());
    }
    if (have < total) throw new Fallback("network", "the patch download ended at " + have + " of " + total + " bytes");
    return true;
  }

  private void apply(VersionEvent e, String file, int format) throws IOException, Fallback {
    storage.removeFile(file);
    DeltaApplier.Applied a;
    try (InputStream patch = storage.readFile(patchName(e));
        OldFile old = OldFile.open(new File(installedPath));
        OutputStream out = storage.append(file)) {
      a = format == 2
          ? DeltaApplier.applyFileByFile(patch, old, out, e.size, new File(storage.location(dfOldName(e))), recompressor)
          : DeltaApplier.apply(patch, old, out, e.size);
    } catch (DeltaException refused) {
      throw new Fallback(refused.reason == Reason.WRONG_SIZE ? "mismatch" : "patch-failed", refused.getMessage());
    } catch (IOException io) {
      throw new Fallback("patch-failed", "applying the patch failed: " + io.getMessage());
    }
    String problem = a.size != e.size ? "size " + a.size + " instead of " + e.size
        : !a.md5.equals(e.md5) ? "MD5 mismatch"
        : !a.sha256.equals(e.sha256) ? "SHA-256 mismatch"
        : null;
    if (problem != null) throw new Fallback("mismatch", "the patched APK does not match the notice: " + problem);
  }

  private Map<String, Object> meta(VersionEvent e) throws IOException {
    Map<String, Object> m = storage.readObject(META_KEY);
    return m != null && e.sha256.equals(m.get("to")) ? m : null;
  }

  private static Long length(String header) {
    try {
      return header == null ? null : Long.valueOf(header.trim());
    } catch (NumberFormatException bad) {
      return null;
    }
  }
}
