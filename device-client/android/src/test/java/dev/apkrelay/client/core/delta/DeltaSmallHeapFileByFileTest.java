package dev.apkrelay.client.core.delta;

import static dev.apkrelay.client.core.delta.DeltaSmallHeapTest.MIB;
import static dev.apkrelay.client.core.delta.DeltaSmallHeapTest.emit;
import static dev.apkrelay.client.core.delta.DeltaSmallHeapTest.extraAt;
import static dev.apkrelay.client.core.delta.DeltaSmallHeapTest.oldAt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.apkrelay.client.core.download.Downloader;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 37 item 3: a 16 MB heap applies an ARDELTA2 patch to a target of about 50 MB (run alone
 * at -Xmx16m by the "delta-small-heap" execution, as DeltaSmallHeapTest). Files made by rules
 * written here, as streams: old = 10 MiB of old bytes, a deflated entry of 20 MiB (text-like bytes,
 * level 6), 38 MiB of old bytes; new = the same with every 4096th byte of the entry + 1, deflated
 * again at level 6. The patch: one plan range each side and one record of diff bytes. The output
 * must hash like the new file deflated here with the JDK's Deflater (zlib 1.2.13).
 */
class DeltaSmallHeapFileByFileTest {
  static final long PREFIX = 10L * MIB;
  static final long ENTRY = 20L * MIB;
  static final long SUFFIX = 38L * MIB;

  @TempDir Path dir;

  /** Text-like: a pattern deflate shrinks, with a fresh byte every 64. */
  static byte entryAt(long i) {
    return i % 64 == 0 ? extraAt(i) : (byte) ('a' + (i * 7 + (i >>> 10)) % 26);
  }

  static byte changedAt(long i) {
    return (byte) (entryAt(i) + (i % 4096 == 0 ? 1 : 0));
  }

  /** Writes prefix, the entry deflated at level 6, suffix; answers the deflated entry's length. */
  static long apk(OutputStream out, DeltaSmallHeapTest.Bytes entry) throws IOException {
    emit(out, PREFIX, DeltaSmallHeapTest::oldAt);
    long[] deflated = {0};
    OutputStream counting = new OutputStream() {
      @Override public void write(int b) throws IOException { out.write(b); deflated[0]++; }
      @Override public void write(byte[] b, int off, int len) throws IOException { out.write(b, off, len); deflated[0] += len; }
    };
    Deflater d = new Deflater(6, true);
    DeflaterOutputStream z = new DeflaterOutputStream(counting, d, 64 * 1024);
    emit(z, ENTRY, entry);
    z.finish();
    d.end();
    emit(out, SUFFIX, i -> oldAt(PREFIX + ENTRY + i));
    return deflated[0];
  }

  @Test
  @EnabledIfSystemProperty(named = "apkrelay.smallHeap", matches = "true")
  void aSixteenMegabyteHeapAppliesAFileByFilePatchToAFiftyMegabyteTarget() throws Exception {
    long heap = DeltaSmallHeapTest.sixteenMegabyteHeap();
    Path old = dir.resolve("old.apk");
    long oldEntry;
    try (OutputStream out = new BufferedOutputStream(new FileOutputStream(old.toFile()))) {
      oldEntry = apk(out, DeltaSmallHeapFileByFileTest::entryAt);
    }
    MessageDigest expected = MessageDigest.getInstance("SHA-256");
    long newEntry;
    try (OutputStream sink = new DigestOutputStream(OutputStream.nullOutputStream(), expected)) {
      newEntry = apk(sink, DeltaSmallHeapFileByFileTest::changedAt);
    }
    long newSize = PREFIX + newEntry + SUFFIX;
    long dfSize = PREFIX + ENTRY + SUFFIX;
    Path patch = dir.resolve("patch");
    try (OutputStream out = new DeflaterOutputStream(new BufferedOutputStream(new FileOutputStream(patch.toFile())))) {
      out.write(PatchWriter.fileByFile(newSize, new long[][] {{PREFIX, oldEntry, ENTRY}},
          new long[][] {{PREFIX, ENTRY, 6, 0, 8, 15}}, dfSize).raw());
      out.write(PatchWriter.long64(dfSize));
      out.write(PatchWriter.long64(0));
      out.write(PatchWriter.long64(0));
      emit(out, dfSize, i -> (byte) (i >= PREFIX && i < PREFIX + ENTRY && (i - PREFIX) % 4096 == 0 ? 1 : 0));
    }

    Path made = dir.resolve("new.apk");
    Path dfOld = dir.resolve("df-old");
    DeltaApplier.Applied a;
    long ms;
    try (OldFile base = OldFile.open(old.toFile());
        InputStream in = new FileInputStream(patch.toFile());
        OutputStream out = new FileOutputStream(made.toFile())) {
      long started = System.nanoTime(); // the time a device spends: dfOld, records, recompression
      a = DeltaApplier.applyFileByFile(in, base, out, newSize, dfOld.toFile(), new JdkRecompressor());
      ms = (System.nanoTime() - started) / 1_000_000;
    }
    System.out.println("delta-small-heap: applied a " + Files.size(patch) + "-byte ARDELTA2 patch to a " + Files.size(old)
        + "-byte old file into " + newSize + " bytes in " + ms + " ms at max heap " + heap + " bytes");
    String want = Downloader.hex(expected.digest());
    assertEquals(newSize, a.size);
    assertEquals(newSize, Files.size(made));
    assertEquals(want, a.sha256);
    assertFalse(Files.exists(dfOld), "dfOld is deleted");
  }
}
