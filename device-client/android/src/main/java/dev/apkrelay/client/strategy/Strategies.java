package dev.apkrelay.client.strategy;

/**
 * The current strategy and one object per strategy, kept across switches so customisations
 * survive them ({@code setCurrentStrategy} / {@code getCurrentStrategy} of spec 4.4). Thread-safe.
 */
public final class Strategies {
  private final StatusBarStrategy statusBar = new StatusBarStrategy();
  private final FriendlyPopUpStrategy friendly = new FriendlyPopUpStrategy();
  private final AnnoyingPopUpStrategy annoying = new AnnoyingPopUpStrategy();
  private final CustomStrategy custom = new CustomStrategy();
  private volatile Strategy current = Strategy.STATUS_BAR;

  public void set(Strategy strategy) {
    if (strategy == null) throw new IllegalArgumentException("strategy must not be null");
    current = strategy;
  }

  public Strategy name() {
    return current;
  }

  /** The current strategy's object: cast it to the class of {@link #name()} to customise it. */
  public Object current() {
    switch (current) {
      case FRIENDLY_POPUP: return friendly;
      case ANNOYING_POPUP: return annoying;
      case CUSTOM: return custom;
      default: return statusBar;
    }
  }

  public StatusBarStrategy statusBar() {
    return statusBar;
  }

  public FriendlyPopUpStrategy friendlyPopUp() {
    return friendly;
  }

  public AnnoyingPopUpStrategy annoyingPopUp() {
    return annoying;
  }
}
