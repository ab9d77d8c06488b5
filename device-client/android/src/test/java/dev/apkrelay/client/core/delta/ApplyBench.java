package dev.apkrelay.client.core.delta;

import java.io.BufferedInputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;

/**
 * The JVM apply figures of issue 37 ("apply time and memory on the JVM at a 16 MB heap"), for
 * ops/bench/lib/jvm-apply.ts: run at -Xmx16m with groups of four arguments (format 1|2, old file,
 * patch file, the new file's SHA-256), it applies each patch as the device does (old file by
 * position, output to a temp file, ARDELTA2's dfOld in a temp file) and prints one JSON line per
 * patch: time, the heap's peak (sum of the heap pools' peaks, after a GC before the patch), the
 * max heap, and whether the SHA-256 matched. ARDELTA2 uses the bundled deflater once it is wired,
 * else the JDK's (zlib 1.2.13); the line says which.
 */
public final class ApplyBench {
  private ApplyBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args.length % 4 != 0) {
      System.err.println("usage: ApplyBench (1|2 old-file patch-file new-sha256)...");
      System.exit(2);
    }
    for (int i = 0; i < args.length; i += 4) {
      System.out.println(one(Integer.parseInt(args[i]), new File(args[i + 1]), new File(args[i + 2]), args[i + 3]));
    }
  }

  static String one(int format, File old, File patch, String sha256) throws IOException {
    Recompressor recompressor = Recompressors.bundled();
    File out = File.createTempFile("apply-bench", ".apk");
    File dfOld = File.createTempFile("apply-bench", ".dfold");
    System.gc();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) pool.resetPeakUsage();
    long started = System.nanoTime();
    DeltaApplier.Applied a;
    try (InputStream in = new BufferedInputStream(new FileInputStream(patch), 64 * 1024);
        OldFile base = OldFile.open(old);
        OutputStream sink = new FileOutputStream(out)) {
      a = format == 2 ? DeltaApplier.applyFileByFile(in, base, sink, -1, dfOld, recompressor)
          : DeltaApplier.apply(in, base, sink, -1);
    } finally {
      Files.deleteIfExists(out.toPath());
      Files.deleteIfExists(dfOld.toPath());
    }
    long ms = (System.nanoTime() - started) / 1_000_000;
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) peak += pool.getPeakUsage().getUsed();
    }
    return "{\"patch\":\"" + patch.getName().replace("\"", "") + "\",\"format\":" + format + ",\"newBytes\":" + a.size
        + ",\"ms\":" + ms + ",\"peakHeapBytes\":" + peak + ",\"maxHeapBytes\":" + Runtime.getRuntime().maxMemory()
        + ",\"recompressor\":\"" + (format == 2 ? "bundled" : "none")
        + "\",\"sha256Matches\":" + a.sha256.equals(sha256) + "}";
  }
}
