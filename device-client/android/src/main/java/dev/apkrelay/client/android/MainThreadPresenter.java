package dev.apkrelay.client.android;

import android.os.Handler;
import android.os.Looper;
import dev.apkrelay.client.core.Engine;
import dev.apkrelay.client.core.ports.Scheduler;
import dev.apkrelay.client.core.protocol.VersionEvent;
import dev.apkrelay.client.core.update.StrategyPresenter;

/**
 * Keeps the strategies' presenter on the main thread: the engine calls it from its own threads
 * (the download thread once a file is verified, the engine's thread on idle or a give-up) and the
 * activity callbacks come from the main one; the presenter's state (timers, the dialog shown, the
 * reminder) is touched by one thread only. The install itself stays on the engine's thread: it
 * copies the APK, which the main thread must not wait for.
 */
public final class MainThreadPresenter implements Engine.Presenter {
  private final Handler main;
  private final StrategyPresenter target;

  public MainThreadPresenter(Handler main, StrategyPresenter target) {
    this.main = main;
    this.target = target;
  }

  /** The presenter's timers, on the main thread's looper. */
  public static Scheduler scheduler(Handler main) {
    return (task, delayMs) -> {
      main.postDelayed(task, delayMs);
      return () -> main.removeCallbacks(task);
    };
  }

  private void onMain(Runnable r) {
    if (Looper.myLooper() == main.getLooper()) r.run();
    else main.post(r);
  }

  @Override
  public void present(VersionEvent event, String location) {
    onMain(() -> target.present(event, location));
  }

  @Override
  public void withdraw(boolean gaveUp) {
    onMain(() -> target.withdraw(gaveUp));
  }

  /** An activity became current (Client.setCurrentActivity). */
  public void activityChanged() {
    onMain(target::activityChanged);
  }

  @Override
  public void install(VersionEvent event, String location) throws Exception {
    target.install(event, location);
  }
}
