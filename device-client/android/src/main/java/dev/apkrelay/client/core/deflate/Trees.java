/*
 * Altered: ported to Java from pako 2.1.0's lib/zlib/trees.js (a port of zlib 1.2.12's trees.c),
 * with zlib 1.2.13's block choice for the fixed strategy.
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

/**
 * zlib's trees.c for one stream: the symbol tally, the three Huffman trees of a block, and the
 * choice between a stored, a static-tree and a dynamic-tree block, bit for bit as zlib 1.2.13
 * makes them (the heap order, the depth tie-break and the bit-length overflow repair all decide
 * the output bytes). The bit writer lives here too; {@link DeflateState} holds the buffers.
 */
final class Trees {
  private static final int LENGTH_CODES = 29;
  private static final int LITERALS = 256;
  private static final int L_CODES = LITERALS + 1 + LENGTH_CODES;
  private static final int D_CODES = 30;
  private static final int BL_CODES = 19;
  private static final int HEAP_SIZE = 2 * L_CODES + 1;
  private static final int MAX_BITS = 15;
  private static final int MAX_BL_BITS = 7;
  private static final int END_BLOCK = 256;
  private static final int REP_3_6 = 16;
  private static final int REPZ_3_10 = 17;
  private static final int REPZ_11_138 = 18;

