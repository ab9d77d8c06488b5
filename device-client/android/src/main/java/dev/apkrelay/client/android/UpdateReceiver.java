package dev.apkrelay.client.android;

import android.app.Activity;
import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.pm.PackageInstaller;
import android.util.Log;
import dev.apkrelay.client.core.Engine;

/**
 * The library's one manifest receiver (not exported; only the library's own explicit
 * PendingIntents reach it): a click on the STATUS_BAR notification, and the installer session's
 * status. A manifest receiver, because the process may have been restarted in between;
 * {@code Client.start} in {@code Application.onCreate} has then run again before {@link #onReceive}.
 */
public final class UpdateReceiver extends BroadcastReceiver {
  public static final String ACTION_UPDATE = "dev.apkrelay.client.action.UPDATE";
  public static final String ACTION_INSTALL_STATUS = "dev.apkrelay.client.action.INSTALL_STATUS";

  @Override
  public void onReceive(Context context, Intent intent) {
    Engine engine = Running.engine();
    if (engine == null) {
      Log.w(AndroidLogger.TAG, "update receiver: Client.start has not run in this process");
      return;
    }
    if (ACTION_UPDATE.equals(intent.getAction())) {
      engine.apply();
    } else if (ACTION_INSTALL_STATUS.equals(intent.getAction())) {
      status(context, engine, intent);
    }
  }

  @SuppressWarnings("deprecation") // getParcelableExtra(String): its typed form is API 33
  private static void status(Context context, Engine engine, Intent intent) {
    int status = intent.getIntExtra(PackageInstaller.EXTRA_STATUS, PackageInstaller.STATUS_FAILURE);
    String message = intent.getStringExtra(PackageInstaller.EXTRA_STATUS_MESSAGE);
    String md5 = intent.getStringExtra(SessionInstaller.EXTRA_MD5);
    if (status == PackageInstaller.STATUS_PENDING_USER_ACTION) {
      Intent confirm = intent.getParcelableExtra(Intent.EXTRA_INTENT);
      if (confirm == null) {
        engine.installResult(md5, false, status, "the OS asked for confirmation without a confirmation screen");
        return;
      }
      // The confirmation may start from the foreground only; in the background it waits in a
      // notification, or, when notifications cannot be seen (no POST_NOTIFICATIONS on 33+, a kiosk
      // without a shade), it is held and started at the next Client.setCurrentActivity. The
      // engine's answer timeout ends the wait if nobody comes.
      Activity a = Running.activity();
      if (a != null) {
        a.startActivity(confirm);
      } else if (!AndroidUi.confirmLater(context, confirm)) {
        Running.holdConfirmation(confirm);
        Log.w(AndroidLogger.TAG, "the installer asks for a confirmation and notifications are not allowed:"
            + " it is shown when an activity is current");
      }
      return;
    }
    engine.installResult(md5, status == PackageInstaller.STATUS_SUCCESS, status,
        message == null ? "status " + status : message);
  }
}
