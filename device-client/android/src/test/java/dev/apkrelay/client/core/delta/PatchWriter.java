package dev.apkrelay.client.core.delta;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.DeflaterOutputStream;

/**
 * Test-only ARDELTA1 and ARDELTA2 writer: the records are given by hand (no diffing), written as
 * the delta contract lays them out (magic, new size, then diffLen, extraLen, seek as 64-bit
 * big-endian and the bytes; ARDELTA2's plan between the new size and the records, see
 * {@link #fileByFile}), so each test states exactly which patch it feeds the applier.
 * {@link #raw()} is the inflated form, to break on purpose; {@link #deflate} wraps any bytes in zlib.
 */
public final class PatchWriter {
  private final ByteArrayOutputStream raw = new ByteArrayOutputStream();

  public PatchWriter(long newSize) {
    this("ARDELTA1", newSize);
  }

  PatchWriter(String magic, long newSize) {
    raw.writeBytes(magic.getBytes(StandardCharsets.US_ASCII));
    raw.writeBytes(long64(newSize));
  }

  /**
   * An ARDELTA2 head: {@code old} rows are {offset, length, inflatedLength}; {@code nu} rows are
   * {offset, inflatedLength, level, strategy, memLevel, windowBits}; then the records follow.
   */
  public static PatchWriter fileByFile(long newSize, long[][] old, long[][] nu, long dfNewSize) {
    PatchWriter w = new PatchWriter("ARDELTA2", newSize).u32(old.length);
    for (long[] r : old) w.bytes(long64(r[0])).bytes(long64(r[1])).bytes(long64(r[2]));
    w.u32(nu.length);
    for (long[] r : nu) {
      w.bytes(long64(r[0])).bytes(long64(r[1]));
      w.bytes(new byte[] {(byte) r[2], (byte) r[3], (byte) r[4], (byte) r[5]});
    }
    return w.bytes(long64(dfNewSize));
  }

  PatchWriter u32(long v) {
    return bytes(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
  }

  public PatchWriter record(byte[] diff, byte[] extra, long seek) {
    return header(diff.length, extra.length, seek).bytes(diff).bytes(extra);
  }

  /** A record header alone (its lengths may lie about what follows). */
  PatchWriter header(long diffLen, long extraLen, long seek) {
    raw.writeBytes(long64(diffLen));
    raw.writeBytes(long64(extraLen));
    raw.writeBytes(long64(seek));
    return this;
  }

  PatchWriter bytes(byte[] b) {
    raw.writeBytes(b);
    return this;
  }

  byte[] raw() {
    return raw.toByteArray();
  }

  public byte[] patch() {
    return deflate(raw());
  }

  static byte[] deflate(byte[] inflated) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (OutputStream z = new DeflaterOutputStream(out)) {
      z.write(inflated);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  static byte[] long64(long v) {
    byte[] b = new byte[8];
    for (int i = 7; i >= 0; i--) {
      b[i] = (byte) v;
      v >>>= 8;
    }
    return b;
  }

  public static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }
}
