package dev.apkrelay.client.core.delta;

/**
 * The library's own {@link Recompressor}: the bundled pure-Java deflater with zlib 1.2.13's
 * algorithm ({@code dev.apkrelay.client.core.deflate}, issue 37), the one ARDELTA2 patches are
 * made for. Until it is wired it throws, and ARDELTA2 is not asked for.
 */
public final class Recompressors {
  private Recompressors() {}

  public static Recompressor bundled() {
    // MERGE (issue 37): return RawDeflaterStream::new;  (dev.apkrelay.client.core.deflate)
    throw new UnsupportedOperationException("wired at merge");
  }
}
