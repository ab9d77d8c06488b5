package dev.apkrelay.client.core.delta;

import dev.apkrelay.client.core.delta.DeltaException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The bsdiff records both patch formats carry (the delta contract: diffLen, extraLen, seek, the
 * diff bytes added to the old bytes, the extra bytes copied): read from the inflated patch, the
 * old side read by position (the installed APK for ARDELTA1, dfOld for ARDELTA2), the result
 * written sequentially. One place for the record rules and their refusals, whatever the format.
 */
final class Records {
  /** The old position must stay within [-LIMIT, LIMIT] (2^62). */
  static final long OLD_POS_LIMIT = 1L << 62;
  static final int CHUNK = 64 * 1024;

  private final InputStream in;
  private final OldFile old;
  private final OutputStream out;
  private final long oldSize;
  private final byte[] diff = new byte[CHUNK];
  private final byte[] oldBytes = new byte[CHUNK];
  private final byte[] head = new byte[24];
  private long newPos;
  private long oldPos;

  Records(InputStream in, OldFile old, OutputStream out) throws IOException {
    this.in = in;
    this.old = old;
    this.out = out;
    this.oldSize = old.size();
  }

  /** Applies records until {@code size} bytes are written; then nothing may follow in the patch. */
  void all(long size) throws IOException {
    while (newPos < size) record(size);
    if (in.read() != -1) throw new DeltaException(Reason.TRAILING, "bytes follow the last record");
  }

  private void record(long newSize) throws IOException {
    if (readUpTo(in, head, 24) < 24) {
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
      out.write(diff, 0, n);
      done += n;
    }
    newPos += diffLen;
    oldPos = moveOld(oldPos, diffLen);
    for (long done = 0; done < extraLen; ) {
      int n = (int) Math.min(CHUNK, extraLen - done);
      readFully(diff, n);
      out.write(diff, 0, n);
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
      if (r <= 0) throw new IOException("the old file ended at " + from + " of " + oldSize + " bytes");
      from += r;
    }
  }

  private void readFully(byte[] b, int n) throws IOException {
    if (readUpTo(in, b, n) < n) {
      throw new DeltaException(Reason.TRUNCATED, "the patch ends inside a record, at " + newPos + " bytes");
    }
  }

  static int readUpTo(InputStream in, byte[] b, int n) throws IOException {
    int got = 0;
    while (got < n) {
      int r = in.read(b, got, n - got);
      if (r < 0) break;
      got += r;
    }
    return got;
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
}
