package dev.apkrelay.client.core.deflate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * RawDeflaterStream against Python's zlib 1.2.13 where the JDK cannot be the oracle (the rle and
 * fixed strategies, memLevel 1-9, windowBits 9-15): deflate-vectors.txt, written by
 * ops/protocol/deflate-vectors.py, lists the SHA-256 of zlib's output for each input (made again
 * here from its seed) and setting; each is compressed here, fed in odd pieces, and hashed. The
 * file also records where pako 2.1.0 (the server's deflater) gives other bytes than zlib.
 */
class RawDeflaterVectorsTest {
  @Test
  void everyVectorIsByteIdenticalToZlib() throws IOException, NoSuchAlgorithmException {
    Map<String, byte[]> inputs = new HashMap<>();
    List<String> differ = new ArrayList<>();
    List<String> pakoDiffers = new ArrayList<>();
    int count = 0;
    for (String line : lines()) {
      String[] f = line.split(" ");
      String key = f[0] + " " + f[1] + " " + f[2];
      byte[] input =
          inputs.computeIfAbsent(
              key, k -> TestInputs.make(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2])));
      int[] p = new int[4];
      for (int i = 0; i < 4; i++) {
        p[i] = Integer.parseInt(f[3 + i]);
      }
      byte[] out = RawDeflaterStreamTest.ours(input, p[0], p[1], p[2], p[3], count);
      String sha = hex(MessageDigest.getInstance("SHA-256").digest(out));
      if (!sha.equals(f[7])) {
        differ.add(line);
      }
      if (f[8].equals("x")) {
        pakoDiffers.add(f[0] + " strategy " + p[1]);
      }
      count++;
    }
    assertEquals(List.of(), differ, "vectors whose output differs from zlib 1.2.13's");
    assertEquals(1314, count);
    // pako 2.1.0 measures a fixed-trees block against the dynamic trees' size before choosing a
    // stored block; zlib 1.2.13 against the static trees' size. Only there do they differ.
    for (String d : pakoDiffers) {
      assertEquals("skewed strategy 4", d, "a pako difference outside the known one");
    }
  }

  private static List<String> lines() throws IOException {
    List<String> lines = new ArrayList<>();
    try (InputStream in = RawDeflaterVectorsTest.class.getResourceAsStream("/deflate-vectors.txt");
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (!line.startsWith("#")) {
          lines.add(line);
        }
      }
    }
    return lines;
  }

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      sb.append(String.format("%02x", x));
    }
    return sb.toString();
  }
}
