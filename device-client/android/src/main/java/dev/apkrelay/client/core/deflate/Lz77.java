/*
 * Altered: ported to Java from pako 2.1.0's lib/zlib/deflate.js (a port of zlib 1.2.12, the same
 * code as zlib 1.2.13's deflate.c), raw deflate only, no flush modes.
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

import static dev.apkrelay.client.core.deflate.DeflateState.FINISH;
import static dev.apkrelay.client.core.deflate.DeflateState.MAX_MATCH;
import static dev.apkrelay.client.core.deflate.DeflateState.MIN_LOOKAHEAD;
import static dev.apkrelay.client.core.deflate.DeflateState.MIN_MATCH;
import static dev.apkrelay.client.core.deflate.DeflateState.NO_FLUSH;

import java.io.IOException;

/**
 * zlib's LZ77 side for levels 1 to 9: the sliding window and hash chains (fill_window,
 * longest_match) and the four compressors, deflate_fast (levels 1-3), deflate_slow (4-9, lazy
 * matching), deflate_rle and deflate_huff, step for step, so that every match zlib 1.2.13 finds
 * (and every one it gives up) is found and given up here too.
 */
final class Lz77 {
  static final boolean NEED_MORE = false;
  static final boolean DONE = true;
  private static final int TOO_FAR = 4096;

  private Lz77() {}

  /** Runs the compressor the level and strategy pick; DONE once the stream's last block is out. */
  static boolean compress(DeflateState s, int flush) throws IOException {
    if (s.level == 0) {
      return Stored.deflateStored(s, flush);
    }
    if (s.strategy == DeflateState.HUFFMAN_ONLY) {
      return deflateHuff(s, flush);
    }
    if (s.strategy == DeflateState.RLE) {
      return deflateRle(s, flush);
    }
    return deflateMatching(s, flush, s.level > 3);
  }

  private static void slideHash(DeflateState s) {
    int wsize = s.wSize;
    for (int p = 0; p < s.hashSize; p++) {
      int m = s.head[p];
      s.head[p] = (char) (m >= wsize ? m - wsize : 0);
    }
    for (int p = 0; p < wsize; p++) {
      int m = s.prev[p];
      s.prev[p] = (char) (m >= wsize ? m - wsize : 0);
    }
  }

  /** zlib's fill_window: slides the window when needed and reads input into it. */
  static void fillWindow(DeflateState s) {
    int wsize = s.wSize;
    do {
      int more = s.windowSize - s.lookahead - s.strstart;
      if (s.strstart >= wsize + (wsize - MIN_LOOKAHEAD)) {
        System.arraycopy(s.window, wsize, s.window, 0, wsize - more);
        s.matchStart -= wsize;
        s.strstart -= wsize;
        s.blockStart -= wsize;
        if (s.insert > s.strstart) {
          s.insert = s.strstart;
        }
        slideHash(s);
        more += wsize;
      }
      if (s.availIn == 0) {
        break;
      }
      s.lookahead += s.readBuf(s.window, s.strstart + s.lookahead, more);
      if (s.lookahead + s.insert >= MIN_MATCH) {
        insertPending(s);
      }
    } while (s.lookahead < MIN_LOOKAHEAD && s.availIn != 0);
  }

  /** Hashes the bytes left uninserted at the end of the previous input (s.insert of them). */
  private static void insertPending(DeflateState s) {
    int str = s.strstart - s.insert;
    s.insH = s.window[str] & 0xff;
    s.insH = s.hash(s.insH, s.window[str + 1]);
    while (s.insert != 0) {
      s.insH = s.hash(s.insH, s.window[str + MIN_MATCH - 1]);
      s.prev[str & s.wMask] = s.head[s.insH];
      s.head[s.insH] = (char) str;
      str++;
      s.insert--;
      if (s.lookahead + s.insert < MIN_MATCH) {
        break;
      }
    }
  }

  /** Inserts the string at strstart into the hash chains; the previous head of its chain. */
  private static int insertString(DeflateState s) {
    s.insH = s.hash(s.insH, s.window[s.strstart + MIN_MATCH - 1]);
    int head = s.head[s.insH];
    s.prev[s.strstart & s.wMask] = (char) head;
    s.head[s.insH] = (char) s.strstart;
    return head;
  }

