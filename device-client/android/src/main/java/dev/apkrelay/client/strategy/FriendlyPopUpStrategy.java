package dev.apkrelay.client.strategy;

/** FRIENDLY_POPUP's texts and reminder (spec 4.4, 8): "Not Now" / "Update", 3 hours. */
public final class FriendlyPopUpStrategy {
  public static final String DEFAULT_NOT_NOW = "Not Now";
  public static final String DEFAULT_UPDATE = "Update";
  public static final int DEFAULT_REMINDER_SECONDS = 3 * 60 * 60;
  private String message;
  private String notNow = DEFAULT_NOT_NOW;
  private String update = DEFAULT_UPDATE;
  private int reminderSeconds = DEFAULT_REMINDER_SECONDS;

  public void setPopUpMessage(String message) {
    this.message = Texts.nonEmpty(message, "popup message");
  }

  public void setNotNowButton(String label) {
    this.notNow = Texts.nonEmpty(label, "Not Now button");
  }

  public void setUpdateButton(String label) {
    this.update = Texts.nonEmpty(label, "Update button");
  }

  public void setReminderTimeInSeconds(int seconds) {
    if (seconds < 1) throw new IllegalArgumentException("reminder time must be at least 1 second");
    this.reminderSeconds = seconds;
  }

  public String getPopUpMessage(String appName) {
    return message != null ? message
        : "A new version of " + appName + " is available. Do you want to update now?";
  }

  public String getNotNowButton() {
    return notNow;
  }

  public String getUpdateButton() {
    return update;
  }

  public int getReminderTimeInSeconds() {
    return reminderSeconds;
  }
}
