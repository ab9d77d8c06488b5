package dev.apkrelay.client.core.delta;

import dev.apkrelay.client.core.delta.DeltaException.Reason;
import dev.apkrelay.client.core.download.Downloader;
import dev.apkrelay.client.core.json.Json;
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
 */
public final class DeltaFetch {
  /** Room kept free beyond the patch and the new APK. */
  public static final long SPACE_MARGIN = 8L * 1024 * 1024;
  static final String META_KEY = "delta-patch";
  private static final Pattern CONTENT_RANGE = Pattern.compile("^bytes (\\d+)-\\d+/(\\d+)$");

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

  public DeltaFetch(HttpTransport transport, Storage storage, DiskSpace space, String installedPath,
      String installedMd5, String apiKey, String deviceId) {
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

  /**
   * @param file the update's file: the patched APK is written there, and is there only when APPLIED
   * @param received told each count of body bytes read from the network
   */
  public Result attempt(VersionEvent e, String file, BooleanSupplier cancelled, LongConsumer received)
      throws IOException {
    try {
      if (!fetchPatch(e, cancelled, received)) return Result.CANCELLED;
      apply(e, file);
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

  /** The whole patch in {@link #patchName}; false when cancelled (the part is kept). */
  private boolean fetchPatch(VersionEvent e, BooleanSupplier cancelled, LongConsumer received)
      throws IOException, Fallback {
    String name = patchName(e);
    Map<String, Object> meta = meta(e);
    long have = meta == null ? 0 : storage.fileSize(name);
    Long total = meta == null ? null : Json.asLong(meta.get("size"));
    if (meta == null) storage.removeFile(name);
    if (total != null && have == total) return true;
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("accept", "application/vnd.apkrelay.delta");
    if (have > 0 && meta.get("etag") != null) {
      headers.put("range", "bytes=" + have + "-");
      headers.put("if-range", (String) meta.get("etag"));
    }
    String url = Downloader.deltaUrl(e.url, apiKey, deviceId, installedMd5, e.sha256);
    HttpStream res;
    try {
      res = transport.open(new HttpRequest("GET", url, headers, null));
    } catch (IOException io) {
      throw new Fallback("network", "patch request failed: " + io.getMessage());
    }
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
      checkHeaders(e, res, total);
      storage.write(META_KEY, Json.stringify(Json.object("to", e.sha256, "etag", res.header("etag"), "size", total)));
      return copy(res.body(), name, have, total, cancelled, received);
    } finally {
      res.close();
    }
  }

  private void checkHeaders(VersionEvent e, HttpStream res, Long total) throws Fallback {
    String to = res.header("x-apkrelay-delta-to");
    String from = res.header("x-apkrelay-delta-from");
    if ((to != null && !to.equalsIgnoreCase(e.sha256)) || (from != null && !from.equalsIgnoreCase(installedMd5))) {
      throw new Fallback("patch-failed", "the server sent a patch from " + from + " to " + to);
    }
    if (total == null) throw new Fallback("patch-failed", "the patch has no length");
    if (total >= e.size) {
      throw new Fallback("patch-failed", "the patch (" + total + " bytes) is not smaller than the APK (" + e.size + " bytes)");
    }
    long need = total + e.size + SPACE_MARGIN;
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

  private void apply(VersionEvent e, String file) throws IOException, Fallback {
    storage.removeFile(file);
    DeltaApplier.Applied a;
    try (InputStream patch = storage.readFile(patchName(e));
        OldFile old = OldFile.open(new File(installedPath));
        OutputStream out = storage.append(file)) {
      a = DeltaApplier.apply(patch, old, out, e.size);
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
