package dev.apkrelay.client.android;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.util.Log;
import dev.apkrelay.client.core.Engine;

/**
 * Brings the app back with nobody there. On {@code MY_PACKAGE_REPLACED} after the library's own
 * install (see {@link SelfUpdate}) it relaunches the app's launcher activity: a kiosk is not left
 * closed. The process this broadcast started has run {@code Application.onCreate}, so
 * {@code Client.start} has already found the new APK installed and recorded the success, which the
 * next heartbeat reports. On {@code BOOT_COMPLETED} the process start itself is the point: the
 * library connects and {@link KeepAliveJob} is scheduled again. Not exported: both broadcasts come
 * from the system, which reaches unexported receivers.
 *
 * <p>Starting an activity from a receiver is allowed to a device owner and on API 26–28; from 29 an
 * ordinary app in the background is refused by the OS (docs/android-kiosk.md), and only the
 * library's connection comes back.
 */
public final class ComebackReceiver extends BroadcastReceiver {
  @Override
  public void onReceive(Context context, Intent intent) {
    String action = intent.getAction();
    Engine engine = Running.engine();
    if (engine != null) engine.wake();
    if (Intent.ACTION_MY_PACKAGE_REPLACED.equals(action) && SelfUpdate.take(context)) relaunch(context);
    if (Intent.ACTION_BOOT_COMPLETED.equals(action) || Intent.ACTION_MY_PACKAGE_REPLACED.equals(action)) {
      KeepAliveJob.schedule(context);
    }
  }

  private static void relaunch(Context context) {
    Intent launch = context.getPackageManager().getLaunchIntentForPackage(context.getPackageName());
    if (launch == null) {
      Log.w(AndroidLogger.TAG, "self-update installed; the app has no launcher activity to relaunch");
      return;
    }
    launch.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK | Intent.FLAG_ACTIVITY_CLEAR_TOP);
    try {
      context.startActivity(launch);
      Log.i(AndroidLogger.TAG, "self-update installed: " + launch.getComponent() + " relaunched");
    } catch (RuntimeException refused) { // a background start the OS does not allow
      Log.w(AndroidLogger.TAG, "self-update installed; relaunch refused: " + refused);
    }
  }
}