  static final int[] EXTRA_LBITS = {
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0
  };
  static final int[] EXTRA_DBITS = {
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13
  };
  private static final int[] EXTRA_BLBITS = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7};
  private static final int[] BL_ORDER = {
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15
  };

  private static final int[] STATIC_LTREE = new int[(L_CODES + 2) * 2];
  private static final int[] STATIC_DTREE = new int[D_CODES * 2];
  private static final int[] DIST_CODE = new int[512];
  private static final int[] LENGTH_CODE = new int[256];
  private static final int[] BASE_LENGTH = new int[LENGTH_CODES];
  private static final int[] BASE_DIST = new int[D_CODES];

  static {
    staticInit();
  }

  private final DeflateState s;
  /** Trees as zlib's ct_data arrays flattened: [2n] freq or code, [2n+1] dad or len. */
  private final int[] dynLtree = new int[HEAP_SIZE * 2];
  private final int[] dynDtree = new int[(2 * D_CODES + 1) * 2];
  private final int[] blTree = new int[(2 * BL_CODES + 1) * 2];
  private final int[] blCount = new int[MAX_BITS + 1];
  private final int[] heap = new int[2 * L_CODES + 1];
  private final int[] depth = new int[2 * L_CODES + 1];
  private final int[] nextCode = new int[MAX_BITS + 1];
  private int heapLen;
  private int heapMax;
  private int optLen;
  private int staticLen;
  private int lMaxCode;
  private int dMaxCode;

  Trees(DeflateState s) {
    this.s = s;
    initBlock();
  }

  private static void staticInit() {
    int length = 0;
    int code;
    for (code = 0; code < LENGTH_CODES - 1; code++) {
      BASE_LENGTH[code] = length;
      for (int n = 0; n < (1 << EXTRA_LBITS[code]); n++) {
        LENGTH_CODE[length++] = code;
      }
    }
    // Length 255 (match length 258) goes as code 285, not 284 plus 5 bits.
    LENGTH_CODE[length - 1] = code;
    int dist = 0;
    for (code = 0; code < 16; code++) {
      BASE_DIST[code] = dist;
      for (int n = 0; n < (1 << EXTRA_DBITS[code]); n++) {
        DIST_CODE[dist++] = code;
      }
    }
    dist >>= 7;
    for (; code < D_CODES; code++) {
      BASE_DIST[code] = dist << 7;
      for (int n = 0; n < (1 << (EXTRA_DBITS[code] - 7)); n++) {
        DIST_CODE[256 + dist++] = code;
      }
    }
    int[] count = new int[MAX_BITS + 1];
    for (int n = 0; n <= 287; n++) {
      int len = n <= 143 ? 8 : n <= 255 ? 9 : n <= 279 ? 7 : 8;
      STATIC_LTREE[n * 2 + 1] = len;
      count[len]++;
    }
    genCodes(STATIC_LTREE, L_CODES + 1, count, new int[MAX_BITS + 1]);
    for (int n = 0; n < D_CODES; n++) {
      STATIC_DTREE[n * 2 + 1] = 5;
      STATIC_DTREE[n * 2] = biReverse(n, 5);
    }
  }

  private static int dCode(int dist) {
    return dist < 256 ? DIST_CODE[dist] : DIST_CODE[256 + (dist >>> 7)];
  }

  private static int biReverse(int code, int len) {
    int res = 0;
    do {
      res |= code & 1;
      code >>>= 1;
      res <<= 1;
    } while (--len > 0);
    return res >>> 1;
  }

  private static void genCodes(int[] tree, int maxCode, int[] count, int[] next) {
    int code = 0;
    for (int bits = 1; bits <= MAX_BITS; bits++) {
      code = (code + count[bits - 1]) << 1;
      next[bits] = code;
    }
    for (int n = 0; n <= maxCode; n++) {
      int len = tree[n * 2 + 1];
      if (len != 0) {
        tree[n * 2] = biReverse(next[len]++, len);
      }
    }
  }

  // ---- the bit writer (zlib's put_short, send_bits, bi_windup, bi_flush)

  private void putShort(int w) {
    s.pendingBuf[s.pending++] = (byte) w;
    s.pendingBuf[s.pending++] = (byte) (w >>> 8);
  }

  void sendBits(int value, int length) {
    if (s.biValid > 16 - length) {
      s.biBuf |= (value << s.biValid) & 0xffff;
      putShort(s.biBuf);
      s.biBuf = value >> (16 - s.biValid);
      s.biValid += length - 16;
    } else {
      s.biBuf |= (value << s.biValid) & 0xffff;
      s.biValid += length;
    }
  }

  private void sendCode(int c, int[] tree) {
    sendBits(tree[c * 2], tree[c * 2 + 1]);
  }

  private void biWindup() {
    if (s.biValid > 8) {
      putShort(s.biBuf);
    } else if (s.biValid > 0) {
      s.pendingBuf[s.pending++] = (byte) s.biBuf;
    }
    s.biBuf = 0;
    s.biValid = 0;
  }

  // ---- the block

  private void initBlock() {
    for (int n = 0; n < L_CODES; n++) {
      dynLtree[n * 2] = 0;
    }
    for (int n = 0; n < D_CODES; n++) {
      dynDtree[n * 2] = 0;
    }
    for (int n = 0; n < BL_CODES; n++) {
      blTree[n * 2] = 0;
    }
    dynLtree[END_BLOCK * 2] = 1;
    optLen = 0;
    staticLen = 0;
    s.symNext = 0;
  }

  /** zlib's _tr_tally: records a literal (dist 0) or a match; true when the block is full. */
  boolean tally(int dist, int lc) {
    byte[] p = s.pendingBuf;
    int i = s.symBuf + s.symNext;
    p[i] = (byte) dist;
    p[i + 1] = (byte) (dist >> 8);
    p[i + 2] = (byte) lc;
    s.symNext += 3;
    if (dist == 0) {
      dynLtree[lc * 2]++;
    } else {
      dist--;
      dynLtree[(LENGTH_CODE[lc] + LITERALS + 1) * 2]++;
      dynDtree[dCode(dist) * 2]++;
    }
    return s.symNext == s.symEnd;
  }

  /** zlib's _tr_stored_block: a stored block of window bytes [buf, buf+len). */
  void storedBlock(int buf, int storedLen, boolean last) {
    sendBits(last ? 1 : 0, 3);
    biWindup();
    putShort(storedLen);
    putShort(~storedLen);
    if (storedLen > 0) {
      System.arraycopy(s.window, buf, s.pendingBuf, s.pending, storedLen);
    }
    s.pending += storedLen;
  }

  /** zlib's _tr_flush_block: the cheapest of stored, static and dynamic trees for the block. */
  void flushBlock(int buf, int storedLen, boolean last) {
    int optLenb;
    int staticLenb;
    int maxBlindex = 0;
    if (s.level > 0) {
      lMaxCode = buildTree(dynLtree, STATIC_LTREE, EXTRA_LBITS, LITERALS + 1, L_CODES, MAX_BITS);
      dMaxCode = buildTree(dynDtree, STATIC_DTREE, EXTRA_DBITS, 0, D_CODES, MAX_BITS);
      maxBlindex = buildBlTree();
      optLenb = (optLen + 3 + 7) >>> 3;
      staticLenb = (staticLen + 3 + 7) >>> 3;
      // zlib 1.2.13 (not pako 2.1.0): the fixed strategy measures a stored block against the
      // static trees, not against the cheaper dynamic ones.
      if (staticLenb <= optLenb || s.strategy == DeflateState.FIXED) {
        optLenb = staticLenb;
      }
    } else {
      optLenb = staticLenb = storedLen + 5;
    }
    int lastBit = last ? 1 : 0;
    if (storedLen + 4 <= optLenb && buf != -1) {
      storedBlock(buf, storedLen, last);
    } else if (staticLenb == optLenb) {
      sendBits((1 << 1) + lastBit, 3);
      compressBlock(STATIC_LTREE, STATIC_DTREE);
    } else {
      sendBits((2 << 1) + lastBit, 3);
      sendAllTrees(lMaxCode + 1, dMaxCode + 1, maxBlindex + 1);
      compressBlock(dynLtree, dynDtree);
    }
    initBlock();
    if (last) {
      biWindup();
    }
  }

  private void compressBlock(int[] ltree, int[] dtree) {
    byte[] p = s.pendingBuf;
    for (int sx = 0; sx < s.symNext; sx += 3) {
      int i = s.symBuf + sx;
      int dist = (p[i] & 0xff) | ((p[i + 1] & 0xff) << 8);
      int lc = p[i + 2] & 0xff;
      if (dist == 0) {
        sendCode(lc, ltree);
        continue;
      }
      int code = LENGTH_CODE[lc];
      sendCode(code + LITERALS + 1, ltree);
      int extra = EXTRA_LBITS[code];
      if (extra != 0) {
        sendBits(lc - BASE_LENGTH[code], extra);
      }
      dist--;
      code = dCode(dist);
      sendCode(code, dtree);
      extra = EXTRA_DBITS[code];
      if (extra != 0) {
        sendBits(dist - BASE_DIST[code], extra);
      }
    }
    sendCode(END_BLOCK, ltree);
  }

  // ---- Huffman tree construction (zlib's build_tree, gen_bitlen, pqdownheap)

  private boolean smaller(int[] tree, int n, int m) {
    return tree[n * 2] < tree[m * 2] || (tree[n * 2] == tree[m * 2] && depth[n] <= depth[m]);
  }

  private void pqdownheap(int[] tree, int k) {
    int v = heap[k];
    int j = k << 1;
    while (j <= heapLen) {
      if (j < heapLen && smaller(tree, heap[j + 1], heap[j])) {
        j++;
      }
      if (smaller(tree, v, heap[j])) {
        break;
      }
      heap[k] = heap[j];
      k = j;
      j <<= 1;
    }
    heap[k] = v;
  }

  /** Builds one tree, sets its lengths and codes, updates optLen/staticLen; its max code. */
  private int buildTree(int[] tree, int[] stree, int[] extra, int base, int elems, int maxLen) {
    int maxCode = -1;
    heapLen = 0;
    heapMax = HEAP_SIZE;
    for (int n = 0; n < elems; n++) {
      if (tree[n * 2] != 0) {
        heap[++heapLen] = maxCode = n;
        depth[n] = 0;
      } else {
        tree[n * 2 + 1] = 0;
      }
    }
    // At least two codes of non-zero frequency, as the format needs.
    while (heapLen < 2) {
      int node = heap[++heapLen] = maxCode < 2 ? ++maxCode : 0;
      tree[node * 2] = 1;
      depth[node] = 0;
      optLen--;
      if (stree != null) {
        staticLen -= stree[node * 2 + 1];
      }
    }
    for (int n = heapLen >> 1; n >= 1; n--) {
      pqdownheap(tree, n);
    }
    int node = elems;
    do {
      int n = heap[1];
      heap[1] = heap[heapLen--];
      pqdownheap(tree, 1);
      int m = heap[1];
      heap[--heapMax] = n;
      heap[--heapMax] = m;
      tree[node * 2] = tree[n * 2] + tree[m * 2];
      depth[node] = (depth[n] >= depth[m] ? depth[n] : depth[m]) + 1;
      tree[n * 2 + 1] = tree[m * 2 + 1] = node;
      heap[1] = node++;
      pqdownheap(tree, 1);
    } while (heapLen >= 2);
    heap[--heapMax] = heap[1];
    genBitlen(tree, maxCode, stree, extra, base, maxLen);
    genCodes(tree, maxCode, blCount, nextCode);
    return maxCode;
  }

  private void genBitlen(int[] tree, int maxCode, int[] stree, int[] extra, int base, int maxLen) {
    for (int bits = 0; bits <= MAX_BITS; bits++) {
      blCount[bits] = 0;
    }
    tree[heap[heapMax] * 2 + 1] = 0;
    int overflow = 0;
    int h;
    for (h = heapMax + 1; h < HEAP_SIZE; h++) {
      int n = heap[h];
      int bits = tree[tree[n * 2 + 1] * 2 + 1] + 1;
      if (bits > maxLen) {
        bits = maxLen;
        overflow++;
      }
      tree[n * 2 + 1] = bits;
      if (n > maxCode) {
        continue;
      }
      blCount[bits]++;
      int xbits = n >= base ? extra[n - base] : 0;
      int f = tree[n * 2];
      optLen += f * (bits + xbits);
      if (stree != null) {
        staticLen += f * (stree[n * 2 + 1] + xbits);
      }
    }
    if (overflow != 0) {
      repairOverflow(tree, maxCode, maxLen, overflow, h);
    }
  }

  /** Bit lengths above the maximum: zlib's repair, then all lengths recomputed by frequency. */
  private void repairOverflow(int[] tree, int maxCode, int maxLen, int overflow, int h) {
    do {
      int bits = maxLen - 1;
      while (blCount[bits] == 0) {
        bits--;
      }
      blCount[bits]--;
      blCount[bits + 1] += 2;
      blCount[maxLen]--;
      overflow -= 2;
    } while (overflow > 0);
    for (int bits = maxLen; bits != 0; bits--) {
      int n = blCount[bits];
      while (n != 0) {
        int m = heap[--h];
        if (m > maxCode) {
          continue;
        }
        if (tree[m * 2 + 1] != bits) {
          optLen += (bits - tree[m * 2 + 1]) * tree[m * 2];
          tree[m * 2 + 1] = bits;
        }
        n--;
      }
    }
  }

  // ---- the bit-length tree (zlib's scan_tree, send_tree, build_bl_tree, send_all_trees)

  /** Walks a tree's code lengths as runs; with {@code send} false it counts, else it sends. */
  private void walkTree(int[] tree, int maxCode, boolean send) {
    int prevlen = -1;
    int nextlen = tree[1];
    int count = 0;
    int maxCount = nextlen == 0 ? 138 : 7;
    int minCount = nextlen == 0 ? 3 : 4;
    if (!send) {
      tree[(maxCode + 1) * 2 + 1] = 0xffff;
    }
    for (int n = 0; n <= maxCode; n++) {
      int curlen = nextlen;
      nextlen = tree[(n + 1) * 2 + 1];
      if (++count < maxCount && curlen == nextlen) {
        continue;
      } else if (count < minCount) {
        if (send) {
          do {
            sendCode(curlen, blTree);
          } while (--count != 0);
        } else {
          blTree[curlen * 2] += count;
        }
      } else if (curlen != 0) {
        if (curlen != prevlen) {
          if (send) {
            sendCode(curlen, blTree);
            count--;
          } else {
            blTree[curlen * 2]++;
          }
        }
        run(send, REP_3_6, count - 3, 2);
      } else if (count <= 10) {
        run(send, REPZ_3_10, count - 3, 3);
      } else {
        run(send, REPZ_11_138, count - 11, 7);
      }
      count = 0;
      prevlen = curlen;
      maxCount = nextlen == 0 ? 138 : curlen == nextlen ? 6 : 7;
      minCount = nextlen == 0 || curlen == nextlen ? 3 : 4;
    }
  }

  private void run(boolean send, int code, int value, int bits) {
    if (send) {
      sendCode(code, blTree);
      sendBits(value, bits);
    } else {
      blTree[code * 2]++;
    }
  }

  private int buildBlTree() {
    walkTree(dynLtree, lMaxCode, false);
    walkTree(dynDtree, dMaxCode, false);
    buildTree(blTree, null, EXTRA_BLBITS, 0, BL_CODES, MAX_BL_BITS);
    int maxBlindex;
    for (maxBlindex = BL_CODES - 1; maxBlindex >= 3; maxBlindex--) {
      if (blTree[BL_ORDER[maxBlindex] * 2 + 1] != 0) {
        break;
      }
    }
    optLen += 3 * (maxBlindex + 1) + 5 + 5 + 4;
    return maxBlindex;
  }

  private void sendAllTrees(int lcodes, int dcodes, int blcodes) {
    sendBits(lcodes - 257, 5);
    sendBits(dcodes - 1, 5);
    sendBits(blcodes - 4, 4);
    for (int rank = 0; rank < blcodes; rank++) {
      sendBits(blTree[BL_ORDER[rank] * 2 + 1], 3);
    }
    walkTree(dynLtree, lcodes - 1, true);
    walkTree(dynDtree, dcodes - 1, true);
  }
}
