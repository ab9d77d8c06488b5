package dev.apkrelay.client.android;

import android.Manifest;
import android.app.Activity;
import android.app.AlertDialog;
import android.app.Notification;
import android.app.NotificationChannel;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.content.Context;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.os.Build;
import android.os.Handler;
import android.os.Looper;
import android.view.KeyEvent;
import android.view.WindowManager;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Logger.Level;
import dev.apkrelay.client.core.protocol.VersionEvent;
import dev.apkrelay.client.core.update.Ui;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * The strategies' Android side ({@link Ui}): the STATUS_BAR notification on its own channel,
 * ongoing until installation; the popups as non-cancelable AlertDialogs on the current activity
 * (back and outside touches blocked); CUSTOM's explicit broadcasts to the app itself with the
 * {@link ApkProvider} uri; installation by {@link SessionInstaller}. Called on the engine's thread;
 * dialogs are built on the main thread, and their buttons call back on the engine's thread
 * ({@code core}), so the presenter stays on one thread.
 */
public final class AndroidUi implements Ui {
  public static final String CHANNEL = "apkrelay.updates";
  static final int NOTIFICATION_ID = 0x61707231;
  static final int CONFIRM_ID = 0x61707232;

  private final Context context;
  private final int icon;
  private final Logger logger;
  private final Executor core;
  private final SessionInstaller installer;
  private final Handler main = new Handler(Looper.getMainLooper());
  private AlertDialog dialog; // main thread only
  private volatile boolean fallbackPopup;

  /**
   * @param icon the launcher icon given to Client.start (the notification's icon from API 27; on
   *     8.0 an adaptive launcher icon as a small icon crashes the status bar, so 26 uses the system's)
   * @param core where button callbacks run (the engine's thread)
   */
  public AndroidUi(Context context, int icon, Logger logger, Executor core, SessionInstaller installer) {
    this.context = context;
    this.icon = icon;
    this.logger = logger;
    this.core = core;
    this.installer = installer;
  }

  private NotificationManager notifications() {
    return notifications(context);
  }

  /** The manager, with the library's channel created (idempotent). */
  static NotificationManager notifications(Context context) {
    NotificationManager nm = (NotificationManager) context.getSystemService(Context.NOTIFICATION_SERVICE);
    nm.createNotificationChannel(new NotificationChannel(CHANNEL, "App updates", NotificationManager.IMPORTANCE_DEFAULT));
    return nm;
  }

  /** Whether a notification can be seen: POST_NOTIFICATIONS granted on 33+, notifications enabled. */
  boolean notificationsAllowed(NotificationManager nm) {
    return notificationsAllowed(context, nm);
  }

  static boolean notificationsAllowed(Context context, NotificationManager nm) {
    if (Build.VERSION.SDK_INT >= 33
        && context.checkSelfPermission(Manifest.permission.POST_NOTIFICATIONS) != PackageManager.PERMISSION_GRANTED) {
      return false;
    }
    return nm.areNotificationsEnabled();
  }

  @Override
  public void showNotification(String title, String description, Runnable onClick) {
    NotificationManager nm = notifications();
    if (!notificationsAllowed(nm)) {
      // An Application cannot ask for POST_NOTIFICATIONS; the host app must. Meanwhile: a popup.
      logger.log(Level.WARN, "STATUS_BAR: notifications are not allowed (POST_NOTIFICATIONS is asked by the app"
          + " on Android 13+); the update is offered in a popup instead");
      fallbackPopup = showPopup(title + "\n" + description, "Not Now", "Update", () -> { }, onClick);
      return;
    }
    Intent click = new Intent(context, UpdateReceiver.class).setAction(UpdateReceiver.ACTION_UPDATE);
    PendingIntent pi = PendingIntent.getBroadcast(context, 0, click,
        PendingIntent.FLAG_UPDATE_CURRENT | PendingIntent.FLAG_IMMUTABLE);
    Notification n = new Notification.Builder(context, CHANNEL)
        .setSmallIcon(Build.VERSION.SDK_INT >= 27 ? icon : android.R.drawable.stat_sys_download_done)
        .setContentTitle(title)
        .setContentText(description)
        .setContentIntent(pi)
        .setOngoing(true)
        .setAutoCancel(false)
        .setOnlyAlertOnce(true)
        .build();
    nm.notify(NOTIFICATION_ID, n);
  }

  @Override
  public void cancelNotification() {
    notifications().cancel(NOTIFICATION_ID);
    if (fallbackPopup) hidePopup();
    fallbackPopup = false;
  }

  @Override
  public boolean showPopup(String message, String notNowLabel, String updateLabel, Runnable onNotNow, Runnable onUpdate) {
    Activity activity = Running.activity();
    if (activity == null) return false;
    main.post(() -> show(activity, message, notNowLabel, updateLabel, onNotNow, onUpdate));
    return true;
  }

  private void show(Activity activity, String message, String notNowLabel, String updateLabel,
      Runnable onNotNow, Runnable onUpdate) {
    dismiss();
    AlertDialog.Builder b = new AlertDialog.Builder(activity)
        .setMessage(message)
        .setCancelable(false)
        .setPositiveButton(updateLabel, (d, which) -> core.execute(onUpdate));
    if (onNotNow != null) b.setNegativeButton(notNowLabel, (d, which) -> core.execute(onNotNow));
    AlertDialog d = b.create();
    d.setCanceledOnTouchOutside(false);
    d.setOnKeyListener((di, code, event) -> code == KeyEvent.KEYCODE_BACK); // back is swallowed
    try {
      d.show();
      dialog = d;
    } catch (WindowManager.BadTokenException e) {
      logger.log(Level.ERROR, "BadTokenException: the popup's activity is gone: " + e.getMessage());
    }
  }

  private void dismiss() {
    if (dialog != null && dialog.isShowing()) {
      try {
        dialog.dismiss();
      } catch (IllegalArgumentException ignored) {
        // its window is already gone with its activity
      }
    }
    dialog = null;
  }

  @Override
  public void hidePopup() {
    main.post(this::dismiss);
  }

  @Override
  public void broadcast(String action, Map<String, String> extras) {
    Intent i = new Intent(action).setPackage(context.getPackageName()); // explicit: the app itself
    for (Map.Entry<String, String> e : extras.entrySet()) i.putExtra(e.getKey(), e.getValue());
    i.addFlags(Intent.FLAG_GRANT_READ_URI_PERMISSION);
    context.sendBroadcast(i);
  }

  @Override
  public String uriFor(String location) {
    return ApkProvider.uriFor(context.getPackageName(), location).toString();
  }

  @Override
  public void install(VersionEvent event, String location) throws Exception {
    installer.install(event, location);
  }

  /**
   * The OS wants a confirmation while no activity is current: a notification opens it. False (and
   * nothing posted) when notifications cannot be seen: the OS would drop it silently on 33+.
   */
  static boolean confirmLater(Context context, Intent confirm) {
    NotificationManager nm = notifications(context);
    if (!notificationsAllowed(context, nm)) return false;
    confirm.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK);
    PendingIntent pi = PendingIntent.getActivity(context, 0, confirm,
        PendingIntent.FLAG_UPDATE_CURRENT | PendingIntent.FLAG_IMMUTABLE);
    nm.notify(CONFIRM_ID, new Notification.Builder(context, CHANNEL)
        .setSmallIcon(android.R.drawable.stat_sys_download_done)
        .setContentTitle("Update ready to install")
        .setContentText("Tap to confirm the installation")
        .setContentIntent(pi)
        .setAutoCancel(true)
        .build());
    return true;
  }
}
