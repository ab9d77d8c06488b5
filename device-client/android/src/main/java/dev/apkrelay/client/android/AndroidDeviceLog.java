package dev.apkrelay.client.android;

import android.Manifest;
import android.content.Context;
import android.content.pm.PackageManager;
import dev.apkrelay.client.core.ports.DeviceLog;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The last lines of the device log ({@code logcat -d -t N -v threadtime}), only when the app holds
 * READ_LOGS (granted by adb or a device owner); else, or when logcat fails or takes longer than
 * {@link #TIMEOUT_MS}, what was read so far or nothing. Without READ_LOGS logcat would show only
 * the app's own lines on 4.1+, which the stack already tells better.
 */
public final class AndroidDeviceLog implements DeviceLog {
  static final long TIMEOUT_MS = 2_000;
  private final Context context;

  public AndroidDeviceLog(Context context) {
    this.context = context;
  }

  @Override
  public List<String> lastLines(int max) {
    try {
      if (max < 1 || context.checkSelfPermission(Manifest.permission.READ_LOGS) != PackageManager.PERMISSION_GRANTED) {
        return Collections.emptyList();
      }
      Process p = new ProcessBuilder("logcat", "-d", "-t", String.valueOf(max), "-v", "threadtime")
          .redirectErrorStream(true).start();
      List<String> lines = new ArrayList<>();
      Thread reader = new Thread(() -> read(p, lines), "apkrelay-logcat");
      reader.setDaemon(true);
      reader.start();
      reader.join(TIMEOUT_MS);
      p.destroy();
      synchronized (lines) {
        return new ArrayList<>(lines.subList(Math.max(0, lines.size() - max), lines.size()));
      }
    } catch (Exception e) {
      if (e instanceof InterruptedException) Thread.currentThread().interrupt();
      return Collections.emptyList();
    }
  }

  private static void read(Process p, List<String> into) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        if (line.startsWith("--------- beginning of ")) continue; // logcat's buffer separators
        synchronized (into) {
          into.add(line);
        }
      }
    } catch (Exception ignored) {
      // destroyed after the timeout, or unreadable: keep what was read
    }
  }
}
