package dev.apkrelay.client.android;

import android.app.Activity;
import dev.apkrelay.client.core.Engine;
import java.lang.ref.WeakReference;

/**
 * What the manifest components (receivers, provider) need of the running library: the engine
 * {@code Client.start} built and the current activity. Both null before start, or in a process
 * where start was not called.
 */
public final class Running {
  private Running() {}

  private static volatile Engine engine;
  private static volatile WeakReference<Activity> activity = new WeakReference<>(null);

  public static void engine(Engine e) {
    engine = e;
  }

  public static Engine engine() {
    return engine;
  }

  public static void activity(Activity a) {
    activity = new WeakReference<>(a);
  }

  /** The activity last given to Client.setCurrentActivity, if it is alive and not finishing. */
  public static Activity activity() {
    Activity a = activity.get();
    return a == null || a.isFinishing() || a.isDestroyed() ? null : a;
  }
}
