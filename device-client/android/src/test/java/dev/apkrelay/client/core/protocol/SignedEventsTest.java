package dev.apkrelay.client.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.json.Json;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Events signed by the server's own signer (shared/devices/push-signing.ts, signEvent with the key
 * derived from the master key "apkrelay android fixture master key, 32+ bytes long"), copied here
 * as literals: the Java side must accept exactly these bytes. The versionName carries a quote, a
 * non-ASCII letter, an astral character, a newline and a control character to pin escaping.
 */
public class SignedEventsTest {
  public static final String KEY = "MCowBQYDK2VwAyEAkCCKLGe7i4i8Go05/OH+3rkJIY6wbq5oqrurqN0UIxg=";
  public static final String VERSION = "{\"type\":\"version\",\"package\":\"dev.apkrelay.demo\",\"apkId\":\"6745a1b2c3d4e5f601234567\",\"md5\":\"0123456789abcdef0123456789abcdef\",\"sha256\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\",\"versionCode\":2,\"versionName\":\"Zwei \u2013 \\\"\u00fc\\\" / \ud83d\ude80\\n\\u0001\",\"size\":1048576,\"url\":\"https://push.example/download?package=dev.apkrelay.demo&apk=6745a1b2c3d4e5f601234567\",\"issuedAt\":\"2026-11-25T16:00:00.000Z\",\"signature\":\"FFI+9n7TYpjVXI5UfzfPzpb16Z5OEFK3wwvesg3gqF59RaO1QfwOQ37KaGEstykq4ZQllm7E7FCOZZsaa1iUDg==\"}";
  public static final String GIVEUP = "{\"type\":\"giveup\",\"package\":\"dev.apkrelay.demo\",\"apkId\":\"6745a1b2c3d4e5f601234567\",\"md5\":\"0123456789abcdef0123456789abcdef\",\"issuedAt\":\"2026-11-25T17:00:00.000Z\",\"signature\":\"YDhIXijTqCUr6BKk7o4LFUBYV7VCjAvi5iOj6Lc41oyHAGvmbsG+dty1TdYpoh/wo0tfIPhO+jox9+7jsAVCCg==\"}";

  @Test
  void acceptsTheServersSignedVersionAndGiveup() {
    PushKey key = PushKey.fromSpkiBase64(KEY);
    Map<String, Object> v = Json.parseObject(VERSION);
    assertTrue(SignedEvents.verify(key, v));
    VersionEvent e = SignedEvents.asVersion(v);
    assertNotNull(e);
    assertEquals(2, e.versionCode);
    assertEquals(1048576, e.size);
    assertEquals("Zwei \u2013 \"\u00fc\" / \ud83d\ude80\n\u0001", e.versionName);
    Map<String, Object> g = Json.parseObject(GIVEUP);
    assertTrue(SignedEvents.verify(key, g));
    assertEquals("6745a1b2c3d4e5f601234567", SignedEvents.asGiveup(g).apkId);
  }

  @Test
  void refusesATamperedEventOrAnotherKey() {
    PushKey key = PushKey.fromSpkiBase64(KEY);
    assertFalse(SignedEvents.verify(key, Json.parseObject(VERSION.replace("\"versionCode\":2", "\"versionCode\":3"))));
    assertFalse(SignedEvents.verify(key, Json.parseObject(VERSION.replace("\"size\":1048576,", "\"size\":1048576,\"x\":1,"))));
    assertFalse(SignedEvents.verify(key, Json.parseObject(VERSION.replace("FFI+", "FFJ+"))));
    assertFalse(SignedEvents.verify(key, Json.parseObject(VERSION.replace("\"signature\":\"FFI+9n7TYpjVXI5UfzfPzpb16Z5OEFK3wwvesg3gqF59RaO1QfwOQ37KaGEstykq4ZQllm7E7FCOZZsaa1iUDg==\"", "\"signature\":12"))));
    // RFC 8032 TEST 1's public key as SPKI (RFC 8410 prefix): a valid key that did not sign.
    PushKey other = PushKey.fromSpkiBase64("MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=");
    assertFalse(SignedEvents.verify(other, Json.parseObject(VERSION)));
  }

  @Test
  void keyOrderOfTheReceivedTextDoesNotMatter() {
    String reordered = "{\"signature\":\"YDhIXijTqCUr6BKk7o4LFUBYV7VCjAvi5iOj6Lc41oyHAGvmbsG+dty1TdYpoh/wo0tfIPhO+jox9+7jsAVCCg==\",\"issuedAt\":\"2026-11-25T17:00:00.000Z\",\"md5\":\"0123456789abcdef0123456789abcdef\",\"apkId\":\"6745a1b2c3d4e5f601234567\",\"package\":\"dev.apkrelay.demo\",\"type\":\"giveup\"}";
    assertTrue(SignedEvents.verify(PushKey.fromSpkiBase64(KEY), Json.parseObject(reordered)));
  }

  @Test
  void malformedEventsAndKeysAreRefused() {
    assertNull(SignedEvents.asVersion(Json.parseObject(VERSION.replace("\"md5\":\"0123", "\"md5\":\"X123"))));
    assertNull(SignedEvents.asVersion(Json.parseObject(VERSION.replace("\"versionCode\":2", "\"versionCode\":\"2\""))));
    assertNull(SignedEvents.asVersion(Json.parseObject(GIVEUP)));
    assertNull(SignedEvents.asGiveup(Json.parseObject(VERSION)));
    assertThrows(IllegalArgumentException.class, () -> PushKey.fromSpkiBase64("AAAA"));
    assertThrows(IllegalArgumentException.class, () -> PushKey.fromSpkiBase64("not base64!"));
  }
}
