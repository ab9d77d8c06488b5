package dev.apkrelay.client.android;

import android.app.Activity;
import android.content.Intent;
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
  private static volatile Intent heldConfirmation;

  public static void engine(Engine e) {
    engine = e;
  }

  public static Engine engine() {
    return engine;
  }

  public static void activity(Activity a) {
    activity = new WeakReference<>(a);
  }

  /**
   * The installer's confirmation screen, held when it could be neither started (no current
   * activity) nor posted (notifications not allowed): {@link #showHeldConfirmation} starts it.
   */
  public static void holdConfirmation(Intent confirm) {
    heldConfirmation = confirm;
  }

  /** Starts a held confirmation from {@code current} (Client.setCurrentActivity); true if it did. */
  public static boolean showHeldConfirmation(Activity current) {
    Intent confirm = heldConfirmation;
    if (confirm == null || current == null) return false;
    heldConfirmation = null;
    current.startActivity(confirm);
    return true;
  }

  /** The activity last given to Client.setCurrentActivity, if it is alive and not finishing. */
  public static Activity activity() {
    Activity a = activity.get();
    return a == null || a.isFinishing() || a.isDestroyed() ? null : a;
  }
}
