package dev.apkrelay.client.core.delta;

import static dev.apkrelay.client.core.delta.PatchWriter.ascii;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.apkrelay.client.core.delta.DeltaException.Reason;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ARDELTA1 applier against patches written by hand ({@link PatchWriter}): the bytes and
 * digests it makes (digests of the expected bytes from coreutils' md5sum and sha256sum, written
 * here as literals), and a named refusal for every rule of the delta contract.
 */
class DeltaApplierTest {
  static final byte[] OLD = ascii("ABCD");
  /** "ABDDxyab": "ABCD" with C + 1, the extra "xy", then "ab" added to positions -2 and -1 (zero). */
  static final String NEW_MD5 = "1abdf096c7fec4725a0bdfdce212880f";
  static final String NEW_SHA256 = "e8949034190f52e84bc38ad051a140ee2963c3f1b415b76f7f158523f9a8898f";

  @TempDir Path dir;

  static PatchWriter abddxyab() {
    return new PatchWriter(8)
        .record(new byte[] {0, 0, 1, 0}, ascii("xy"), -6) // old position 4 - 6 = -2
        .record(ascii("ab"), new byte[0], 0);
  }

  static ByteArrayOutputStream out = new ByteArrayOutputStream();

  static DeltaApplier.Applied apply(byte[] patch, byte[] old, long expectedSize) throws IOException {
    out = new ByteArrayOutputStream();
    return DeltaApplier.apply(new ByteArrayInputStream(patch), new BytesOldFile(old), out, expectedSize);
  }

  static Reason refusal(byte[] patch, long expectedSize) {
    return assertThrows(DeltaException.class, () -> apply(patch, OLD, expectedSize)).reason;
  }

  @Test
  void recordsAddToTheOldBytesCopyTheExtraAndSeekOutsideTheOldFileAsZeros() throws IOException {
    DeltaApplier.Applied a = apply(abddxyab().patch(), OLD, 8);
    assertEquals("ABDDxyab", new String(out.toByteArray(), java.nio.charset.StandardCharsets.ISO_8859_1));
    assertEquals(8, a.size);
    assertEquals(NEW_MD5, a.md5);
    assertEquals(NEW_SHA256, a.sha256);
  }

  @Test
  void theAdditionWrapsAtOneByte() throws IOException {
    apply(new PatchWriter(2).record(new byte[] {2, (byte) 0x80}, new byte[0], 0).patch(), new byte[] {(byte) 0xff, (byte) 0x80}, -1);
    assertArrayEquals(new byte[] {1, 0}, out.toByteArray());
  }

  @Test
  void anEmptyNewFileHasNoRecords() throws IOException {
    DeltaApplier.Applied a = apply(new PatchWriter(0).patch(), OLD, 0);
    assertEquals(0, out.size());
    assertEquals("d41d8cd98f00b204e9800998ecf8427e", a.md5);
    assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", a.sha256);
  }

  @Test
  void theOldFileIsReadFromDiskByPosition() throws IOException {
    Path old = dir.resolve("base.apk");
    Files.write(old, OLD);
    ByteArrayOutputStream written = new ByteArrayOutputStream();
    try (OldFile f = OldFile.open(old.toFile())) {
      assertEquals(NEW_SHA256, DeltaApplier.apply(new ByteArrayInputStream(abddxyab().patch()), f, written, 8).sha256);
    }
    assertEquals("ABDDxyab", new String(written.toByteArray(), java.nio.charset.StandardCharsets.ISO_8859_1));
  }

  @Test
  void aWrongMagicIsRefused() {
    assertEquals(Reason.BAD_MAGIC, refusal(new PatchWriter("ARDELTA2", 0).patch(), -1));
    assertEquals(Reason.BAD_MAGIC, refusal(PatchWriter.deflate(ascii("PK\3\4 a zip, not a patch")), -1));
  }

  @Test
  void aNewSizeOtherThanTheNoticesIsRefusedBeforeWriting() {
    assertEquals(Reason.WRONG_SIZE, refusal(abddxyab().patch(), 9));
    assertEquals(0, out.size());
  }

