/*
 * Altered: ported to Java from pako 2.1.0's lib/zlib/deflate.js (a port of zlib 1.2.12) and zlib
 * 1.2.13's deflate.c, raw deflate only, no flush modes, no wrapper.
 * (C) 1995-2022 Jean-loup Gailly and Mark Adler
 * (C) 2014-2017 Vitaly Puzrin and Andrey Tupitsin
 *
 * This software is provided 'as-is', without any express or implied warranty. In no event will
 * the authors be held liable for any damages arising from the use of this software. Permission is
 * granted to anyone to use this software for any purpose, including commercial applications, and
 * to alter it and redistribute it freely, subject to the following restrictions:
 * 1. The origin of this software must not be misrepresented; you must not claim that you wrote
 *    the original software. If you use this software in a product, an acknowledgment in the
 *    product documentation would be appreciated but is not required.
 * 2. Altered source versions must be plainly marked as such, and must not be misrepresented as
 *    being the original software.
 * 3. This notice may not be removed or altered from any source distribution.
 */
package dev.apkrelay.client.core.deflate;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The state of one raw deflate stream, zlib's {@code deflate_state} with the same fields, sizes
 * and buffer layout (the symbol buffer inside the pending buffer), because byte identity with
 * zlib 1.2.13 depends on every one of them. The input is the array the stream hands in
 * ({@link #in}, {@link #nextIn}, {@link #availIn}); the output room is unlimited: pending bytes
 * go straight to the sink.
 */
final class DeflateState {
  static final int MIN_MATCH = 3;
  static final int MAX_MATCH = 258;
  static final int MIN_LOOKAHEAD = MAX_MATCH + MIN_MATCH + 1;
  static final int NO_FLUSH = 0;
  static final int FINISH = 4;
  static final int FILTERED = 1;
  static final int HUFFMAN_ONLY = 2;
  static final int RLE = 3;
  static final int FIXED = 4;

  /** zlib's configuration_table: good_length, max_lazy, nice_length, max_chain per level. */
  private static final int[][] CONFIG = {
    {0, 0, 0, 0}, {4, 4, 8, 4}, {4, 5, 16, 8}, {4, 6, 32, 32}, {4, 4, 16, 16},
    {8, 16, 32, 32}, {8, 16, 128, 128}, {8, 32, 128, 256}, {32, 128, 258, 1024},
    {32, 258, 258, 4096}
  };

  private final OutputStream sink;
  final int level;
  final int strategy;
  final int wSize;
  final int wMask;
  final int windowSize;
  final byte[] window;
  final char[] prev;
  final char[] head;
  final int hashSize;
  final int hashMask;
  final int hashShift;
  final int litBufsize;
  final int pendingBufSize;
  final byte[] pendingBuf;
  final int symBuf;
  final int symEnd;
  final int maxLazyMatch;
  final int goodMatch;
  final int niceMatch;
  final int maxChainLength;
  final Trees trees = new Trees(this);

  int pending;
  int symNext;
  int biBuf;
  int biValid;
  int insH;
  long blockStart;
  int matchLength = MIN_MATCH - 1;
  int prevMatch;
  boolean matchAvailable;
  int strstart;
  int matchStart;
  int lookahead;
  int prevLength = MIN_MATCH - 1;
  int insert;

  byte[] in;
  int nextIn;
  int availIn;

  DeflateState(OutputStream sink, int level, int strategy, int memLevel, int windowBits) {
    this.sink = sink;
    this.level = level;
    this.strategy = strategy;
    wSize = 1 << windowBits;
    wMask = wSize - 1;
    windowSize = 2 * wSize;
    window = new byte[windowSize];
    prev = new char[wSize];
    int hashBits = memLevel + 7;
    hashSize = 1 << hashBits;
    hashMask = hashSize - 1;
    hashShift = (hashBits + MIN_MATCH - 1) / MIN_MATCH;
    head = new char[hashSize];
    litBufsize = 1 << (memLevel + 6);
    pendingBufSize = litBufsize * 4;
    pendingBuf = new byte[pendingBufSize];
    symBuf = litBufsize;
    symEnd = (litBufsize - 1) * 3;
    int[] c = CONFIG[level];
    goodMatch = c[0];
    maxLazyMatch = c[1];
    niceMatch = c[2];
    maxChainLength = c[3];
  }

  int hash(int h, byte b) {
    return ((h << hashShift) ^ (b & 0xff)) & hashMask;
  }

  /** zlib's flush_pending with unlimited output room: every pending byte goes to the sink. */
  void flushPending() throws IOException {
    if (pending > 0) {
      sink.write(pendingBuf, 0, pending);
      pending = 0;
    }
  }

  /** Writes bytes that bypass the pending buffer (the stored blocks' direct copy). */
  void writeDirect(byte[] b, int off, int len) throws IOException {
    sink.write(b, off, len);
  }

  /** zlib's read_buf: up to {@code size} input bytes into {@code buf} at {@code start}. */
  int readBuf(byte[] buf, int start, int size) {
    int len = Math.min(availIn, size);
    if (len == 0) {
      return 0;
    }
    System.arraycopy(in, nextIn, buf, start, len);
    availIn -= len;
    nextIn += len;
    return len;
  }

  /** zlib's flush_block_only: the block since blockStart, then the pending bytes out. */
  void flushBlockOnly(boolean last) throws IOException {
    trees.flushBlock(blockStart >= 0 ? (int) blockStart : -1, (int) (strstart - blockStart), last);
    blockStart = strstart;
    flushPending();
  }
}
