package dev.apkrelay.client.core.update;

import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Storage;
import java.io.IOException;
import java.util.Map;

/**
 * How the pending update came (the delta contract's {@code lastInstall.download}): {@code via}
 * delta or full, the bytes received for it over every attempt, patch and full download together,
 * and why a tried delta fell back. Kept in storage with the update's MD5, so a restart neither
 * loses the count nor tries a failed delta again; the install outcome carries it.
 */
public final class DownloadRecord {
  static final String KEY = "update-download";
  /** The contract's bound on {@code fallback.message}. */
  static final int MAX_MESSAGE = 300;

  private final String md5;
  private String via = "full";
  private long bytes;
  private String reason;
  private String message;
  /** Whether a delta may still be tried for this update. */
  private boolean deltaOpen = true;

  private DownloadRecord(String md5) {
    this.md5 = md5;
  }

  /** The record of the update with this MD5; a fresh one when the stored one is of another. */
  public static DownloadRecord load(Storage storage, String md5) throws IOException {
    DownloadRecord r = new DownloadRecord(md5);
    Map<String, Object> o = storage.readObject(KEY);
    if (o == null || !md5.equals(o.get("md5"))) return r;
    r.via = "delta".equals(o.get("via")) ? "delta" : "full";
    Long b = Json.asLong(o.get("bytes"));
    r.bytes = b == null ? 0 : b;
    r.reason = (String) o.get("reason");
    r.message = (String) o.get("message");
    r.deltaOpen = Boolean.TRUE.equals(o.get("deltaOpen"));
    return r;
  }

  /** The heartbeat's {@code download} for the update with this MD5, or null when none was recorded. */
  static Map<String, Object> report(Storage storage, String md5) throws IOException {
    Map<String, Object> o = storage.readObject(KEY);
    if (o == null || !md5.equals(o.get("md5"))) return null;
    DownloadRecord r = load(storage, md5);
    return Json.object("via", r.via, "bytes", r.bytes,
        "fallback", r.reason == null ? null : Json.object("reason", r.reason, "message", r.message));
  }

  public boolean deltaOpen() {
    return deltaOpen;
  }

  public synchronized void received(long n) {
    bytes += n;
  }

  /** No delta will be tried (none can be: the installed APK is unknown). */
  public void noDelta() {
    deltaOpen = false;
  }

  /** The whole APK is downloaded (again): the update comes as a full download. */
  public void wholeApk() {
    via = "full";
  }

  /** The patch applied and matched the signed notice. */
  public void viaDelta() {
    via = "delta";
    deltaOpen = false;
  }

  /** A delta was tried and failed: the full download follows. */
  public void fellBack(String reason, String message) {
    this.reason = reason;
    String m = String.valueOf(message);
    int cut = m.length() <= MAX_MESSAGE ? m.length()
        : Character.isHighSurrogate(m.charAt(MAX_MESSAGE - 1)) ? MAX_MESSAGE - 1 : MAX_MESSAGE;
    this.message = m.substring(0, cut);
    via = "full";
    deltaOpen = false;
  }

  public synchronized void save(Storage storage) throws IOException {
    storage.write(KEY, Json.stringify(Json.object("md5", md5, "via", via, "bytes", bytes, "reason", reason,
        "message", message, "deltaOpen", deltaOpen)));
  }
}
