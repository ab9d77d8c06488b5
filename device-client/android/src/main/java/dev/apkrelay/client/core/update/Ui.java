package dev.apkrelay.client.core.update;

import dev.apkrelay.client.core.protocol.VersionEvent;
import java.util.Map;

/**
 * What the strategies need from the platform (on Android: NotificationManager, AlertDialog on the
 * current activity, explicit broadcasts, PackageInstaller). Called on the presenter's thread.
 */
public interface Ui {
  /** STATUS_BAR: post (or replace) the update notification; a click calls {@code onClick}. */
  void showNotification(String title, String description, Runnable onClick);

  void cancelNotification();

  /**
   * FRIENDLY_POPUP / ANNOYING_POPUP on the current activity, not cancelable (back and outside
   * touches blocked). {@code onNotNow} is null for the annoying popup (one button). Returns false
   * when there is no current activity (the popup would fail with BadTokenException).
   */
  boolean showPopup(String message, String notNowLabel, String updateLabel, Runnable onNotNow, Runnable onUpdate);

  void hidePopup();

  /** CUSTOM: an explicit broadcast to the app itself. */
  void broadcast(String action, Map<String, String> extras);

  /** The uri the APPLY broadcast carries for the file at {@code location} (Android: content://). */
  String uriFor(String location);

  /** Hand the verified file to the OS; throw with the OS's status and message when it refuses. */
  void install(VersionEvent event, String location) throws Exception;
}
