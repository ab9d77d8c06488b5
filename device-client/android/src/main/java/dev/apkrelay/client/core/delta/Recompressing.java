package dev.apkrelay.client.core.delta;

import java.io.IOException;
import java.io.OutputStream;

/**
 * dfNew on its way to the final file (ARDELTA2, the delta contract): bytes outside the plan's new
 * ranges pass through; the bytes of a range go to a {@link Recompressor} opened with that range's
 * parameters and finished at the range's end (one deflate stream per range, no flush between).
 * Receives dfNew sequentially, in any chunking, from the records.
 */
final class Recompressing extends OutputStream {
  private long pos;
  /** The next range to open, or the open one. */
  private int range;
  private OutputStream deflating;
  private final FileByFilePlan plan;
  private final Recompressor recompressor;
  private final OutputStream sink;

  Recompressing(FileByFilePlan plan, Recompressor recompressor, OutputStream sink) throws IOException {
    this.plan = plan;
    this.recompressor = recompressor;
    this.sink = sink;
    settle();
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    while (len > 0) {
      long until = deflating != null ? plan.newOffset[range] + plan.newLength[range]
          : range < plan.newOffset.length ? plan.newOffset[range] : Long.MAX_VALUE;
      int n = (int) Math.min(len, until - pos);
      (deflating != null ? deflating : sink).write(b, off, n);
      pos += n;
      off += n;
      len -= n;
      settle();
    }
  }

  /** Opens the range starting here and finishes the one ending here (empty ones included). */
  private void settle() throws IOException {
    while (true) {
      if (deflating != null && pos == plan.newOffset[range] + plan.newLength[range]) {
        deflating.close();
        deflating = null;
        range++;
      } else if (deflating == null && range < plan.newOffset.length && pos == plan.newOffset[range]) {
        byte[] p = plan.newParams[range];
        deflating = recompressor.open(sink, p[0], p[1], p[2], p[3]);
      } else {
        return;
      }
    }
  }
}
