package dev.apkrelay.client.core.deflate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Deterministic test inputs for the deflater, generated from a seed by a 31-bit LCG that
 * ops/protocol/deflate-vectors.py repeats exactly, so that Python's zlib (the oracle for the
 * settings the JDK cannot set) and these tests compress the same bytes. Kinds: zeros, random
 * bytes, skewed bytes (0-199 only: the dynamic trees beat stored, the static ones lose), text
 * (words from a small list), runs (a byte repeated 1-300 times) and mixed (64 KB stretches of
 * text, runs, random and zeros, in turn).
 */
final class TestInputs {
  private static final String[] WORDS = {
    "the ", "apk ", "update ", "device ", "fleet ", "delta ", "patch ", "android ", "zlib ",
    "deflate ", "window ", "match ", "\n", "class ", "void ", "return ", "int ", "0x1f ", "{ ", "} "
  };

  private static final String[] MIXED = {"text", "runs", "random", "zeros"};

  /** Takes one piece of a streamed input. */
  interface Pieces {
    void take(byte[] piece, int len) throws IOException;
  }

  private int x;

  private TestInputs(int seed) {
    x = seed & 0x7fffffff;
  }

  private int next() {
    x = (int) ((x * 1103515245L + 12345L) & 0x7fffffffL);
    return x >>> 16;
  }

  static byte[] make(String kind, int seed, int size) {
    TestInputs g = new TestInputs(seed);
    byte[] out = new byte[size];
    g.fill(kind, out, 0, size);
    return out;
  }

  /** The "mixed" input in its 64 KB stretches, for sizes a small heap cannot hold at once. */
  static void mixedPieces(int seed, int size, Pieces sink) throws IOException {
    TestInputs g = new TestInputs(seed);
    byte[] piece = new byte[65536];
    for (int i = 0, k = 0; i < size; i += 65536, k++) {
      int n = Math.min(65536, size - i);
      Arrays.fill(piece, (byte) 0);
      g.fill(MIXED[k % 4], piece, 0, n);
      sink.take(piece, n);
    }
  }

  private void fill(String kind, byte[] out, int from, int to) {
    switch (kind) {
      case "zeros":
        break;
      case "random":
        for (int i = from; i < to; i++) {
          out[i] = (byte) next();
        }
        break;
      case "skewed":
        for (int i = from; i < to; i++) {
          out[i] = (byte) (next() % 200);
        }
        break;
      case "text":
        for (int i = from; i < to; ) {
          byte[] w = WORDS[next() % WORDS.length].getBytes(StandardCharsets.US_ASCII);
          for (int j = 0; j < w.length && i < to; j++) {
            out[i++] = w[j];
          }
        }
        break;
      case "runs":
        for (int i = from; i < to; ) {
          byte b = (byte) next();
          for (int n = 1 + next() % 300; n > 0 && i < to; n--) {
            out[i++] = b;
          }
        }
        break;
      case "mixed":
        for (int i = from, k = 0; i < to; i += 65536, k++) {
          fill(MIXED[k % 4], out, i, Math.min(to, i + 65536));
        }
        break;
      default:
        throw new IllegalArgumentException(kind);
    }
  }
}
