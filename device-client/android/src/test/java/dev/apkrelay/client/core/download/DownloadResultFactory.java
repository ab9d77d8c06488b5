package dev.apkrelay.client.core.download;

/** Test access to the package-private factories of {@link DownloadResult}. */
public final class DownloadResultFactory {
  private DownloadResultFactory() {}

  public static DownloadResult verified() {
    return DownloadResult.verified();
  }

  public static DownloadResult tampered(String reason) {
    return DownloadResult.tampered(reason);
  }

  public static DownloadResult failed(String reason) {
    return DownloadResult.failed(reason, 0);
  }
}
