/*
 * Altered: ported to Java from zlib 1.2.13's deflate.c (deflate_stored), the direct-copy part.
 * (C) 1995-2022 Jean-loup Gailly and Mark Adler
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

import static dev.apkrelay.client.core.deflate.DeflateState.FINISH;
import static dev.apkrelay.client.core.deflate.DeflateState.NO_FLUSH;

import java.io.IOException;

/**
 * Level 0, from zlib 1.2.13's deflate_stored. zlib's stored blocks depend on how much input and
 * output room each call has (pako's port, with its 16 KB output chunks, cuts other blocks), so
 * "zlib 1.2.13's level 0" is pinned here to one-shot use: all the input and ample output room in
 * one call, as compress2 and the JDK's Deflater with a large enough buffer use it. That gives
 * blocks of 65,535 bytes, the last one shorter (an empty last block for an empty input).
 * {@link RawDeflaterStream} drives it so with bounded memory: multiples of 65,535 bytes while more
 * input follows, then the rest (at most 65,535 bytes) with FINISH. Driven so, every byte is
 * copied straight from the input, so zlib's second half (input gathered in the window, blocks cut
 * from it) and its output-room checks never run and are left out.
 */
final class Stored {
  private static final int MAX_STORED = 65535;

  private Stored() {}

  /** zlib's direct-copy loop: stored blocks straight from the input; true once the last is out. */
  static boolean deflateStored(DeflateState s, int flush) throws IOException {
    int minBlock = Math.min(s.pendingBufSize - 5, s.wSize);
    boolean last = false;
    do {
      int len = Math.min(MAX_STORED, s.availIn);
      if (len < minBlock
          && ((len == 0 && flush != FINISH) || flush == NO_FLUSH || len != s.availIn)) {
        break;
      }
      last = flush == FINISH && len == s.availIn;
      s.trees.storedBlock(0, 0, last);
      s.pendingBuf[s.pending - 4] = (byte) len;
      s.pendingBuf[s.pending - 3] = (byte) (len >> 8);
      s.pendingBuf[s.pending - 2] = (byte) ~len;
      s.pendingBuf[s.pending - 1] = (byte) (~len >> 8);
      s.flushPending();
      s.writeDirect(s.in, s.nextIn, len);
      s.nextIn += len;
      s.availIn -= len;
    } while (!last);
    return last;
  }
}
