package dev.apkrelay.client.core.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.apkrelay.client.core.crypto.PushKey;
import dev.apkrelay.client.core.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The protocol layer's shared vectors (device-client/protocol/vectors/protocol-vectors.json,
 * written by ops/protocol/vectors.ts from the layer the server and the TS client import): the
 * Java core must write the same canonical JSON, sign-check the same bytes, and read and write the
 * PushLink lines' JSON alike. Change a byte of a vector and these fail.
 */
class ProtocolVectorsTest {
  @SuppressWarnings("unchecked")
  static <T> T section(String name) throws IOException {
    // Maven runs in device-client/android; the vectors live beside it in device-client/protocol.
    byte[] bytes = Files.readAllBytes(Paths.get("../protocol/vectors/protocol-vectors.json"));
    return (T) Json.parseObject(new String(bytes, StandardCharsets.UTF_8)).get(name);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    return (Map<String, Object>) o;
  }

  @Test
  void canonicalJsonWritesEveryOutput() throws IOException {
    List<Object> cases = section("canonicalJson");
    assertTrue(cases.size() >= 8, "cases: " + cases.size());
    for (Object o : cases) {
      Map<String, Object> c = map(o);
      assertEquals(c.get("output"), Json.canonical(Json.parse((String) c.get("input"))),
          (String) c.get("name"));
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void signedNoticesSignTheSameBytesAndVerify() throws IOException {
    Map<String, Object> v = section("signedNotices");
    PushKey key = PushKey.fromSpkiBase64((String) v.get("publicKey"));
    List<Object> cases = (List<Object>) v.get("cases");
    assertEquals(2, cases.size());
    for (Object o : cases) {
      Map<String, Object> c = map(o);
      Map<String, Object> notice = map(c.get("notice"));
      String name = (String) c.get("name");
      byte[] signed = ((String) c.get("signedText")).getBytes(StandardCharsets.UTF_8);
      assertEquals(new String(signed, StandardCharsets.UTF_8),
          new String(SignedEvents.signedBytes(notice), StandardCharsets.UTF_8), name);
      assertTrue(key.verify(signed, (String) c.get("signature")), name);
      assertTrue(SignedEvents.verify(key, notice), name);
      Map<String, Object> moved = new LinkedHashMap<>(notice);
      moved.put("device", "device-z");
      assertFalse(SignedEvents.verify(key, moved), name);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void pushlinkLinesAreTheSameJson() throws IOException {
    Map<String, Object> p = section("pushlink");
    for (Object o : (List<Object>) p.get("serverLines")) {
      Map<String, Object> l = map(o);
      String line = (String) l.get("line");
      assertEquals(line, Json.stringify(l.get("read")) + "\n", (String) l.get("name"));
      assertEquals(l.get("read"), Json.parse(line.substring(0, line.length() - 1)));
    }
    for (Object o : (List<Object>) p.get("subscribeLines")) {
      Map<String, Object> l = map(o);
      String line = (String) l.get("line");
      assertEquals(line, Json.stringify(l.get("fields")) + "\n", (String) l.get("name"));
      assertEquals(l.get("fields"), Json.parse(line.substring(0, line.length() - 1)));
    }
  }
}
