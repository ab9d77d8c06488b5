package dev.apkrelay.client.core.deflate;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Raw deflate (RFC 1951) with zlib 1.2.13's algorithm, byte for byte, at every level 0-9,
 * strategy 0-4 (default, filtered, huffman-only, rle, fixed), memLevel 1-9 and windowBits 9-15;
 * writes the compressed bytes to the sink. {@link #close()} ends the deflate stream (zlib's
 * Z_FINISH) and does NOT close the sink. Android 11+ ships Chromium's zlib, whose output differs,
 * so ARDELTA2 patches (issue 37) recompress entries with this, never the platform's Deflater.
 *
 * <p>The output does not depend on how the input is cut into writes: the input is gathered into
 * one fixed buffer and handed to the compressor in the same pieces whatever the writes were (at
 * level 0, multiples of 65,535 bytes, which reproduces zlib's one-shot stored blocks). Memory: the
 * window, hash chains and pending buffer as zlib sizes them (256 KB at memLevel 8 and
 * windowBits 15, 384 KB at memLevel 9) plus a 64 KB input buffer.
 *
 * <p>Ported from pako 2.1.0 and zlib 1.2.13 (Zlib licence; see {@code DeflateState}).
 */
public final class RawDeflaterStream extends OutputStream {
  private static final int CHUNK = 65536;
  private static final int STORED_PIECE = 65535;

  private final DeflateState state;
  private final byte[] buf = new byte[CHUNK];
  private final byte[] one = new byte[1];
  private int filled;
  private boolean closed;

  /**
   * A deflate stream into {@code sink}; IllegalArgumentException when a parameter is outside its
   * set (level 0-9, strategy 0-4, memLevel 1-9, windowBits 9-15: raw zlib refuses 8 too).
   */
  public RawDeflaterStream(OutputStream sink, int level, int strategy, int memLevel, int windowBits) {
    check("level", level, 0, 9);
    check("strategy", strategy, 0, 4);
    check("memLevel", memLevel, 1, 9);
    check("windowBits", windowBits, 9, 15);
    if (sink == null) {
      throw new IllegalArgumentException("sink is null");
    }
    state = new DeflateState(sink, level, strategy, memLevel, windowBits);
  }

  private static void check(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + " must be " + min + " to " + max + ", not " + value);
    }
  }

  @Override
  public void write(int b) throws IOException {
    one[0] = (byte) b;
    write(one, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    if (closed) {
      throw new IOException("the deflate stream is closed");
    }
    if (off < 0 || len < 0 || len > b.length - off) {
      throw new IndexOutOfBoundsException();
    }
    while (len > 0) {
      if (filled == CHUNK) {
        drain();
      }
      int n = Math.min(len, CHUNK - filled);
      System.arraycopy(b, off, buf, filled, n);
      filled += n;
      off += n;
      len -= n;
    }
  }

  /** Hands a full buffer to the compressor; level 0 keeps its last byte (more input follows). */
  private void drain() throws IOException {
    int n = state.level == 0 ? STORED_PIECE : CHUNK;
    run(n, DeflateState.NO_FLUSH);
    System.arraycopy(buf, n, buf, 0, CHUNK - n);
    filled = CHUNK - n;
  }

  private void run(int n, int flush) throws IOException {
    state.in = buf;
    state.nextIn = 0;
    state.availIn = n;
    if (n != 0 || state.lookahead != 0 || flush != DeflateState.NO_FLUSH) {
      Lz77.compress(state, flush);
    }
    state.flushPending();
  }

  /** Ends the deflate stream (the final block); the sink stays open. Idempotent. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    run(filled, DeflateState.FINISH);
    filled = 0;
  }
}
