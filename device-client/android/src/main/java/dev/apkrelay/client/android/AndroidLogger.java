package dev.apkrelay.client.android;

import android.util.Log;
import dev.apkrelay.client.core.ports.Logger;

/** The core's log lines in the device log, under the library's tag. */
public final class AndroidLogger implements Logger {
  public static final String TAG = "apkrelay";

  @Override
  public void log(Level level, String message) {
    switch (level) {
      case DEBUG: Log.d(TAG, message); break;
      case INFO: Log.i(TAG, message); break;
      case WARN: Log.w(TAG, message); break;
      default: Log.e(TAG, message); break;
    }
  }
}
