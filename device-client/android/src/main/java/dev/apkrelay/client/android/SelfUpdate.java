package dev.apkrelay.client.android;

import android.content.Context;
import java.io.File;
import java.io.IOException;

/**
 * The mark a committed self-update leaves for the next process: the OS kills the app to replace
 * it, so nothing in memory survives to relaunch it. {@link SessionInstaller} writes the mark before
 * it commits; {@link ComebackReceiver} takes it on MY_PACKAGE_REPLACED and relaunches the app only
 * then (an update from a store or adb leaves no mark and relaunches nothing).
 */
public final class SelfUpdate {
  private SelfUpdate() {}

  static File mark(Context context) {
    return new File(ApkProvider.directory(context.getNoBackupFilesDir()), "self-update-committed");
  }

  /** Before a session's commit: this app is about to be replaced by the library's install. */
  static void committing(Context context) throws IOException {
    File f = mark(context);
    f.getParentFile().mkdirs();
    if (!f.exists() && !f.createNewFile()) throw new IOException("cannot write " + f);
  }

  /** Takes the mark: true once after a committed self-update, false otherwise. */
  static boolean take(Context context) {
    return mark(context).delete();
  }
}
