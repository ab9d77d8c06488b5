package dev.apkrelay.client.core.delta;

import dev.apkrelay.client.core.delta.DeltaException.Reason;
import dev.apkrelay.client.core.download.Downloader;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;

/**
 * The patched file as it is written: counted and hashed (MD5, SHA-256) on the way to the update's
 * file, so the result is checked against the signed notice without reading it again. A write past
 * the announced size is refused ({@code size}) before it reaches the file. Never closes the file.
 */
final class HashingOutput extends OutputStream {
  private final OutputStream out;
  private final long limit;
  private final MessageDigest md5 = digest("MD5");
  private final MessageDigest sha256 = digest("SHA-256");
  private long size;

  HashingOutput(OutputStream out, long limit) {
    this.out = out;
    this.limit = limit;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    if (len > limit - size) {
      throw new DeltaException(Reason.WRONG_SIZE, "the patched file grows past its " + limit + " bytes");
    }
    out.write(b, off, len);
    md5.update(b, off, len);
    sha256.update(b, off, len);
    size += len;
  }

  long limit() {
    return limit;
  }

  /** What was written; refused ({@code size}) when it is not the announced size. */
  DeltaApplier.Applied applied() throws DeltaException {
    if (size != limit) {
      throw new DeltaException(Reason.WRONG_SIZE, "the patched file has " + size + " bytes, not " + limit);
    }
    return new DeltaApplier.Applied(size, Downloader.hex(md5.digest()), Downloader.hex(sha256.digest()));
  }

  private static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is missing from this platform", e);
    }
  }
}
