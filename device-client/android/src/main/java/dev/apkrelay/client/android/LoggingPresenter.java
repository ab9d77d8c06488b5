package dev.apkrelay.client.android;

import android.util.Log;
import dev.apkrelay.client.core.Engine;
import dev.apkrelay.client.core.protocol.VersionEvent;

/**
 * A stand-in until the strategies' Android presenters exist (notification channel, popups, APPLY /
 * GIVEUP broadcasts, PackageInstaller session): it logs what would be shown and refuses to install.
 */
public final class LoggingPresenter implements Engine.Presenter {
  @Override
  public void present(VersionEvent event, String location) {
    Log.i(AndroidLogger.TAG, "update " + event.md5 + " (versionCode " + event.versionCode
        + ") downloaded and verified at " + location + "; presentation not implemented yet");
  }

  @Override
  public void withdraw(boolean gaveUp) {
    if (gaveUp) Log.i(AndroidLogger.TAG, "update withdrawn by the administrator");
  }

  @Override
  public void install(VersionEvent event, String location) throws Exception {
    throw new UnsupportedOperationException("installation through PackageInstaller is not implemented yet");
  }
}
