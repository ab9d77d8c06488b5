package dev.apkrelay.client.core.delta;

/** An {@link OldFile} over bytes in memory, for the tests. */
final class BytesOldFile implements OldFile {
  private final byte[] bytes;

  BytesOldFile(byte[] bytes) {
    this.bytes = bytes;
  }

  @Override
  public long size() {
    return bytes.length;
  }

  @Override
  public int read(long pos, byte[] buf, int off, int len) {
    if (pos >= bytes.length) return -1;
    int n = (int) Math.min(len, bytes.length - pos);
    System.arraycopy(bytes, (int) pos, buf, off, n);
    return n;
  }

  @Override
  public void close() {}
}
