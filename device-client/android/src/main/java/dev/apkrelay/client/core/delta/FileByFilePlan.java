package dev.apkrelay.client.core.delta;

import dev.apkrelay.client.core.delta.DeltaException.Reason;
import java.io.IOException;
import java.io.InputStream;

/**
 * The head of an ARDELTA2 patch after its magic and new size (the delta contract, issue 37 item
 * 3): the old file's deflated ranges, dfNew's ranges to deflate again with their parameters, and
 * dfNew's size. Read and checked before anything is built: every breach of its limits (counts,
 * order, bounds, parameters) is refused as {@code plan}; a patch ending inside it as
 * {@code truncated}.
 */
final class FileByFilePlan {
  static final int MAX_RANGES = 65_535;
  static final long MAX_INFLATED = 1L << 31;

  final long[] oldOffset;
  final long[] oldLength;
  final long[] oldInflated;
  final long[] newOffset;
  final long[] newLength;
  /** Per new range: level, strategy, memLevel, windowBits. */
  final byte[][] newParams;
  final long dfNewSize;

  private FileByFilePlan(long[][] old, long[][] nu, byte[][] params, long dfNewSize) {
    this.oldOffset = old[0];
    this.oldLength = old[1];
    this.oldInflated = old[2];
    this.newOffset = nu[0];
    this.newLength = nu[1];
    this.newParams = params;
    this.dfNewSize = dfNewSize;
  }

  static FileByFilePlan read(InputStream in, long oldSize) throws IOException {
    int oldCount = count(in, "old");
    long[][] old = new long[3][oldCount];
    long end = 0;
    for (int i = 0; i < oldCount; i++) {
      long offset = u64(in);
      long length = u64(in);
      long inflated = u64(in);
      if (offset < end || (i > 0 && offset <= old[0][i - 1]) || offset < 0 || length < 0
          || length > oldSize - offset) {
        throw plan("old range " + i + " is out of order or outside the old file");
      }
      if (inflated < 0 || inflated > MAX_INFLATED) throw plan("old range " + i + " inflates to more than 2^31 bytes");
      old[0][i] = offset;
      old[1][i] = length;
      old[2][i] = inflated;
      end = offset + length;
    }
    int newCount = count(in, "new");
    long[][] nu = new long[2][newCount];
    byte[][] params = new byte[newCount][];
    byte[] b = new byte[20];
    for (int i = 0; i < newCount; i++) {
      readFully(in, b, 20);
      nu[0][i] = Records.long64(b, 0);
      nu[1][i] = Records.long64(b, 8);
      params[i] = new byte[] {b[16], b[17], b[18], b[19]};
      checkNew(nu, params[i], i);
    }
    long dfNewSize = u64(in);
    if (dfNewSize < 0) throw new DeltaException(Reason.PAST_END, "a dfNew size above 2^63 - 1");
    if (newCount > 0 && nu[0][newCount - 1] + nu[1][newCount - 1] > dfNewSize) {
      throw plan("new range " + (newCount - 1) + " ends past dfNew's " + dfNewSize + " bytes");
    }
    return new FileByFilePlan(old, nu, params, dfNewSize);
  }

  private static void checkNew(long[][] nu, byte[] p, int i) throws DeltaException {
    long offset = nu[0][i];
    long length = nu[1][i];
    if (offset < 0 || (i > 0 && (offset <= nu[0][i - 1] || offset < nu[0][i - 1] + nu[1][i - 1]))) {
      throw plan("new range " + i + " is out of order");
    }
    if (length < 0 || length > MAX_INFLATED) throw plan("new range " + i + " is more than 2^31 bytes");
    if (length > Long.MAX_VALUE - offset) throw plan("new range " + i + " ends past any file");
    if (p[0] < 1 || p[0] > 9 || p[1] < 0 || p[1] > 4 || p[2] < 1 || p[2] > 9 || p[3] < 9 || p[3] > 15) {
      throw plan("new range " + i + " has a deflate setting outside its set (level " + p[0] + ", strategy " + p[1]
          + ", memLevel " + p[2] + ", windowBits " + p[3] + ")");
    }
  }

  private static int count(InputStream in, String which) throws IOException {
    byte[] b = new byte[4];
    readFully(in, b, 4);
    long n = ((b[0] & 0xffL) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
    if (n > MAX_RANGES) throw plan(n + " " + which + " ranges, more than " + MAX_RANGES);
    return (int) n;
  }

  private static long u64(InputStream in) throws IOException {
    byte[] b = new byte[8];
    readFully(in, b, 8);
    return Records.long64(b, 0);
  }

  private static void readFully(InputStream in, byte[] b, int n) throws IOException {
    if (Records.readUpTo(in, b, n) < n) throw new DeltaException(Reason.TRUNCATED, "the patch ends inside its plan");
  }

  static DeltaException plan(String message) {
    return new DeltaException(Reason.PLAN, message);
  }
}
