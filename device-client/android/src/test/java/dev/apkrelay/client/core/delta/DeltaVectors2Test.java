package dev.apkrelay.client.core.delta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.apkrelay.client.core.json.Json;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The delta contract's shared ARDELTA2 vectors (device-client/protocol/vectors/delta2-vectors.json,
 * written by the TS side's generator from pako-deflated ZIPs): every good vector applied here
 * gives exactly its new bytes, MD5 and SHA-256; every bad one is refused for the word it names.
 * Recompressed by the library's bundled deflater, as on a device.
 */
class DeltaVectors2Test {
  static final Path FILE = Paths.get("../protocol/vectors/delta2-vectors.json");

  @TempDir Path dir;

  @SuppressWarnings("unchecked")
  static List<Object> vectors() throws IOException {
    if (!Files.isRegularFile(FILE)) {
      fail(FILE + " is missing: the TS side writes it (npm run protocol:vectors at the repository's root)");
    }
    Map<String, Object> file = Json.parseObject(new String(Files.readAllBytes(FILE), StandardCharsets.UTF_8));
    assertEquals("ARDELTA2", file.get("format"));
    return (List<Object>) file.get("vectors");
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyVectorAppliesToItsBytesAndHashesOrIsRefused() throws IOException {
    Recompressor recompressor = Recompressors.bundled();
    File dfOld = dir.resolve("df-old").toFile();
    int good = 0;
    int bad = 0;
    for (Object o : vectors()) {
      Map<String, Object> v = (Map<String, Object>) o;
      String name = (String) v.get("name");
      byte[] old = DeltaVectorsTest.b64(v.get("old"));
      byte[] patch = DeltaVectorsTest.b64(v.get("patch"));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      if (v.containsKey("error")) {
        DeltaException e = assertThrows(DeltaException.class, () -> DeltaApplier.applyFileByFile(
            new ByteArrayInputStream(patch), new BytesOldFile(old), out, -1, dfOld, recompressor),
            name + ": refused by the TS side (" + v.get("error") + ")");
        assertEquals(v.get("error"), e.reason.code, name + ": " + e.getMessage());
        bad++;
      } else {
        DeltaApplier.Applied a = DeltaApplier.applyFileByFile(new ByteArrayInputStream(patch), new BytesOldFile(old), out,
            -1, dfOld, recompressor);
        assertArrayEquals(DeltaVectorsTest.b64(v.get("new")), out.toByteArray(), name);
        assertEquals(v.get("newMd5"), a.md5, name);
        assertEquals(v.get("newSha256"), a.sha256, name);
        good++;
      }
      assertFalse(dfOld.exists(), name + ": dfOld is deleted");
    }
    assertTrue(good >= 1, "good vectors: " + good);
    assertTrue(bad >= 1, "bad vectors: " + bad);
  }
}
