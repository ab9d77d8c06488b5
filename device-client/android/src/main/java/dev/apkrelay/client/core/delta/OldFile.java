package dev.apkrelay.client.core.delta;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;

/**
 * The installed APK as a delta reads it: by position, never whole (an APK may be 100 MB and the
 * heap 16 MB). {@link #open} is the file itself; the tests read byte arrays.
 */
public interface OldFile extends Closeable {
  long size() throws IOException;

  /** Reads up to {@code len} bytes at {@code pos} (0 ≤ pos < size); the count read, -1 at the end. */
  int read(long pos, byte[] buf, int off, int len) throws IOException;

  @Override
  void close() throws IOException;

  /** The file at {@code path}, read-only. */
  static OldFile open(File path) throws IOException {
    RandomAccessFile raf = new RandomAccessFile(path, "r");
    return new OldFile() {
      @Override
      public long size() throws IOException {
        return raf.length();
      }

      @Override
      public int read(long pos, byte[] buf, int off, int len) throws IOException {
        raf.seek(pos);
        return raf.read(buf, off, len);
      }

      @Override
      public void close() throws IOException {
        raf.close();
      }
    };
  }
}
