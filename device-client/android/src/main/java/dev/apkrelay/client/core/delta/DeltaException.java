package dev.apkrelay.client.core.delta;

import java.io.IOException;

/**
 * A patch refused by {@link DeltaApplier}: the ARDELTA1 and ARDELTA2 rules of the delta contract (issue 37),
 * each with a stable reason code, the word the shared vectors (and the TS applier) use. Nothing
 * written by a refused patch is ever installed.
 */
public final class DeltaException extends IOException {
  private static final long serialVersionUID = 1L;

  /** Why the patch was refused; {@link #code} is the stable word logs and tests name. */
  public enum Reason {
    /** The inflated bytes do not start with {@code ARDELTA1}. */
    BAD_MAGIC("magic"),
    /** The new size is not the notice's (the device's own check), or ARDELTA2's final file is not its new size. */
    WRONG_SIZE("size"),
    /** A record would write past the new size (or the new size is beyond any file). */
    PAST_END("overrun"),
    /** The stream ends before the new size is reached. */
    TRUNCATED("truncated"),
    /** Bytes follow the last record (or the zlib stream). */
    TRAILING("trailing"),
    /** The zlib stream is corrupt (bad header, bad block, bad Adler-32). */
    CORRUPT("corrupt"),
    /** The old position leaves [-2^62, 2^62]. */
    SEEK_RANGE("seek"),
    /** ARDELTA2: the plan breaks its limits, or an old range does not inflate exactly as announced. */
    PLAN("plan");

    public final String code;

    Reason(String code) {
      this.code = code;
    }
  }

  public final Reason reason;

  public DeltaException(Reason reason, String message) {
    super(reason.code + ": " + message);
    this.reason = reason;
  }
}
