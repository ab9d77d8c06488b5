package dev.apkrelay.client.core.delta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.apkrelay.client.core.download.Downloader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * ARDELTA2 over a small real ZIP pair, built here with java.util.zip (the JDK's zlib 1.2.13) at a
 * few levels and strategies: a stored entry, a deflated entry that changes and one that does not.
 * The patch is made the way the contract says the server makes it (the changed entry's range in
 * both files, found through the central directory, inflated; records from dfOld to dfNew), and
 * applying it must give the new ZIP's exact bytes, as ZipOutputStream wrote them.
 */
class DeltaApplierZipTest {
  @TempDir Path dir;

  static byte[] dex(int version) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 400; i++) {
      s.append("class C").append(i).append(" { int f() { return ").append(i).append("; } } // v").append(i % 17 == 0 ? version : 0)
          .append('\n'); // a change of the same length: the diff is mostly zeros, as between releases
    }
    return s.toString().getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Every entry's time, fixed: ZipOutputStream stamps the current time (2 s steps) otherwise, and
   * the test builds the new ZIP twice, which then differed when a step passed between them.
   */
  static final long ENTRY_TIME = 1_700_000_000_000L;

  static ZipEntry entryAt(String name) {
    ZipEntry e = new ZipEntry(name);
    e.setTime(ENTRY_TIME);
    return e;
  }

  static byte[] zip(int version, int level, int strategy) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ZipOutputStream z = new ZipOutputStream(bytes) {
      {
        def.setStrategy(strategy);
      }
    }) {
      z.setLevel(level);
      byte[] stored = ("resources, version " + version).getBytes(StandardCharsets.US_ASCII);
      ZipEntry s = entryAt("resources.arsc");
      s.setMethod(ZipEntry.STORED);
      s.setSize(stored.length);
      CRC32 crc = new CRC32();
      crc.update(stored);
      s.setCrc(crc.getValue());
      z.putNextEntry(s);
      z.write(stored);
      z.putNextEntry(entryAt("classes.dex"));
      z.write(dex(version));
      z.putNextEntry(entryAt("assets/same.txt"));
      z.write("the same in both versions, the same in both versions".getBytes(StandardCharsets.US_ASCII));
    }
    return bytes.toByteArray();
  }

  /** {data offset, compressed size} of the entry named, from the central directory. */
  static long[] entry(byte[] zip, String name) {
    ByteBuffer b = ByteBuffer.wrap(zip).order(ByteOrder.LITTLE_ENDIAN);
    int eocd = zip.length - 22; // no archive comment
    int count = b.getShort(eocd + 10) & 0xffff;
    int at = b.getInt(eocd + 16);
    for (int i = 0; i < count; i++) {
      int nameLen = b.getShort(at + 28) & 0xffff;
      int skip = nameLen + (b.getShort(at + 30) & 0xffff) + (b.getShort(at + 32) & 0xffff);
      String n = new String(zip, at + 46, nameLen, StandardCharsets.UTF_8);
      if (n.equals(name)) {
        int local = b.getInt(at + 42);
        int data = local + 30 + (b.getShort(local + 26) & 0xffff) + (b.getShort(local + 28) & 0xffff);
        return new long[] {data, b.getInt(at + 20) & 0xffffffffL};
      }
      at += 46 + skip;
    }
    throw new AssertionError(name + " is not in the ZIP");
  }

  static byte[] friendly(byte[] zip, long[] range, byte[] inflated) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.write(zip, 0, (int) range[0]);
    b.writeBytes(inflated);
    int end = (int) (range[0] + range[1]);
    b.write(zip, end, zip.length - end);
    return b.toByteArray();
  }

  /** The ARDELTA2 patch from {@code zip(1, ...)} to {@code zip(2, ...)}, made as the server makes it. */
  static byte[] patch(int level, int strategy) throws IOException {
    byte[] oldZip = zip(1, level, strategy);
    byte[] newZip = zip(2, level, strategy);
    long[] oldRange = entry(oldZip, "classes.dex");
    long[] newRange = entry(newZip, "classes.dex");
    byte[] dfOld = friendly(oldZip, oldRange, dex(1));
    byte[] dfNew = friendly(newZip, newRange, dex(2));
    int common = Math.min(dfOld.length, dfNew.length);
    byte[] diff = new byte[common];
    for (int i = 0; i < common; i++) diff[i] = (byte) (dfNew[i] - dfOld[i]);
    byte[] extra = java.util.Arrays.copyOfRange(dfNew, common, dfNew.length);
    return PatchWriter.fileByFile(newZip.length,
        new long[][] {{oldRange[0], oldRange[1], dex(1).length}},
        new long[][] {{newRange[0], dex(2).length, level, strategy, 8, 15}}, dfNew.length)
        .record(diff, extra, 0).patch();
  }

  @ParameterizedTest(name = "level {0}, strategy {1}")
  @CsvSource({"1,0", "6,0", "9,0", "6,1", "2,2", "9,1"})
  void aChangedDeflatedEntryIsPatchedFileByFileToTheNewZipsExactBytes(int level, int strategy) throws Exception {
    byte[] oldZip = zip(1, level, strategy);
    byte[] newZip = zip(2, level, strategy);
    byte[] patch = patch(level, strategy);

    File scratch = dir.resolve("df-old").toFile();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DeltaApplier.Applied a = DeltaApplier.applyFileByFile(new ByteArrayInputStream(patch), new BytesOldFile(oldZip), out,
        newZip.length, scratch, new JdkRecompressor());
    assertArrayEquals(newZip, out.toByteArray());
    assertEquals(Downloader.hex(MessageDigest.getInstance("MD5").digest(newZip)), a.md5);
    assertEquals(Downloader.hex(MessageDigest.getInstance("SHA-256").digest(newZip)), a.sha256);
    assertFalse(scratch.exists());
  }
}
