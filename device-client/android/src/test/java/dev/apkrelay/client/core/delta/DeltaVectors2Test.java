package dev.apkrelay.client.core.delta;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ARDELTA2 vectors (device-client/protocol/vectors/delta2-vectors.json, from pako-deflated
 * ZIPs): DeltaVectorFile, recompressed by the library's bundled deflater as on a device, and the
 * delta-friendly old file deleted after every vector.
 */
class DeltaVectors2Test {
  @TempDir Path dir;

  @Test
  void everyVectorAppliesToItsBytesAndHashesOrIsRefused() throws IOException {
    Recompressor recompressor = Recompressors.bundled();
    File dfOld = dir.resolve("df-old").toFile();
    DeltaVectorFile.Counts counts = DeltaVectorFile.check(Paths.get("../protocol/vectors/delta2-vectors.json"),
        "ARDELTA2",
        (patch, old, out) -> DeltaApplier.applyFileByFile(new ByteArrayInputStream(patch), new BytesOldFile(old), out,
            -1, dfOld, recompressor),
        name -> assertFalse(dfOld.exists(), name + ": dfOld is deleted"));
    assertTrue(counts.good >= 1, "good vectors: " + counts.good);
    assertTrue(counts.bad >= 1, "bad vectors: " + counts.bad);
  }
}
