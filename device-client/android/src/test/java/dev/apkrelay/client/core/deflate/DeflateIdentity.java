package dev.apkrelay.client.core.deflate;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The corpus check of the bundled deflater (issue 37): every deflated entry of the given APKs is
 * inflated, then compressed by RawDeflaterStream and by the JDK's Deflater (Debian's zlib
 * 1.2.13, one-shot) at every level 0-9 with each strategy the JDK sets (default, filtered,
 * huffman-only), and the two outputs compared byte for byte; both are timed. Used by
 * RawDeflaterCorpusTest and, as a main class on the test class path, by `npm run bench:deflate`
 * (ops/bench/deflate-identity.ts): {@code java -cp target/classes:target/test-classes
 * dev.apkrelay.client.core.deflate.DeflateIdentity <apk or directory>...}; exit status 1 when any
 * pair differs.
 */
public final class DeflateIdentity {
  private static final int[] STRATEGIES = {
    Deflater.DEFAULT_STRATEGY, Deflater.FILTERED, Deflater.HUFFMAN_ONLY
  };

  /** The counts and times of one run. */
  public static final class Result {
    int apks;
    int entries;
    int pairs;
    int identical;
    long inflatedBytes;
    long oursNanos;
    long jdkNanos;
    /** Entries whose stored bytes one of the settings reproduces (informational). */
    int reproduced;
    final List<String> differences = new ArrayList<>();
    /** Files that are not readable ZIPs (some fixtures are malformed on purpose), with why. */
    final List<String> unreadable = new ArrayList<>();

    String summary() {
      return String.format(
          "apks %d unreadable %d entries %d inflated-MB %.1f pairs %d identical %d different %d reproduced %d"
              + " ours-MBps %.1f jdk-MBps %.1f",
          apks, unreadable.size(), entries, inflatedBytes / 1e6, pairs, identical, differences.size(), reproduced,
          mbps(oursNanos), mbps(jdkNanos));
    }

    private double mbps(long nanos) {
      return nanos == 0 ? 0 : inflatedBytes * 30 / 1e6 / (nanos / 1e9);
    }
  }

  private DeflateIdentity() {}

  /** zlib 1.2.13 through the JDK, one call: all input, FINISH, an output buffer that fits all. */
  static byte[] jdk(byte[] input, int level, int strategy) {
    Deflater d = new Deflater(level, true);
    try {
      d.setStrategy(strategy);
      d.setInput(input);
      d.finish();
      byte[] out = new byte[input.length + input.length / 8 + 1024];
      // The JDK's first call after setStrategy only applies the parameters (deflateParams, no
      // output on a fresh stream); the next one compresses everything at once.
      int n = 0;
      for (int calls = 0; calls < 2 && !d.finished(); calls++) {
        n += d.deflate(out, n, out.length - n);
      }
      if (!d.finished()) {
        throw new IllegalStateException("the JDK did not compress all in one call");
      }
      return Arrays.copyOf(out, n);
    } finally {
      d.end();
    }
  }

  public static void main(String[] args) throws IOException, DataFormatException {
    List<File> apks = new ArrayList<>();
    for (String a : args) {
      collect(new File(a), apks);
    }
    Result r = check(apks);
    for (String d : r.differences.subList(0, Math.min(20, r.differences.size()))) {
      System.out.println("different: " + d);
    }
    System.out.println(r.summary());
    System.exit(r.differences.isEmpty() ? 0 : 1);
  }

  /** The .apk files at or under {@code f}, in name order. */
  static void collect(File f, List<File> into) {
    if (f.isDirectory()) {
      File[] children = f.listFiles();
      Arrays.sort(children);
      for (File c : children) {
        collect(c, into);
      }
    } else if (f.getName().endsWith(".apk")) {
      into.add(f);
    }
  }

  static Result check(List<File> apks) throws IOException, DataFormatException {
    Result r = new Result();
    for (File apk : apks) {
      r.apks++;
      List<Object[]> entries;
      try {
        entries = deflatedEntries(apk);
      } catch (IOException | RuntimeException e) {
        r.unreadable.add(apk + ": " + e);
        continue;
      }
      for (Object[] e : entries) {
        checkEntry(apk.getName() + "!" + e[0], (byte[]) e[1], (int) e[2], r);
      }
    }
    return r;
  }

