package dev.apkrelay.client.android;

import android.app.Activity;
import android.graphics.Bitmap;
import android.graphics.Canvas;
import android.os.Handler;
import android.os.Looper;
import android.view.View;
import android.view.Window;
import dev.apkrelay.client.core.ports.Screenshots;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A JPEG of the current activity: its decor view drawn into a software bitmap, scaled so the
 * longer side is at most {@link #MAX_SIDE}, at quality {@link #QUALITY}. Views must be drawn on
 * the main thread: from it, at once; from another thread (a crash on a worker), posted to it and
 * waited for at most {@link #WAIT_MS} (a blocked main thread gives no screenshot, not a hang).
 * Any failure, out-of-memory included, gives null: the report matters more than the picture.
 */
public final class AndroidScreenshots implements Screenshots {
  static final int MAX_SIDE = 1280;
  static final int QUALITY = 70;
  static final long WAIT_MS = 1_000;
  private final Supplier<Activity> current;

  public AndroidScreenshots(Supplier<Activity> current) {
    this.current = current;
  }

  @Override
  public byte[] jpeg() {
    try {
      Activity a = current.get();
      if (a == null) return null;
      if (Looper.myLooper() == Looper.getMainLooper()) return capture(a);
      FutureTask<byte[]> task = new FutureTask<>(() -> capture(a));
      if (!new Handler(Looper.getMainLooper()).post(task)) return null;
      try {
        return task.get(WAIT_MS, TimeUnit.MILLISECONDS);
      } finally {
        task.cancel(false);
      }
    } catch (Throwable t) {
      if (t instanceof InterruptedException) Thread.currentThread().interrupt();
      return null;
    }
  }

  static byte[] capture(Activity a) {
    Bitmap bitmap = null;
    try {
      Window w = a.getWindow();
      View v = w == null ? null : w.peekDecorView();
      if (v == null || v.getWidth() <= 0 || v.getHeight() <= 0) return null;
      float scale = Math.min(1f, (float) MAX_SIDE / Math.max(v.getWidth(), v.getHeight()));
      int width = Math.max(1, Math.round(v.getWidth() * scale));
      int height = Math.max(1, Math.round(v.getHeight() * scale));
      bitmap = Bitmap.createBitmap(width, height, Bitmap.Config.ARGB_8888);
      Canvas canvas = new Canvas(bitmap);
      canvas.scale(scale, scale);
      v.draw(canvas);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      return bitmap.compress(Bitmap.CompressFormat.JPEG, QUALITY, out) ? out.toByteArray() : null;
    } catch (Throwable t) {
      return null;
    } finally {
      if (bitmap != null) bitmap.recycle();
    }
  }
}
