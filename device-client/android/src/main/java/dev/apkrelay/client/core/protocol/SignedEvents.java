package dev.apkrelay.client.core.protocol;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The signed push events, as device-client/protocol/signed-notice.ts defines them for the server
 * and the TS client: Ed25519 over the canonical JSON of the event without its {@code signature}
 * member (keys sorted at every level), UTF-8 encoded; the shared vectors (ProtocolVectorsTest)
 * hold this class to the same bytes.
 * The event's shape is checked first; a malformed event is refused like a badly signed one.
 */
public final class SignedEvents {
  private SignedEvents() {}

  private static final Pattern MD5 = Pattern.compile("^[0-9a-f]{32}$");
  private static final Pattern SHA256 = Pattern.compile("^[0-9a-f]{64}$");

  /** The bytes the server signed: canonical JSON of {@code event} less {@code signature}. */
  public static byte[] signedBytes(Map<String, Object> event) {
    Map<String, Object> body = new LinkedHashMap<>(event);
    body.remove("signature");
    return Json.canonical(body).getBytes(StandardCharsets.UTF_8);
  }

  /** True when the event carries a string signature that {@code key} verifies. */
  public static boolean verify(PushKey key, Map<String, Object> event) {
    Object signature = event.get("signature");
    if (!(signature instanceof String)) return false;
    try {
      return key.verify(signedBytes(event), (String) signature);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** The event as a version notice when its shape is right (signature not checked), else null. */
  public static VersionEvent asVersion(Map<String, Object> e) {
    boolean ok = "version".equals(e.get("type"))
        && e.get("package") instanceof String
        && e.get("apkId") instanceof String
        && e.get("md5") instanceof String && MD5.matcher((String) e.get("md5")).matches()
        && e.get("sha256") instanceof String && SHA256.matcher((String) e.get("sha256")).matches()
        && e.get("versionCode") instanceof Number
        && e.get("size") instanceof Number
        && e.get("url") instanceof String
        && e.get("signature") instanceof String;
    if (!ok) return null;
    Long versionCode = Json.asLong(e.get("versionCode"));
    Long size = Json.asLong(e.get("size"));
    if (versionCode == null || size == null || size < 0) return null;
    Object name = e.get("versionName");
    Object issuedAt = e.get("issuedAt");
    return new VersionEvent(
        (String) e.get("package"),
        (String) e.get("apkId"),
        (String) e.get("md5"),
        (String) e.get("sha256"),
        versionCode,
        name instanceof String ? (String) name : null,
        size,
        (String) e.get("url"),
        issuedAt instanceof String ? (String) issuedAt : null);
  }

  /** The event as a give-up notice when its shape is right (signature not checked), else null. */
  public static GiveupEvent asGiveup(Map<String, Object> e) {
    boolean ok = "giveup".equals(e.get("type"))
        && e.get("package") instanceof String
        && e.get("apkId") instanceof String
        && e.get("signature") instanceof String;
    if (!ok) return null;
    Object md5 = e.get("md5");
    return new GiveupEvent(
        (String) e.get("package"), (String) e.get("apkId"), md5 instanceof String ? (String) md5 : null);
  }
}
