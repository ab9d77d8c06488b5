package dev.apkrelay.client.core.deflate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;

/**
 * RawDeflaterStream against the JDK's Deflater (which links Debian's zlib 1.2.13): byte-identical
 * raw deflate at every level 0-9 with the three strategies the JDK sets (default, filtered,
 * huffman-only; memLevel 8, windowBits 15), over inputs around the window and buffer sizes, fed
 * in odd pieces. The JDK is driven one-shot (all the input, room for all the output), the use
 * that pins zlib's level 0 (see Stored).
 */
class RawDeflaterStreamTest {
  private static final int[] PIECES = {1, 7, 4093, 65537, 13, 32768, 100003};

  /** The table of inputs: name, bytes. */
  static List<Object[]> inputs() {
    List<Object[]> list = new ArrayList<>();
    list.add(new Object[] {"empty", new byte[0]});
    list.add(new Object[] {"one byte", new byte[] {'a'}});
    for (int size : new int[] {258, 32767, 32768, 32769, 65535, 65536, 65537, 131071}) {
      list.add(new Object[] {"text " + size, TestInputs.make("text", size, size)});
    }
    list.add(new Object[] {"zeros 300000", TestInputs.make("zeros", 0, 300_000)});
    list.add(new Object[] {"random 70000", TestInputs.make("random", 1, 70_000)});
    list.add(new Object[] {"skewed 50000", TestInputs.make("skewed", 2, 50_000)});
    list.add(new Object[] {"runs 200000", TestInputs.make("runs", 3, 200_000)});
    list.add(new Object[] {"random 65535 x2", twice(TestInputs.make("random", 4, 65_535))});
    list.add(new Object[] {"mixed 3 MB", TestInputs.make("mixed", 5, 3 << 20)});
    // zlib's lazy levels drop a 3-byte match more than 4096 bytes back (TOO_FAR): plant some
    // exactly 4096 back (kept) and 4097 back (dropped) in bytes that otherwise barely match.
    byte[] planted = TestInputs.make("random", 7, 100_000);
    for (int p = 0; p + 4097 + 3 < planted.length; p += 5000) {
      System.arraycopy(planted, p, planted, p + 4096 + (p / 5000) % 2, 3);
    }
    list.add(new Object[] {"random, 3-byte repeats 4096 and 4097 back", planted});
    return list;
  }

  private static byte[] twice(byte[] b) {
    byte[] out = Arrays.copyOf(b, b.length * 2);
    System.arraycopy(b, 0, out, b.length, b.length);
    return out;
  }

  static byte[] jdk(byte[] input, int level, int strategy) {
    return DeflateIdentity.jdk(input, level, strategy);
  }

  /** RawDeflaterStream fed in pieces of the given sizes, in turn, starting at piece {@code k}. */
  static byte[] ours(byte[] input, int level, int strategy, int memLevel, int windowBits, int k)
      throws IOException {
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    RawDeflaterStream z = new RawDeflaterStream(sink, level, strategy, memLevel, windowBits);
    for (int off = 0; off < input.length; k++) {
      int n = Math.min(PIECES[k % PIECES.length], input.length - off);
      if (n == 1) {
        z.write(input[off] & 0xff);
      } else {
        z.write(input, off, n);
      }
      off += n;
    }
    z.close();
    return sink.toByteArray();
  }

  private static final int[] JDK_STRATEGIES = {
    Deflater.DEFAULT_STRATEGY, Deflater.FILTERED, Deflater.HUFFMAN_ONLY
  };

  @Test
  void everyLevelAndJdkStrategyIsByteIdenticalToTheJdk() throws IOException {
    List<String> differ = new ArrayList<>();
    int compared = 0;
    for (Object[] in : inputs()) {
      byte[] input = (byte[]) in[1];
      for (int level = 0; level <= 9; level++) {
        for (int strategy : JDK_STRATEGIES) {
          byte[] expected = jdk(input, level, strategy);
          byte[] actual = ours(input, level, strategy, 8, 15, level + strategy);
          compared++;
          if (!Arrays.equals(expected, actual)) {
            differ.add(in[0] + " level " + level + " strategy " + strategy);
          }
        }
      }
    }
    assertEquals(List.of(), differ, "settings that differ from the JDK's zlib");
    assertEquals(inputs().size() * 30, compared);
  }

  @Test
  void levelZeroIsZlibsOneShotWhateverTheMemLevelAndWindow() throws IOException {
    byte[] input = TestInputs.make("random", 6, 200_000);
    byte[] expected = jdk(input, 0, Deflater.DEFAULT_STRATEGY);
    // One-shot zlib: stored blocks of 65,535 bytes, the last shorter (3 + 1 block headers).
    assertEquals(200_000 + 4 * 5, expected.length);
    assertArrayEquals(expected, ours(input, 0, 0, 1, 9, 0));
    assertArrayEquals(expected, ours(input, 0, 4, 9, 12, 3));
  }

  @Test
  void anEmptyInputIsOneFinalBlock() throws IOException {
    // RFC 1951 by hand: a final static-trees block holding only end-of-block (03 00); at level 0
    // a final stored block of length 0 (01 00 00 ff ff).
    assertArrayEquals(new byte[] {3, 0}, ours(new byte[0], 6, 0, 8, 15, 0));
    assertArrayEquals(
        new byte[] {1, 0, 0, (byte) 0xff, (byte) 0xff}, ours(new byte[0], 0, 0, 8, 15, 0));
  }

  @Test
  void parametersOutsideTheirSetsAreRefused() {
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    int[][] bad = {{-1, 0, 8, 15}, {10, 0, 8, 15}, {6, -1, 8, 15}, {6, 5, 8, 15}, {6, 0, 0, 15},
      {6, 0, 10, 15}, {6, 0, 8, 8}, {6, 0, 8, 16}};
    String[] words = {"level", "level", "strategy", "strategy", "memLevel", "memLevel",
      "windowBits", "windowBits"};
    for (int i = 0; i < bad.length; i++) {
      int[] p = bad[i];
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> new RawDeflaterStream(sink, p[0], p[1], p[2], p[3]),
              Arrays.toString(p));
      assertEquals(true, e.getMessage().startsWith(words[i] + " must be "), e.getMessage());
    }
  }

  @Test
  void closeEndsTheStreamOnceAndLeavesTheSinkOpen() throws IOException {
    boolean[] sinkClosed = {false};
    ByteArrayOutputStream sink =
        new ByteArrayOutputStream() {
          @Override
          public void close() {
            sinkClosed[0] = true;
          }
        };
    RawDeflaterStream z = new RawDeflaterStream(sink, 6, 0, 8, 15);
    z.write(new byte[] {'a', 'b', 'c'}, 0, 3);
    z.close();
    z.close();
    assertArrayEquals(jdk(new byte[] {'a', 'b', 'c'}, 6, 0), sink.toByteArray());
    assertEquals(false, sinkClosed[0]);
    assertThrows(IOException.class, () -> z.write(1));
  }
}
