package dev.apkrelay.client.core.delta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.apkrelay.client.core.json.Json;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The delta contract's shared vectors (device-client/protocol/vectors/delta-vectors.json, written
 * by {@code npm run protocol:vectors} from the TS side's patch code): every good vector applied
 * here gives exactly its new bytes, MD5 and SHA-256; every bad one is refused for the reason
 * the vector names (one word, DeltaException.Reason's code). The TS applier runs the same file,
 * so both sides read ARDELTA1 alike.
 */
class DeltaVectorsTest {
  static final Path FILE = Paths.get("../protocol/vectors/delta-vectors.json");

  @SuppressWarnings("unchecked")
  static List<Object> vectors() throws IOException {
    if (!Files.isRegularFile(FILE)) {
      fail(FILE + " is missing: run npm run protocol:vectors (at the repository's root) to write it");
    }
    Map<String, Object> file = Json.parseObject(new String(Files.readAllBytes(FILE), StandardCharsets.UTF_8));
    assertEquals("ARDELTA1", file.get("format"));
    return (List<Object>) file.get("vectors");
  }

  static byte[] b64(Object s) {
    return Base64.getDecoder().decode((String) s);
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyVectorAppliesToItsBytesAndHashesOrIsRefused() throws IOException {
    int good = 0;
    int bad = 0;
    for (Object o : vectors()) {
      Map<String, Object> v = (Map<String, Object>) o;
      String name = (String) v.get("name");
      byte[] old = b64(v.get("old"));
      byte[] patch = b64(v.get("patch"));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      if (v.containsKey("error")) {
        DeltaException e = assertThrows(DeltaException.class,
            () -> DeltaApplier.apply(new ByteArrayInputStream(patch), new BytesOldFile(old), out, -1),
            name + ": refused by the TS side (" + v.get("error") + ")");
        assertEquals(v.get("error"), e.reason.code, name + ": " + e.getMessage());
        bad++;
        continue;
      }
      DeltaApplier.Applied a = DeltaApplier.apply(new ByteArrayInputStream(patch), new BytesOldFile(old), out, -1);
      assertArrayEquals(b64(v.get("new")), out.toByteArray(), name);
      assertEquals(v.get("newMd5"), a.md5, name);
      assertEquals(v.get("newSha256"), a.sha256, name);
      good++;
    }
    // The contract's list: six good cases (identical, one byte, insertion, shorter, longer,
    // empty) and five bad ones (magic, truncated, trailing, past the end, corrupt zlib).
    assertTrue(good >= 6, "good vectors: " + good);
    assertTrue(bad >= 5, "bad vectors: " + bad);
  }
}
