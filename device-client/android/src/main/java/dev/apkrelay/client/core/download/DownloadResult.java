package dev.apkrelay.client.core.download;

/** The outcome of one download attempt, as device-client/core/download.ts names them. */
public final class DownloadResult {
  public enum Kind {
    /** Complete, and size, MD5 and SHA-256 match the signed event. */
    VERIFIED,
    /** The complete file does not match the event (or is longer): it was deleted. */
    TAMPERED,
    /** Network failure, early end or a refusal: what was written is kept for a resume. */
    FAILED
  }

  public final Kind kind;
  /** Null when verified. */
  public final String reason;
  /** The HTTP status of a refusal, else 0. */
  public final int status;

  private DownloadResult(Kind kind, String reason, int status) {
    this.kind = kind;
    this.reason = reason;
    this.status = status;
  }

  /** Also a patch applied and checked against the signed notice (core.delta). */
  public static DownloadResult verified() {
    return new DownloadResult(Kind.VERIFIED, null, 0);
  }

  static DownloadResult tampered(String reason) {
    return new DownloadResult(Kind.TAMPERED, reason, 0);
  }

  static DownloadResult failed(String reason, int status) {
    return new DownloadResult(Kind.FAILED, reason, status);
  }

  @Override
  public String toString() {
    return kind + (reason == null ? "" : " (" + reason + ")");
  }
}
