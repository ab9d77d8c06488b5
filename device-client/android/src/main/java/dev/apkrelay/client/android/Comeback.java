package dev.apkrelay.client.android;

import android.content.Context;
import android.net.ConnectivityManager;
import android.net.Network;
import dev.apkrelay.client.core.Engine;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Logger.Level;

/**
 * What {@code Client.start} sets up so the library comes back by itself: the periodic
 * {@link KeepAliveJob} (after a reboot, a killed or frozen process, a stream that is down), and a
 * default-network callback that wakes the engine the moment a network is available, instead of
 * waiting out the reconnect backoff. The receivers of the manifest ({@link ComebackReceiver}) do
 * the rest.
 */
public final class Comeback {
  private Comeback() {}

  /** The callback registered for this process (kept so a test can fire it); null before start. */
  static volatile ConnectivityManager.NetworkCallback callback;

  public static void register(Context context, Engine engine, Logger logger) {
    try {
      KeepAliveJob.schedule(context);
    } catch (RuntimeException e) { // a JobScheduler refusing (too many jobs, a missing service)
      logger.log(Level.WARN, "the periodic check was not scheduled: " + e);
    }
    ConnectivityManager cm = (ConnectivityManager) context.getSystemService(Context.CONNECTIVITY_SERVICE);
    if (cm == null) return;
    ConnectivityManager.NetworkCallback cb = new ConnectivityManager.NetworkCallback() {
      @Override
      public void onAvailable(Network network) {
        engine.wake();
      }
    };
    try {
      cm.registerDefaultNetworkCallback(cb);
      callback = cb;
    } catch (RuntimeException e) { // SecurityException without ACCESS_NETWORK_STATE
      logger.log(Level.WARN, "no network callback: " + e);
    }
  }
}
