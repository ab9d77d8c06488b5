package dev.apkrelay.client.core.protocol;

/**
 * Who this device is, as format 2 notices address it: the account id the registration reply
 * named, the app's package and this device's id. A notice names the same account and package, and
 * this device or {@code *} (every installation of the app in the account).
 */
public final class NoticeAudience {
  public final String account;
  public final String packageName;
  public final String device;

  public NoticeAudience(String account, String packageName, String device) {
    if (account == null || packageName == null || device == null) {
      throw new IllegalArgumentException("account, package and device are required");
    }
    this.account = account;
    this.packageName = packageName;
    this.device = device;
  }
}
