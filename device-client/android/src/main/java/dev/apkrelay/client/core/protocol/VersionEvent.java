package dev.apkrelay.client.core.protocol;

import dev.apkrelay.client.core.json.Json;
import java.util.Map;

/** A verified {@code version} notice: the APK to download, its hashes, size and URL. */
public final class VersionEvent {
  public final String packageName;
  public final String apkId;
  public final String md5;
  public final String sha256;
  public final long versionCode;
  /** Nullable. */
  public final String versionName;
  public final long size;
  public final String url;
  /** Nullable. */
  public final String issuedAt;

  public VersionEvent(String packageName, String apkId, String md5, String sha256, long versionCode,
      String versionName, long size, String url, String issuedAt) {
    this.packageName = packageName;
    this.apkId = apkId;
    this.md5 = md5;
    this.sha256 = sha256;
    this.versionCode = versionCode;
    this.versionName = versionName;
    this.size = size;
    this.url = url;
    this.issuedAt = issuedAt;
  }

  /** For the persisted pending-update record (not for signature checks). */
  public Map<String, Object> toJson() {
    return Json.object("type", "version", "package", packageName, "apkId", apkId, "md5", md5,
        "sha256", sha256, "versionCode", versionCode, "versionName", versionName, "size", size,
        "url", url, "issuedAt", issuedAt);
  }

  /** Reads back {@link #toJson()} output; null when it is not one. */
  public static VersionEvent fromJson(Map<String, Object> m) {
    Map<String, Object> withSignature = new java.util.LinkedHashMap<>(m);
    withSignature.put("signature", "");
    return SignedEvents.asVersion(withSignature);
  }
}
