package dev.apkrelay.client.core.update;

import dev.apkrelay.client.core.protocol.VersionEvent;

/** The glue's side of an update: strategies' UI and broadcasts, and the installer. Called on worker threads. */
public interface UpdatePresenter {
  /** A verified update is downloaded, not applied, and idle is true: act per strategy. */
  void present(VersionEvent event, String location);

  /** Withdraw notification and popups, stop APPLY; {@code gaveUp}: send GIVEUP once (CUSTOM). */
  void withdraw(boolean gaveUp);

  /** Hand the verified file to the OS; throw with the OS's status and message on failure. */
  void install(VersionEvent event, String location) throws Exception;
}