  /** zlib's longest_match (the portable version): the length of the best match found. */
  static int longestMatch(DeflateState s, int curMatch) {
    int chainLength = s.maxChainLength;
    final byte[] win = s.window;
    final int scan = s.strstart;
    int bestLen = s.prevLength;
    int niceMatch = s.niceMatch;
    int maxDist = s.wSize - MIN_LOOKAHEAD;
    int limit = s.strstart > maxDist ? s.strstart - maxDist : 0;
    byte scanEnd1 = win[scan + bestLen - 1];
    byte scanEnd = win[scan + bestLen];
    if (s.prevLength >= s.goodMatch) {
      chainLength >>= 2;
    }
    if (niceMatch > s.lookahead) {
      niceMatch = s.lookahead;
    }
    do {
      int match = curMatch;
      if (win[match + bestLen] != scanEnd
          || win[match + bestLen - 1] != scanEnd1
          || win[match] != win[scan]
          || win[match + 1] != win[scan + 1]) {
        continue;
      }
      int len = matchLength(win, scan, match);
      if (len > bestLen) {
        s.matchStart = curMatch;
        bestLen = len;
        if (len >= niceMatch) {
          break;
        }
        scanEnd1 = win[scan + bestLen - 1];
        scanEnd = win[scan + bestLen];
      }
    } while ((curMatch = s.prev[curMatch & s.wMask]) > limit && --chainLength != 0);
    return bestLen <= s.lookahead ? bestLen : s.lookahead;
  }

  /**
   * The length zlib's unrolled compare loop measures once the first two bytes agree: the first
   * differing offset from 3 to 257, else 258 (offset 258 is compared but cannot change it).
   */
  private static int matchLength(byte[] win, int scan, int match) {
    int d = match - scan;
    for (int p = scan + 3, end = scan + MAX_MATCH; p < end; p++) {
      if (win[p] != win[p + d]) {
        return p - scan;
      }
    }
    return MAX_MATCH;
  }


  /**
   * Makes sure of the lookahead a compressor needs before its next step: WAIT when it must wait
   * for more input (no FINISH yet), END when no byte is left, else GO.
   */
  private static int lookahead(DeflateState s, int flush, int needed) {
    if (s.lookahead < needed) {
      fillWindow(s);
      if (s.lookahead < needed && flush == NO_FLUSH) {
        return WAIT;
      }
      if (s.lookahead == 0) {
        return END;
      }
    }
    return GO;
  }

  private static final int GO = 0;
  private static final int WAIT = -1;
  private static final int END = -2;

  /**
   * The start of a fast or slow step: WAIT for more input, END when nothing is left, else the
   * head of strstart's hash chain (0 for none) after inserting strstart into it.
   */
  private static int begin(DeflateState s, int flush) {
    int state = lookahead(s, flush, MIN_LOOKAHEAD);
    if (state != GO) {
      return state;
    }
    return s.lookahead >= MIN_MATCH ? insertString(s) : 0;
  }

  /** zlib's deflate_fast (lazy false) and deflate_slow (lazy true) around their steps. */
  static boolean deflateMatching(DeflateState s, int flush, boolean lazy) throws IOException {
    for (; ; ) {
      int hashHead = begin(s, flush);
      if (hashHead == WAIT) {
        return NEED_MORE;
      } else if (hashHead == END) {
        break;
      }
      if (lazy) {
        slowStep(s, hashHead);
      } else {
        fastStep(s, hashHead);
      }
    }
    if (lazy && s.matchAvailable) {
      s.trees.tally(0, s.window[s.strstart - 1] & 0xff);
      s.matchAvailable = false;
    }
    return finish(s, MIN_MATCH - 1);
  }

  /** A step of deflate_fast: no lazy matching; matches up to max_lazy go into the hash. */
  private static void fastStep(DeflateState s, int hashHead) throws IOException {
    if (hashHead != 0 && s.strstart - hashHead <= s.wSize - MIN_LOOKAHEAD) {
      s.matchLength = longestMatch(s, hashHead);
    }
    boolean bflush;
    if (s.matchLength >= MIN_MATCH) {
      bflush = s.trees.tally(s.strstart - s.matchStart, s.matchLength - MIN_MATCH);
      s.lookahead -= s.matchLength;
      if (s.matchLength <= s.maxLazyMatch && s.lookahead >= MIN_MATCH) {
        s.matchLength--;
        do {
          s.strstart++;
          insertString(s);
        } while (--s.matchLength != 0);
        s.strstart++;
      } else {
        s.strstart += s.matchLength;
        s.matchLength = 0;
        s.insH = s.window[s.strstart] & 0xff;
        s.insH = s.hash(s.insH, s.window[s.strstart + 1]);
      }
    } else {
      bflush = s.trees.tally(0, s.window[s.strstart] & 0xff);
      s.lookahead--;
      s.strstart++;
    }
    if (bflush) {
      s.flushBlockOnly(false);
    }
  }

