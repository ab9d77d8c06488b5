package dev.apkrelay.client.strategy;

/** STATUS_BAR's texts (spec 4.4): title "New version of &lt;app_name&gt;", "Click to Update". */
public final class StatusBarStrategy {
  public static final String DEFAULT_DESCRIPTION = "Click to Update";
  private String title;
  private String description = DEFAULT_DESCRIPTION;

  public void setStatusBarTitle(String title) {
    this.title = Texts.nonEmpty(title, "status bar title");
  }

  public void setStatusBarDescription(String description) {
    this.description = Texts.nonEmpty(description, "status bar description");
  }

  public String getStatusBarTitle(String appName) {
    return title != null ? title : "New version of " + appName;
  }

  public String getStatusBarDescription() {
    return description;
  }
}
