package dev.apkrelay.client.android;

import android.app.Notification;
import android.app.NotificationChannel;
import android.app.NotificationManager;
import android.app.Service;
import android.content.Intent;
import android.content.pm.ServiceInfo;
import android.os.Build;
import android.os.IBinder;
import android.util.Log;
import dev.apkrelay.client.core.Engine;
import org.codehaus.mojo.animal_sniffer.IgnoreJRERequirement;

/**
 * The opt-in foreground-service mode ({@code Client.keepStreamInBackground}): a foreground service
 * of type {@code dataSync} with a quiet, ongoing notification keeps the process, and so the push
 * stream, alive while the app is in the background. Not declared by the AAR (a foreground service
 * is the app's decision, and Play asks about it): the app declares it, with FOREGROUND_SERVICE and,
 * from API 34, FOREGROUND_SERVICE_DATA_SYNC (docs/android-kiosk.md). On API 35 a {@code dataSync}
 * service may run 6 hours in 24: at {@code onTimeout} it stops itself, as the OS requires, and the
 * periodic job carries on. Doze still cuts idle sockets; a kiosk in the foreground needs none of it.
 */
public final class StreamService extends Service {
  public static final String CHANNEL = "apkrelay.connection";
  static final int NOTIFICATION_ID = 0x61707233;

  @Override
  public int onStartCommand(Intent intent, int flags, int startId) {
    NotificationManager nm = (NotificationManager) getSystemService(NOTIFICATION_SERVICE);
    nm.createNotificationChannel(new NotificationChannel(CHANNEL, "Update connection", NotificationManager.IMPORTANCE_MIN));
    Notification n = new Notification.Builder(this, CHANNEL)
        .setSmallIcon(android.R.drawable.stat_notify_sync_noanim)
        .setContentTitle("Connected for updates")
        .setOngoing(true)
        .build();
    if (Build.VERSION.SDK_INT >= 29) {
      startTyped(n);
    } else {
      startForeground(NOTIFICATION_ID, n);
    }
    Engine engine = Running.engine();
    if (engine != null) engine.wake();
    return START_STICKY;
  }

  @IgnoreJRERequirement // API 29, called only when SDK_INT >= 29
  private void startTyped(Notification n) {
    startForeground(NOTIFICATION_ID, n, ServiceInfo.FOREGROUND_SERVICE_TYPE_DATA_SYNC);
  }

  /** API 35: the dataSync time limit is reached; the service must stop within seconds. */
  public void onTimeout(int startId, int foregroundServiceType) {
    Log.w(AndroidLogger.TAG, "the foreground service's time limit is reached (API 35): it stops;"
        + " the periodic check carries on");
    stopSelf(startId);
  }

  @Override
  public IBinder onBind(Intent intent) {
    return null;
  }
}
