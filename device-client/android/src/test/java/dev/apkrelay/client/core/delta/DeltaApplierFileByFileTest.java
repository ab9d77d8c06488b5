package dev.apkrelay.client.core.delta;

import static dev.apkrelay.client.core.delta.PatchWriter.ascii;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.apkrelay.client.core.delta.DeltaException.Reason;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ARDELTA2 applier (issue 37 item 3) against patches written by hand: the old file is "AB",
 * the raw deflate of "hello hello hello" at level 6 (bytes from Python's zlib 1.2.13, written here
 * as hex) and "CD"; dfNew is "AB" + "hello HELLO hello!" + "CD" with one new range, deflated again
 * by the JDK's zlib 1.2.13. The expected bytes and their MD5 and SHA-256 (md5sum, sha256sum) are
 * literals. Then a named refusal for every rule of the contract, and dfOld gone after each.
 */
class DeltaApplierFileByFileTest {
  static final byte[] HELLO3_L6 = hex("cb48cdc9c957c8409000"); // "hello hello hello", level 6
  static final byte[] OLD = cat(ascii("AB"), HELLO3_L6, ascii("CD"));
  /** "hello HELLO hello!" at level 6, strategy 0 (17 bytes), and at level 1, strategy 2 (20 bytes). */
  static final byte[] NEW_L6 = cat(ascii("AB"), hex("cb48cdc9c957f070f5f1f157c800b11501"), ascii("CD"));
  static final byte[] NEW_L1_HUFFMAN = cat(ascii("AB"), hex("cb48cdc9c957f070f5f1f157c848cdc9c9570400"), ascii("CD"));
  static final long[][] OLD_RANGES = {{2, 10, 17}};

  @TempDir Path dir;
  ByteArrayOutputStream out = new ByteArrayOutputStream();

  static byte[] hex(String h) {
    byte[] b = new BigInteger("01" + h, 16).toByteArray();
    return Arrays.copyOfRange(b, 1, b.length);
  }

