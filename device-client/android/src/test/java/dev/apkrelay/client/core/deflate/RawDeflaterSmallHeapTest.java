package dev.apkrelay.client.core.deflate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.security.MessageDigest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The bundled deflater in a 16 MB heap (issue 37: a device recompresses a 10 MB classes.dex):
 * 10 MiB of the "mixed" test input, generated and written in 64 KB pieces, deflated at level 9,
 * memLevel 9 and at the default level 6, memLevel 8, hashed as written. The expected SHA-256 are
 * Python's zlib 1.2.13 output for the same input (ops/protocol/deflate-vectors.py's generator:
 * make("mixed", 21, 10 << 20) through zlib_raw). Runs with DeltaSmallHeapTest in the
 * delta-small-heap execution (-Xmx16m); skipped elsewhere. Prints the time of each.
 */
class RawDeflaterSmallHeapTest {
  private static final int SIZE = 10 << 20;

  @Test
  @EnabledIfSystemProperty(named = "apkrelay.smallHeap", matches = "true")
  void tenMebibytesDeflateInASixteenMegabyteHeap() throws Exception {
    long heap = Runtime.getRuntime().maxMemory();
    assertTrue(heap <= 17L << 20, "this test must run at -Xmx16m; max heap " + heap);
    assertEquals(
        "ab80589900751d021041581d074422725d1f145860ac641d1d351084f5a34195", deflated(9, 9));
    assertEquals(
        "ad828e8d1df9c7f77b621181ecf004ceb7a277e4631b5851814d66450374cd20", deflated(6, 8));
  }

  private static String deflated(int level, int memLevel) throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    OutputStream hashing =
        new OutputStream() {
          @Override
          public void write(int b) {
            sha.update((byte) b);
          }

          @Override
          public void write(byte[] b, int off, int len) {
            sha.update(b, off, len);
          }
        };
    long t0 = System.nanoTime();
    try (RawDeflaterStream z = new RawDeflaterStream(hashing, level, 0, memLevel, 15)) {
      TestInputs.mixedPieces(21, SIZE, (piece, n) -> z.write(piece, 0, n));
    }
    System.out.printf(
        "deflater-small-heap: 10 MiB at level %d, memLevel %d in %d ms%n",
        level, memLevel, (System.nanoTime() - t0) / 1_000_000);
    return RawDeflaterVectorsTest.hex(sha.digest());
  }
}
