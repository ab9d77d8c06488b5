package dev.apkrelay.client.core.delta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import dev.apkrelay.client.core.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * One of the delta contract's shared vector files (device-client/protocol/vectors/, written by
 * {@code npm run protocol:vectors} from the TS side's patch code), checked with one format's
 * applier: every good vector gives exactly its new bytes, MD5 and SHA-256; every bad one is refused
 * for the reason the vector names (one word, DeltaException.Reason's code). The TS applier runs the
 * same files, so both sides read each format alike.
 */
final class DeltaVectorFile {
  /** Applies `patch` to `old` into `out`, as the format's applier does on a device. */
  interface Applier {
    DeltaApplier.Applied apply(byte[] patch, byte[] old, ByteArrayOutputStream out) throws IOException;
  }

  /** Checked after each vector, good or bad (e.g. that no temporary file is left). */
  interface After {
    void check(String name);
  }

  /** How many good and bad vectors the file held, each one checked. */
  static final class Counts {
    int good;
    int bad;
  }

  private DeltaVectorFile() {}

  static byte[] b64(Object s) {
    return Base64.getDecoder().decode((String) s);
  }

  @SuppressWarnings("unchecked")
  static Counts check(Path file, String format, Applier applier, After after) throws IOException {
    if (!Files.isRegularFile(file)) {
      fail(file + " is missing: run npm run protocol:vectors (at the repository's root) to write it");
    }
    Map<String, Object> parsed = Json.parseObject(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
    assertEquals(format, parsed.get("format"));
    Counts counts = new Counts();
    for (Object o : (List<Object>) parsed.get("vectors")) {
      Map<String, Object> v = (Map<String, Object>) o;
      String name = (String) v.get("name");
      byte[] old = b64(v.get("old"));
      byte[] patch = b64(v.get("patch"));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      if (v.containsKey("error")) {
        DeltaException e = assertThrows(DeltaException.class, () -> applier.apply(patch, old, out),
            name + ": refused by the TS side (" + v.get("error") + ")");
        assertEquals(v.get("error"), e.reason.code, name + ": " + e.getMessage());
        counts.bad++;
      } else {
        DeltaApplier.Applied a = applier.apply(patch, old, out);
        assertArrayEquals(b64(v.get("new")), out.toByteArray(), name);
        assertEquals(v.get("newMd5"), a.md5, name);
        assertEquals(v.get("newSha256"), a.sha256, name);
        counts.good++;
      }
      after.check(name);
    }
    return counts;
  }
}
