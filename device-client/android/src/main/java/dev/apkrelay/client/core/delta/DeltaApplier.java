package dev.apkrelay.client.core.delta;

import dev.apkrelay.client.core.delta.DeltaException.Reason;
import dev.apkrelay.client.core.download.Downloader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import java.util.zip.ZipException;

/**
 * Applies an ARDELTA1 patch (the delta contract of issue 37: one zlib stream holding the magic,
 * the new size and bsdiff records) in bounded memory: the patch is inflated as it is read, the
 * old APK is read by position, the new file is written sequentially and hashed (MD5, SHA-256) as
 * it is written. About 200 KB of heap whatever the sizes. Every breach of the format is a
 * {@link DeltaException} with its reason; I/O failures of the streams pass through as they are.
 */
public final class DeltaApplier {
  static final byte[] MAGIC = "ARDELTA1".getBytes(StandardCharsets.US_ASCII);
  /** The old position must stay within [-LIMIT, LIMIT] (2^62). */
  static final long OLD_POS_LIMIT = 1L << 62;
  private static final int CHUNK = 64 * 1024;

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
   * @param expectedSize the size the signed notice announces (a header naming another is refused
   *     before anything is written), or -1 to take the header's
   */
  public static Applied apply(InputStream patch, OldFile old, OutputStream out, long expectedSize)
      throws IOException {
    Inflater inflater = new Inflater();
    try {
      Run run = new Run(new InflaterInputStream(patch, inflater, CHUNK), old, out);
      Applied applied = run.all(expectedSize);
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

  /** One application: the positions, the buffers and the digests. */
  private static final class Run {
    private final InputStream in;
    private final OldFile old;
    private final OutputStream out;
    private final long oldSize;
    private final byte[] diff = new byte[CHUNK];
    private final byte[] oldBytes = new byte[CHUNK];
    private final byte[] head = new byte[24];
    private final MessageDigest md5 = digest("MD5");
    private final MessageDigest sha256 = digest("SHA-256");
    private long newPos;
    private long oldPos;

    Run(InputStream in, OldFile old, OutputStream out) throws IOException {
      this.in = in;
      this.old = old;
      this.out = out;
      this.oldSize = old.size();
    }

    Applied all(long expectedSize) throws IOException {
      if (readUpTo(head, 16) < 16) throw new DeltaException(Reason.TRUNCATED, "no patch header");
      if (!Arrays.equals(Arrays.copyOf(head, MAGIC.length), MAGIC)) {
        throw new DeltaException(Reason.BAD_MAGIC, "the patch does not start with ARDELTA1");
      }
      long newSize = long64(head, 8);
      if (newSize < 0) throw new DeltaException(Reason.PAST_END, "a new size above 2^63 - 1");
      if (expectedSize >= 0 && newSize != expectedSize) {
        throw new DeltaException(Reason.WRONG_SIZE, "the patch makes " + newSize + " bytes, the notice announces " + expectedSize);
      }
      while (newPos < newSize) record(newSize);
      if (in.read() != -1) throw new DeltaException(Reason.TRAILING, "bytes follow the last record");
      return new Applied(newSize, Downloader.hex(md5.digest()), Downloader.hex(sha256.digest()));
    }

    private void record(long newSize) throws IOException {
      if (readUpTo(head, 24) < 24) {
        throw new DeltaException(Reason.TRUNCATED, "the patch ends at " + newPos + " of " + newSize + " bytes");
      }
      long diffLen = long64(head, 0);
      long extraLen = long64(head, 8);
      long seek = long64(head, 16);
      long left = newSize - newPos;
      if (diffLen < 0 || extraLen < 0 || diffLen > left || extraLen > left - diffLen) {
        throw new DeltaException(Reason.PAST_END, "a record writes past the new size at " + newPos);
      }
      for (long done = 0; done < diffLen; ) {
        int n = (int) Math.min(CHUNK, diffLen - done);
        readFully(diff, n);
        readOld(oldPos + done, n);
        for (int i = 0; i < n; i++) diff[i] = (byte) (diff[i] + oldBytes[i]);
        write(diff, n);
        done += n;
      }
      newPos += diffLen;
      oldPos = moveOld(oldPos, diffLen);
      for (long done = 0; done < extraLen; ) {
        int n = (int) Math.min(CHUNK, extraLen - done);
        readFully(diff, n);
        write(diff, n);
        done += n;
      }
      newPos += extraLen;
      oldPos = moveOld(oldPos, seek);
    }

    /** oldBytes[0..n) = old[pos..pos+n), a position outside [0, oldSize) counting as 0. */
    private void readOld(long pos, int n) throws IOException {
      Arrays.fill(oldBytes, 0, n, (byte) 0);
      long from = Math.max(pos, 0);
      long to = Math.min(pos + n, oldSize);
      while (from < to) {
        int off = (int) (from - pos);
        int r = old.read(from, oldBytes, off, (int) (to - from));
        if (r <= 0) throw new IOException("the installed APK ended at " + from + " of " + oldSize + " bytes");
        from += r;
      }
    }

    private void write(byte[] b, int n) throws IOException {
      out.write(b, 0, n);
      md5.update(b, 0, n);
      sha256.update(b, 0, n);
    }

    private void readFully(byte[] b, int n) throws IOException {
      if (readUpTo(b, n) < n) {
        throw new DeltaException(Reason.TRUNCATED, "the patch ends inside a record, at " + newPos + " bytes");
      }
    }

    private int readUpTo(byte[] b, int n) throws IOException {
      int got = 0;
      while (got < n) {
        int r = in.read(b, got, n - got);
        if (r < 0) break;
        got += r;
      }
      return got;
    }
  }

  private static long moveOld(long pos, long by) throws DeltaException {
    long moved;
    try {
      moved = Math.addExact(pos, by);
    } catch (ArithmeticException overflow) {
      moved = Long.MAX_VALUE;
    }
    if (moved < -OLD_POS_LIMIT || moved > OLD_POS_LIMIT) {
      throw new DeltaException(Reason.SEEK_RANGE, "the old position leaves [-2^62, 2^62]");
    }
    return moved;
  }

  static long long64(byte[] b, int off) {
    long v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | (b[off + i] & 0xff);
    return v;
  }

  private static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is missing from this platform", e);
    }
  }
}
