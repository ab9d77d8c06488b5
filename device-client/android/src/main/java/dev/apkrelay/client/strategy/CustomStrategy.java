package dev.apkrelay.client.strategy;

/** CUSTOM (spec 4.4, 6): no texts; the app's code-registered receivers act on the broadcasts. */
public final class CustomStrategy {
  /** The APPLY action for {@code appPackage}, with the extra {@code uri}, about every 30 s. */
  public static String applyAction(String appPackage) {
    return appPackage + ".svc.APPLY";
  }

  /** The GIVEUP action for {@code appPackage}, sent once when an update is withdrawn. */
  public static String giveupAction(String appPackage) {
    return appPackage + ".svc.GIVEUP";
  }

  public static final String EXTRA_URI = "uri";
  public static final long APPLY_PERIOD_MS = 30_000;
}