  @Test
  void aRecordWritingPastTheNewSizeIsRefused() {
    assertEquals(Reason.PAST_END, refusal(new PatchWriter(3).record(new byte[4], new byte[0], 0).patch(), -1));
    assertEquals(Reason.PAST_END, refusal(new PatchWriter(3).record(new byte[2], new byte[2], 0).patch(), -1));
    assertEquals(Reason.PAST_END, refusal(new PatchWriter(3).header(Long.MIN_VALUE, 0, 0).patch(), -1)); // 2^63
    assertEquals(Reason.PAST_END, refusal(new PatchWriter(3).header(1, -1, 0).patch(), -1));
    assertEquals(Reason.PAST_END, refusal(new PatchWriter(-1).patch(), -1)); // a new size of 2^64 - 1
  }

  @Test
  void aStreamEndingBeforeTheNewSizeIsRefused() {
    assertEquals(Reason.TRUNCATED, refusal(new PatchWriter(5).patch(), -1)); // no record at all
    assertEquals(Reason.TRUNCATED, refusal(new PatchWriter(5).record(new byte[2], new byte[0], 0).patch(), -1));
    assertEquals(Reason.TRUNCATED, refusal(new PatchWriter(5).header(5, 0, 0).bytes(new byte[3]).patch(), -1));
    assertEquals(Reason.TRUNCATED, refusal(new PatchWriter(5).bytes(new byte[10]).patch(), -1)); // half a header
    assertEquals(Reason.TRUNCATED, refusal(PatchWriter.deflate(ascii("ARDELTA1\0\0")), -1));
    assertEquals(Reason.TRUNCATED, refusal(PatchWriter.deflate(ascii("PK")), -1));
    byte[] whole = abddxyab().patch();
    assertEquals(Reason.TRUNCATED, refusal(Arrays.copyOf(whole, whole.length - 6), -1)); // zlib cut short
  }

  @Test
  void bytesAfterTheLastRecordOrAfterTheZlibStreamAreRefused() {
    assertEquals(Reason.TRAILING, refusal(abddxyab().bytes(new byte[1]).patch(), -1));
    assertEquals(Reason.TRAILING, refusal(abddxyab().record(new byte[0], new byte[0], 0).patch(), -1));
    byte[] whole = abddxyab().patch();
    byte[] longer = Arrays.copyOf(whole, whole.length + 1);
    assertEquals(Reason.TRAILING, refusal(longer, -1));
  }

  @Test
  void aCorruptZlibStreamIsRefused() {
    byte[] header = abddxyab().patch();
    header[0] = 0x79; // not a zlib header (CMF must be deflate, CMF/FLG a multiple of 31)
    assertEquals(Reason.CORRUPT, refusal(header, -1));
    byte[] adler = abddxyab().patch();
    adler[adler.length - 1] ^= 1; // the Adler-32 of the inflated bytes
    assertEquals(Reason.CORRUPT, refusal(adler, -1));
    assertEquals(Reason.CORRUPT, refusal(ascii("not zlib at all"), -1));
  }

  @Test
  void anOldPositionLeavingPlusOrMinus2Pow62IsRefused() throws IOException {
    long limit = 1L << 62;
    assertEquals(Reason.SEEK_RANGE, refusal(new PatchWriter(2).record(new byte[1], new byte[0], limit).patch(), -1));
    assertEquals(Reason.SEEK_RANGE, refusal(new PatchWriter(2).record(new byte[0], new byte[0], -limit - 1)
        .record(new byte[2], new byte[0], 0).patch(), -1));
    assertEquals(Reason.SEEK_RANGE, refusal(new PatchWriter(2).record(new byte[1], new byte[0], Long.MAX_VALUE).patch(), -1));
    assertEquals(Reason.SEEK_RANGE, refusal(new PatchWriter(2).record(new byte[0], new byte[0], -limit)
        .record(new byte[0], new byte[0], Long.MIN_VALUE).patch(), -1));
    // Reaching exactly 2^62 is still inside: the new bytes there count old zeros.
    apply(new PatchWriter(1).record(new byte[0], new byte[0], limit - 1).record(new byte[] {5}, new byte[0], 0).patch(), OLD, 1);
    assertArrayEquals(new byte[] {5}, out.toByteArray());
  }
}
