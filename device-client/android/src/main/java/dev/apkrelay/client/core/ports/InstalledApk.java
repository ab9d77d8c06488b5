package dev.apkrelay.client.core.ports;

/**
 * The running app's own APK, the old file a delta patches (Android: {@code
 * ApplicationInfo.sourceDir}). A null path means unknown: no delta is asked for.
 */
public interface InstalledApk {
  /** Nullable. */
  String path();
}