  static byte[] cat(byte[]... parts) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (byte[] p : parts) b.writeBytes(p);
    return b.toByteArray();
  }

  /** The records turning dfOld (21 bytes) into dfNew (22): "hello" -> "HELLO", "!" inserted. */
  static PatchWriter helloRecords(PatchWriter w) {
    byte[] diff = new byte[19];
    for (int i = 8; i < 13; i++) diff[i] = (byte) ('H' - 'h');
    return w.record(diff, ascii("!"), 0).record(new byte[2], new byte[0], 0);
  }

  static PatchWriter hello(long newSize, long level, long strategy) {
    return helloRecords(PatchWriter.fileByFile(newSize, OLD_RANGES, new long[][] {{2, 18, level, strategy, 8, 15}}, 22));
  }

  File dfOld() {
    return dir.resolve("df-old").toFile();
  }

  DeltaApplier.Applied apply(byte[] patch, byte[] old, long expectedSize) throws IOException {
    out = new ByteArrayOutputStream();
    return DeltaApplier.applyFileByFile(new ByteArrayInputStream(patch), new BytesOldFile(old), out, expectedSize,
        dfOld(), new JdkRecompressor());
  }

  Reason refusal(byte[] patch) {
    return assertThrows(DeltaException.class, () -> apply(patch, OLD, -1)).reason;
  }

  Reason refusal(PatchWriter w) {
    return refusal(w.patch());
  }

  @AfterEach
  void dfOldIsGone() {
    assertFalse(dfOld().exists(), "dfOld is deleted on every path");
  }

  @Test
  void theChangedEntryIsInflatedPatchedAndDeflatedAgainWithItsSettings() throws IOException {
    DeltaApplier.Applied a = apply(hello(21, 6, 0).patch(), OLD, 21);
    assertArrayEquals(NEW_L6, out.toByteArray());
    assertEquals(21, a.size);
    assertEquals("8d99bbffe798ba40b31ebb333994a3e1", a.md5);
    assertEquals("c39e38c78dde859d21a5190c9cbec6757e587af7aab7e8af19ddaf8edff1de18", a.sha256);
    a = apply(hello(24, 1, 2).patch(), OLD, -1);
    assertArrayEquals(NEW_L1_HUFFMAN, out.toByteArray());
    assertEquals("7bf47d0b12830bd9be4bcff66b601614", a.md5);
    assertEquals("07cf052a97bcecb0e60c0f5b29bf67a9ecd3957b069fae9e98c5e2dc374e1416", a.sha256);
  }

  @Test
  void noRangesAtAllIsARecordPatchOfTheOldFile() throws IOException {
    apply(PatchWriter.fileByFile(3, new long[0][], new long[0][], 3).record(new byte[] {0, 1, 0}, new byte[0], 0)
        .patch(), OLD, 3);
    assertArrayEquals(ascii("AC\u00cb"), out.toByteArray());
  }

  @Test
  void anEmptyNewRangeIsAnEmptyDeflateStream() throws IOException {
    // zlib 1.2.13's raw deflate of nothing at level 6: 03 00.
    apply(PatchWriter.fileByFile(4, new long[0][], new long[][] {{1, 0, 6, 0, 8, 15}}, 2)
        .record(new byte[2], new byte[0], 0).patch(), OLD, 4);
    assertArrayEquals(new byte[] {'A', 3, 0, 'B'}, out.toByteArray());
  }

  @Test
  void anotherMagicOrAnotherSizeIsRefused() throws IOException {
    assertEquals(Reason.BAD_MAGIC, refusal(new PatchWriter(0)));
    assertEquals(Reason.BAD_MAGIC, assertThrows(DeltaException.class,
        () -> DeltaApplier.apply(new ByteArrayInputStream(hello(21, 6, 0).patch()), new BytesOldFile(OLD), out, -1)).reason);
    assertEquals(Reason.WRONG_SIZE, assertThrows(DeltaException.class, () -> apply(hello(21, 6, 0).patch(), OLD, 22)).reason);
    assertEquals(0, out.size(), "refused before anything is written");
    assertEquals(Reason.WRONG_SIZE, refusal(hello(20, 6, 0)), "the final file is longer than the new size");
    assertEquals(Reason.WRONG_SIZE, refusal(hello(22, 6, 0)), "the final file is shorter than the new size");
  }

  @Test
  void theRecordRulesAreARDELTA1s() {
    long[][] none = new long[0][];
    assertEquals(Reason.PAST_END, refusal(PatchWriter.fileByFile(3, none, none, 2).record(new byte[3], new byte[0], 0)));
    assertEquals(Reason.PAST_END, refusal(PatchWriter.fileByFile(3, none, none, -1)));
    assertEquals(Reason.TRUNCATED, refusal(PatchWriter.fileByFile(3, none, none, 3).record(new byte[2], new byte[0], 0)));
    assertEquals(Reason.TRUNCATED, refusal(new PatchWriter("ARDELTA2", 3).u32(1).bytes(new byte[10])));
    assertEquals(Reason.TRUNCATED, refusal(new PatchWriter("ARDELTA2", 3).u32(0).u32(0)));
    assertEquals(Reason.TRAILING, refusal(hello(21, 6, 0).bytes(new byte[1])));
    byte[] whole = hello(21, 6, 0).patch();
    assertEquals(Reason.TRAILING, refusal(Arrays.copyOf(whole, whole.length + 1)));
    whole[whole.length - 1] ^= 1;
    assertEquals(Reason.CORRUPT, refusal(whole));
    assertEquals(Reason.SEEK_RANGE, refusal(PatchWriter.fileByFile(1, none, none, 1)
        .record(new byte[0], new byte[0], 1L << 62).record(new byte[0], new byte[0], 1)));
  }

  static PatchWriter plan(long[][] old, long[][] nu, long dfNewSize) {
    return PatchWriter.fileByFile(21, old, nu, dfNewSize);
  }

  @Test
  void rangesOutOfOrderOverlappingOrOutsideTheirFileAreAPlanRefusal() {
    long[][] none = new long[0][];
    assertEquals(Reason.PLAN, refusal(new PatchWriter("ARDELTA2", 21).u32(65_536)));
    assertEquals(Reason.PLAN, refusal(new PatchWriter("ARDELTA2", 21).u32(0).u32(65_536)));
    assertEquals(Reason.PLAN, refusal(plan(new long[][] {{2, 13, 17}}, none, 22)), "past the old file's end");
    assertEquals(Reason.PLAN, refusal(plan(new long[][] {{-1, 1, 1}}, none, 22)), "an offset of 2^64 - 1");
    assertEquals(Reason.PLAN, refusal(plan(new long[][] {{2, 4, 1}, {5, 2, 1}}, none, 22)), "overlapping");
    assertEquals(Reason.PLAN, refusal(plan(new long[][] {{5, 2, 1}, {2, 2, 1}}, none, 22)), "descending");
    assertEquals(Reason.PLAN, refusal(plan(OLD_RANGES, new long[][] {{2, 18, 6, 0, 8, 15}}, 19)), "past dfNew");
    long[][] twoNew = {{2, 10, 6, 0, 8, 15}, {11, 2, 6, 0, 8, 15}};
    assertEquals(Reason.PLAN, refusal(plan(OLD_RANGES, twoNew, 22)), "new ranges overlapping");
    long[][] sameOffset = {{2, 0, 6, 0, 8, 15}, {2, 0, 6, 0, 8, 15}};
    assertEquals(Reason.PLAN, refusal(plan(OLD_RANGES, sameOffset, 22)), "new ranges not strictly ascending");
    long big = (1L << 31) + 1;
    assertEquals(Reason.PLAN, refusal(plan(new long[][] {{2, 10, big}}, none, 22)), "inflatedLength above 2^31");
    assertEquals(Reason.PLAN, refusal(plan(none, new long[][] {{0, big, 6, 0, 8, 15}}, big)), "inflatedLength above 2^31");
  }

  @Test
  void aDeflateSettingOutsideItsSetIsAPlanRefusal() {
    long[][][] bad = {{{2, 18, 0, 0, 8, 15}}, {{2, 18, 10, 0, 8, 15}}, {{2, 18, 6, 5, 8, 15}}, {{2, 18, 6, -1, 8, 15}},
        {{2, 18, 6, 0, 0, 15}}, {{2, 18, 6, 0, 10, 15}}, {{2, 18, 6, 0, 8, 8}}, {{2, 18, 6, 0, 8, 16}}};
    for (long[][] nu : bad) {
      assertEquals(Reason.PLAN, refusal(helloRecords(plan(OLD_RANGES, nu, 22))), Arrays.toString(nu[0]));
    }
  }

  @Test
  void anOldRangeThatDoesNotInflateExactlyAsAnnouncedIsAPlanRefusal() {
    long[][] nu = {{2, 18, 6, 0, 8, 15}};
    assertEquals(Reason.PLAN, refusal(helloRecords(plan(new long[][] {{2, 10, 16}}, nu, 22))), "more than announced");
    assertEquals(Reason.PLAN, refusal(helloRecords(plan(new long[][] {{2, 10, 18}}, nu, 22))), "fewer than announced");
    assertEquals(Reason.PLAN, refusal(helloRecords(plan(new long[][] {{2, 9, 17}}, nu, 22))), "ends inside the stream");
    assertEquals(Reason.PLAN, refusal(helloRecords(plan(new long[][] {{2, 11, 17}}, nu, 22))), "a byte after the stream");
    assertEquals(Reason.PLAN, refusal(helloRecords(plan(new long[][] {{0, 2, 17}}, nu, 22))), "not deflate data");
  }

  @Test
  void anOldRangeOfCorruptDeflateDataIsAPlanRefusal() {
    byte[] old = OLD.clone();
    old[2] = (byte) 0xff; // BTYPE 11: a reserved block type
    assertEquals(Reason.PLAN, assertThrows(DeltaException.class, () -> apply(hello(21, 6, 0).patch(), old, -1)).reason);
  }
}
