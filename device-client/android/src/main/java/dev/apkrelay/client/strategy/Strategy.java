package dev.apkrelay.client.strategy;

/** The update strategies of spec section 4.4; STATUS_BAR is the default. */
public enum Strategy {
  /** A notification "New version of &lt;app_name&gt;" / "Click to Update" until installation. */
  STATUS_BAR,
  /** A popup with Not Now and Update; back is blocked; asks again after the reminder time. */
  FRIENDLY_POPUP,
  /** A popup with one Update button that cannot be dismissed. */
  ANNOYING_POPUP,
  /** Nothing shown: {@code <app_package>.svc.APPLY} every ~30 s, {@code .svc.GIVEUP} once. */
  CUSTOM
}