  private static void checkEntry(String name, byte[] stored, int size, Result r)
      throws IOException, DataFormatException {
    byte[] data = inflate(stored, size);
    r.entries++;
    r.inflatedBytes += data.length;
    boolean reproduced = false;
    for (int level = 0; level <= 9; level++) {
      for (int strategy : STRATEGIES) {
        long t0 = System.nanoTime();
        byte[] jdk = jdk(data, level, strategy);
        long t1 = System.nanoTime();
        ByteArrayOutputStream sink = new ByteArrayOutputStream(jdk.length);
        try (RawDeflaterStream z = new RawDeflaterStream(sink, level, strategy, 8, 15)) {
          z.write(data, 0, data.length);
        }
        byte[] ours = sink.toByteArray();
        long t2 = System.nanoTime();
        r.jdkNanos += t1 - t0;
        r.oursNanos += t2 - t1;
        r.pairs++;
        if (Arrays.equals(jdk, ours)) {
          r.identical++;
        } else {
          r.differences.add(name + " level " + level + " strategy " + strategy);
        }
        reproduced |= Arrays.equals(stored, ours);
      }
    }
    r.reproduced += reproduced ? 1 : 0;
  }

  private static byte[] inflate(byte[] stored, int size) throws DataFormatException {
    Inflater inf = new Inflater(true);
    try {
      inf.setInput(stored);
      byte[] out = new byte[size];
      int n = 0;
      while (n < size && !inf.finished()) {
        int k = inf.inflate(out, n, size - n);
        if (k == 0 && (inf.needsInput() || inf.needsDictionary())) {
          throw new DataFormatException("truncated entry");
        }
        n += k;
      }
      return out;
    } finally {
      inf.end();
    }
  }

  /** {name, compressed bytes, inflated size} of every method-8 entry, from the central directory. */
  static List<Object[]> deflatedEntries(File apk) throws IOException {
    List<Object[]> list = new ArrayList<>();
    try (RandomAccessFile f = new RandomAccessFile(apk, "r")) {
      ByteBuffer eocd = endOfCentralDirectory(f);
      int count = eocd.getShort(10) & 0xffff;
      long cdOffset = eocd.getInt(16) & 0xffffffffL;
      ByteBuffer cd = read(f, cdOffset, (int) (eocd.getInt(12) & 0xffffffffL));
      for (int i = 0, p = 0; i < count; i++) {
        int nameLen = cd.getShort(p + 28) & 0xffff;
        int skip = 46 + nameLen + (cd.getShort(p + 30) & 0xffff) + (cd.getShort(p + 32) & 0xffff);
        if (cd.getShort(p + 10) == 8) {
          String name = new String(cd.array(), p + 46, nameLen, StandardCharsets.UTF_8);
          int csize = cd.getInt(p + 20);
          long local = cd.getInt(p + 42) & 0xffffffffL;
          ByteBuffer lh = read(f, local, 30);
          long data = local + 30 + (lh.getShort(26) & 0xffff) + (lh.getShort(28) & 0xffff);
          list.add(new Object[] {name, read(f, data, csize).array(), cd.getInt(p + 24)});
        }
        p += skip;
      }
    }
    return list;
  }

  private static ByteBuffer endOfCentralDirectory(RandomAccessFile f) throws IOException {
    int tail = (int) Math.min(f.length(), 65535 + 22);
    ByteBuffer b = read(f, f.length() - tail, tail);
    for (int p = tail - 22; p >= 0; p--) {
      if (b.getInt(p) == 0x06054b50) {
        return read(f, f.length() - tail + p, 22);
      }
    }
    throw new IOException("no end of central directory");
  }

  private static ByteBuffer read(RandomAccessFile f, long pos, int len) throws IOException {
    byte[] b = new byte[len];
    f.seek(pos);
    f.readFully(b);
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
  }
}
