package dev.apkrelay.client.core.delta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.apkrelay.client.core.download.Downloader;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.zip.DeflaterOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 37: a 16 MB heap applies a patch to a 50 MB target. Surefire runs this class alone in a
 * JVM started with -Xmx16m (the "delta-small-heap" execution in pom.xml; the main run excludes
 * it; elsewhere it is skipped), and the test refuses to count at a larger heap. The old file (52 MiB), the patch and the
 * expected new file are generated as streams by rules written here (no diffing, no whole file in
 * memory): new = old[0, 20 MiB) with every 4096th byte + 1, then 2 MiB of fresh bytes, then
 * old[22 MiB, 52 MiB) with every 10,000th byte + 7. The output must hash like that.
 */
class DeltaSmallHeapTest {
  static final int MIB = 1 << 20;
  static final long OLD_SIZE = 52L * MIB;
  static final long NEW_SIZE = 52L * MIB;

  @TempDir Path dir;

  static byte oldAt(long p) {
    return (byte) ((p * 0x9E3779B97F4A7C15L) >>> 56);
  }

  /** SplitMix64's finaliser: bytes that do not compress, as an APK's new code does not. */
  static byte extraAt(long j) {
    long z = j * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return (byte) (z ^ (z >>> 31));
  }

  static byte diffFirst(long i) {
    return (byte) (i % 4096 == 0 ? 1 : 0);
  }

  static byte diffSecond(long i) {
    return (byte) (i % 10_000 == 0 ? 7 : 0);
  }

  interface Bytes {
    byte at(long i);
  }

  static void emit(OutputStream out, long n, Bytes bytes) throws IOException {
    byte[] buf = new byte[64 * 1024];
    for (long done = 0; done < n; ) {
      int k = (int) Math.min(buf.length, n - done);
      for (int i = 0; i < k; i++) buf[i] = bytes.at(done + i);
      out.write(buf, 0, k);
      done += k;
    }
  }

  /** The max heap, refused when above 16 MB: the figure counts only at -Xmx16m. */
  static long sixteenMegabyteHeap() {
    long heap = Runtime.getRuntime().maxMemory();
    assertTrue(heap <= 17L * MIB, "this test must run at -Xmx16m (a delta-small-heap execution); max heap " + heap);
    return heap;
  }

  @Test
  @EnabledIfSystemProperty(named = "apkrelay.smallHeap", matches = "true")
  void aSixteenMegabyteHeapAppliesAFiftyMegabyteTarget() throws Exception {
    long heap = sixteenMegabyteHeap();
    Path old = dir.resolve("old.apk");
    try (OutputStream out = new BufferedOutputStream(new FileOutputStream(old.toFile()))) {
      emit(out, OLD_SIZE, DeltaSmallHeapTest::oldAt);
    }
    Path patch = dir.resolve("patch");
    long first = 20L * MIB;
    long extra = 2L * MIB;
    long second = 30L * MIB;
    try (OutputStream out = new DeflaterOutputStream(new BufferedOutputStream(new FileOutputStream(patch.toFile())))) {
      out.write(PatchWriter.ascii("ARDELTA1"));
      out.write(PatchWriter.long64(NEW_SIZE));
      out.write(PatchWriter.long64(first));
      out.write(PatchWriter.long64(extra));
      out.write(PatchWriter.long64(2L * MIB)); // skip old[20, 22 MiB)
      emit(out, first, DeltaSmallHeapTest::diffFirst);
      emit(out, extra, DeltaSmallHeapTest::extraAt);
      out.write(PatchWriter.long64(second));
      out.write(PatchWriter.long64(0));
      out.write(PatchWriter.long64(0));
      emit(out, second, DeltaSmallHeapTest::diffSecond);
    }
    MessageDigest expected = MessageDigest.getInstance("SHA-256");
    try (OutputStream sink = new java.security.DigestOutputStream(OutputStream.nullOutputStream(), expected)) {
      emit(sink, first, i -> (byte) (oldAt(i) + diffFirst(i)));
      emit(sink, extra, DeltaSmallHeapTest::extraAt);
      emit(sink, second, i -> (byte) (oldAt(22L * MIB + i) + diffSecond(i)));
    }

    Path made = dir.resolve("new.apk");
    long started = System.nanoTime();
    DeltaApplier.Applied a;
    try (InputStream in = new FileInputStream(patch.toFile());
        OldFile base = OldFile.open(old.toFile());
        OutputStream out = new FileOutputStream(made.toFile())) {
      a = DeltaApplier.apply(in, base, out, NEW_SIZE);
    }
    long ms = (System.nanoTime() - started) / 1_000_000;
    System.out.println("delta-small-heap: applied a " + Files.size(patch) + "-byte patch to a " + OLD_SIZE
        + "-byte old file into " + NEW_SIZE + " bytes in " + ms + " ms at max heap " + heap + " bytes");
    assertEquals(NEW_SIZE, a.size);
    assertEquals(NEW_SIZE, Files.size(made));
    String want = Downloader.hex(expected.digest());
    assertEquals(want, a.sha256);
    MessageDigest written = MessageDigest.getInstance("SHA-256");
    try (InputStream in = new java.security.DigestInputStream(new FileInputStream(made.toFile()), written)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    assertEquals(want, Downloader.hex(written.digest()), "the file on disk");
  }
}
