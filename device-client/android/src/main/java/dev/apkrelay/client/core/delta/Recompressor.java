package dev.apkrelay.client.core.delta;

import java.io.IOException;
import java.io.OutputStream;

/**
 * How an ARDELTA2 patch's new ranges are deflated again (the delta contract: zlib 1.2.13's
 * algorithm, byte for byte, or the APK's signature breaks). A port so that the core names no
 * deflater: the library bundles its own ({@link Recompressors#bundled}); Android's platform
 * Deflater is never one (Android 11+ ships Chromium's zlib, whose output differs).
 */
public interface Recompressor {
  /** Opens a raw-deflate stream with zlib 1.2.13's algorithm over the sink; closing it finishes the deflate stream without closing the sink. */
  OutputStream open(OutputStream sink, int level, int strategy, int memLevel, int windowBits) throws IOException;
}