  /**
   * A step of deflate_slow: looks for a match at strstart, then emits the previous match if it is
   * no shorter, else the previous literal, else waits a byte.
   */
  private static void slowStep(DeflateState s, int hashHead) throws IOException {
    s.prevLength = s.matchLength;
    s.prevMatch = s.matchStart;
    s.matchLength = MIN_MATCH - 1;
    if (hashHead != 0
        && s.prevLength < s.maxLazyMatch
        && s.strstart - hashHead <= s.wSize - MIN_LOOKAHEAD) {
      s.matchLength = longestMatch(s, hashHead);
      if (s.matchLength <= 5
          && (s.strategy == DeflateState.FILTERED
              || (s.matchLength == MIN_MATCH && s.strstart - s.matchStart > TOO_FAR))) {
        s.matchLength = MIN_MATCH - 1;
      }
    }
    emitLazy(s);
  }

  /** One lazy-matching decision: emit the previous match, the previous literal, or wait a byte. */
  private static void emitLazy(DeflateState s) throws IOException {
    if (s.prevLength >= MIN_MATCH && s.matchLength <= s.prevLength) {
      int maxInsert = s.strstart + s.lookahead - MIN_MATCH;
      boolean bflush =
          s.trees.tally(s.strstart - 1 - s.prevMatch, s.prevLength - MIN_MATCH);
      s.lookahead -= s.prevLength - 1;
      s.prevLength -= 2;
      do {
        if (++s.strstart <= maxInsert) {
          insertString(s);
        }
      } while (--s.prevLength != 0);
      s.matchAvailable = false;
      s.matchLength = MIN_MATCH - 1;
      s.strstart++;
      if (bflush) {
        s.flushBlockOnly(false);
      }
    } else if (s.matchAvailable) {
      if (s.trees.tally(0, s.window[s.strstart - 1] & 0xff)) {
        s.flushBlockOnly(false);
      }
      s.strstart++;
      s.lookahead--;
    } else {
      s.matchAvailable = true;
      s.strstart++;
      s.lookahead--;
    }
  }

  /** zlib's deflate_rle: runs of the previous byte (distance one), else literals. */
  static boolean deflateRle(DeflateState s, int flush) throws IOException {
    final byte[] win = s.window;
    for (; ; ) {
      int state = lookahead(s, flush, MAX_MATCH + 1);
      if (state == WAIT) {
        return NEED_MORE;
      }
      if (state == END) {
        break;
      }
      s.matchLength = 0;
      if (s.lookahead >= MIN_MATCH && s.strstart > 0) {
        int scan = s.strstart - 1;
        byte prev = win[scan];
        if (prev == win[scan + 1] && prev == win[scan + 2] && prev == win[scan + 3]) {
          s.matchLength = matchLength(win, s.strstart, scan);
          if (s.matchLength > s.lookahead) {
            s.matchLength = s.lookahead;
          }
        }
      }
      boolean bflush;
      if (s.matchLength >= MIN_MATCH) {
        bflush = s.trees.tally(1, s.matchLength - MIN_MATCH);
        s.lookahead -= s.matchLength;
        s.strstart += s.matchLength;
        s.matchLength = 0;
      } else {
        bflush = s.trees.tally(0, win[s.strstart] & 0xff);
        s.lookahead--;
        s.strstart++;
      }
      if (bflush) {
        s.flushBlockOnly(false);
      }
    }
    return finish(s, 0);
  }

  /** zlib's deflate_huff: literals only, Huffman-coded. */
  static boolean deflateHuff(DeflateState s, int flush) throws IOException {
    for (; ; ) {
      if (s.lookahead == 0) {
        fillWindow(s);
        if (s.lookahead == 0) {
          if (flush == NO_FLUSH) {
            return NEED_MORE;
          }
          break;
        }
      }
      s.matchLength = 0;
      boolean bflush = s.trees.tally(0, s.window[s.strstart] & 0xff);
      s.lookahead--;
      s.strstart++;
      if (bflush) {
        s.flushBlockOnly(false);
      }
    }
    return finish(s, 0);
  }

  /**
   * The end of every compressor, reached only at FINISH (this stream never flushes otherwise):
   * the last symbols go out as the stream's final block.
   */
  private static boolean finish(DeflateState s, int keep) throws IOException {
    s.insert = s.strstart < keep ? s.strstart : keep;
    s.flushBlockOnly(true);
    return DONE;
  }
}
