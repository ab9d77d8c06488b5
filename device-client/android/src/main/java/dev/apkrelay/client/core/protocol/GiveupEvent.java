package dev.apkrelay.client.core.protocol;

/** A verified {@code giveup} notice: the administrator withdrew the update {@code apkId}. */
public final class GiveupEvent {
  public final String packageName;
  public final String apkId;
  /** Nullable. */
  public final String md5;

  public GiveupEvent(String packageName, String apkId, String md5) {
    this.packageName = packageName;
    this.apkId = apkId;
    this.md5 = md5;
  }
}
