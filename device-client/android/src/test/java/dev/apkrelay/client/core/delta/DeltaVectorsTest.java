package dev.apkrelay.client.core.delta;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** The ARDELTA1 vectors (device-client/protocol/vectors/delta-vectors.json): DeltaVectorFile. */
class DeltaVectorsTest {
  @Test
  void everyVectorAppliesToItsBytesAndHashesOrIsRefused() throws IOException {
    DeltaVectorFile.Counts counts = DeltaVectorFile.check(Paths.get("../protocol/vectors/delta-vectors.json"),
        "ARDELTA1",
        (patch, old, out) -> DeltaApplier.apply(new ByteArrayInputStream(patch), new BytesOldFile(old), out, -1),
        name -> {});
    // The contract's list: six good cases (identical, one byte, insertion, shorter, longer,
    // empty) and five bad ones (magic, truncated, trailing, past the end, corrupt zlib).
    assertTrue(counts.good >= 6, "good vectors: " + counts.good);
    assertTrue(counts.bad >= 5, "bad vectors: " + counts.bad);
  }
}
