package dev.apkrelay.client.core.delta;

import dev.apkrelay.client.core.deflate.RawDeflaterStream;

/**
 * The library's own {@link Recompressor}: the bundled pure-Java deflater with zlib 1.2.13's
 * algorithm ({@code dev.apkrelay.client.core.deflate}, issue 37), the one ARDELTA2 patches are
 * made for.
 */
public final class Recompressors {
  private Recompressors() {}

  public static Recompressor bundled() {
    return RawDeflaterStream::new;
  }
}
