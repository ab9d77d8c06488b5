package dev.apkrelay.client.core.delta;

import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.Deflater;

/**
 * Test-only {@link Recompressor} over the JDK's Deflater (Debian's zlib 1.2.13 here, the library
 * the delta contract names): raw deflate at the given level and strategy 0-2. The JDK has no
 * memLevel or windowBits setting (always 8 and 15) nor strategies 3-4: those are refused. The
 * library's own deflater is compared with it (RawDeflaterStreamTest); the applier's tests use it
 * as an independent zlib 1.2.13.
 */
public final class JdkRecompressor implements Recompressor {
  @Override
  public OutputStream open(OutputStream sink, int level, int strategy, int memLevel, int windowBits) throws IOException {
    if (strategy > 2 || memLevel != 8 || windowBits != 15) {
      throw new IOException("the JDK's Deflater cannot do strategy " + strategy + ", memLevel " + memLevel
          + ", windowBits " + windowBits);
    }
    Deflater d = new Deflater(level, true);
    d.setStrategy(strategy);
    return new OutputStream() {
      private final byte[] buf = new byte[64 * 1024];

      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        d.setInput(b, off, len);
        while (!d.needsInput()) drain();
      }

      @Override
      public void close() throws IOException {
        d.finish();
        while (!d.finished()) drain();
        d.end();
      }

      private void drain() throws IOException {
        int n = d.deflate(buf, 0, buf.length, Deflater.NO_FLUSH);
        sink.write(buf, 0, n);
      }
    };
  }
}
