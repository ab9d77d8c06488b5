package dev.apkrelay.client.core.delta;

import dev.apkrelay.client.core.delta.DeltaException.Reason;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import java.util.zip.ZipException;

/**
 * Applies a patch of the delta contract (issue 37: one zlib stream holding a magic, the new size
 * and bsdiff {@link Records}) in bounded memory: the patch is inflated as it is read, the old side
 * is read by position, the new file is written sequentially and hashed (MD5, SHA-256) as it is
 * written. ARDELTA1 diffs the installed APK itself; ARDELTA2 (file by file) first builds dfOld
 * (the old APK with its plan's deflated ranges inflated) into a private file, applies the records
 * to it, and deflates dfNew's ranges again on the way out. Every breach of the format is a
 * {@link DeltaException} with its reason; I/O failures of the streams pass through as they are.
 */
public final class DeltaApplier {
  static final byte[] MAGIC = "ARDELTA1".getBytes(StandardCharsets.US_ASCII);
  static final byte[] MAGIC2 = "ARDELTA2".getBytes(StandardCharsets.US_ASCII);

  private DeltaApplier() {}

  /** What a patch produced: its size and its digests in lower-case hex. */
  public static final class Applied {
    public final long size;
    public final String md5;
    public final String sha256;

    Applied(long size, String md5, String sha256) {
      this.size = size;
      this.md5 = md5;
      this.sha256 = sha256;
    }
  }

  /**
   * An ARDELTA1 patch.
   *
   * @param expectedSize the size the signed notice announces (a header naming another is refused
   *     before anything is written), or -1 to take the header's
   */
  public static Applied apply(InputStream patch, OldFile old, OutputStream out, long expectedSize)
      throws IOException {
    return run(patch, old, out, expectedSize, null, null);
  }

  /**
   * An ARDELTA2 patch: as {@link #apply}, with dfOld built in {@code dfOld} (a private file,
   * replaced; deleted before this returns, whatever happens) and dfNew's ranges deflated again by
   * {@code recompressor}.
   */
  public static Applied applyFileByFile(InputStream patch, OldFile old, OutputStream out, long expectedSize,
      File dfOld, Recompressor recompressor) throws IOException {
    try {
      return run(patch, old, out, expectedSize, dfOld, recompressor);
    } finally {
      if (dfOld.exists() && !dfOld.delete()) throw new IOException("could not delete " + dfOld);
    }
  }

  /** Applies the inflated patch (ARDELTA2 when {@code dfOld} is given); then nothing may follow the zlib stream. */
  private static Applied run(InputStream patch, OldFile old, OutputStream out, long expectedSize, File dfOld,
      Recompressor recompressor) throws IOException {
    Inflater inflater = new Inflater();
    try {
      InputStream in = new InflaterInputStream(patch, inflater, Records.CHUNK);
      HashingOutput hashed = new HashingOutput(out, newSize(in, dfOld == null ? MAGIC : MAGIC2, expectedSize));
      if (dfOld == null) {
        new Records(in, old, hashed).all(hashed.limit());
      } else {
        FileByFilePlan plan = FileByFilePlan.read(in, old.size());
        DeltaFriendlyOld.build(old, plan, dfOld);
        try (OldFile friendly = OldFile.open(dfOld)) {
          new Records(in, friendly, new Recompressing(plan, recompressor, hashed)).all(plan.dfNewSize);
        }
      }
      Applied applied = hashed.applied();
      if (inflater.getRemaining() > 0 || patch.read() != -1) {
        throw new DeltaException(Reason.TRAILING, "bytes follow the zlib stream");
      }
      return applied;
    } catch (ZipException e) {
      throw new DeltaException(Reason.CORRUPT, String.valueOf(e.getMessage()));
    } catch (EOFException e) { // InflaterInputStream: "Unexpected end of ZLIB input stream"
      throw new DeltaException(Reason.TRUNCATED, String.valueOf(e.getMessage()));
    } finally {
      inflater.end();
    }
  }

  /** Reads the magic and the new size; refuses another magic or a size the notice does not announce. */
  private static long newSize(InputStream in, byte[] magic, long expectedSize) throws IOException {
    byte[] head = new byte[16];
    if (Records.readUpTo(in, head, 16) < 16) throw new DeltaException(Reason.TRUNCATED, "no patch header");
    if (!Arrays.equals(Arrays.copyOf(head, magic.length), magic)) {
      throw new DeltaException(Reason.BAD_MAGIC, "the patch does not start with " + new String(magic, StandardCharsets.US_ASCII));
    }
    long newSize = Records.long64(head, 8);
    if (newSize < 0) throw new DeltaException(Reason.PAST_END, "a new size above 2^63 - 1");
    if (expectedSize >= 0 && newSize != expectedSize) {
      throw new DeltaException(Reason.WRONG_SIZE, "the patch makes " + newSize + " bytes, the notice announces " + expectedSize);
    }
    return newSize;
  }
}
