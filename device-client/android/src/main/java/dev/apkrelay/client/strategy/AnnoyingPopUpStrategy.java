package dev.apkrelay.client.strategy;

/** ANNOYING_POPUP's texts (spec 4.4): an update needed for security reasons, one Update button. */
public final class AnnoyingPopUpStrategy {
  private String message;
  private String update = FriendlyPopUpStrategy.DEFAULT_UPDATE;

  public void setPopUpMessage(String message) {
    this.message = Texts.nonEmpty(message, "popup message");
  }

  public void setUpdateButton(String label) {
    this.update = Texts.nonEmpty(label, "Update button");
  }

  public String getPopUpMessage(String appName) {
    return message != null ? message
        : appName + " needs to be updated for security reasons. Please update now.";
  }

  public String getUpdateButton() {
    return update;
  }
}
