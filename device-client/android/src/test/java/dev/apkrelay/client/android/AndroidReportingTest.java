package dev.apkrelay.client.android;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import android.app.Activity;
import android.graphics.Color;
import android.widget.TextView;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.Robolectric;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.annotation.GraphicsMode;

/**
 * What an exception report takes from the device: the screenshot of the current activity (a real
 * JPEG, drawn with Robolectric's native graphics) and the device log, which needs READ_LOGS.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = {26, 34})
@GraphicsMode(GraphicsMode.Mode.NATIVE)
public class AndroidReportingTest {
  @Test
  public void aStartedActivityGivesAJpeg() {
    Activity a = Robolectric.buildActivity(Activity.class).setup().get();
    TextView text = new TextView(a);
    text.setText("Crashed here");
    text.setBackgroundColor(Color.WHITE);
    a.setContentView(text);
    a.getWindow().getDecorView().layout(0, 0, 1080, 2400); // a phone's screen: scaled down to 1280
    byte[] jpeg = new AndroidScreenshots(() -> a).jpeg();
    assertNotNull(jpeg);
    assertTrue(jpeg.length > 3);
    assertEquals(0xff, jpeg[0] & 0xff); // JPEG's SOI marker and the first segment's FF
    assertEquals(0xd8, jpeg[1] & 0xff);
    assertEquals(0xff, jpeg[2] & 0xff);
  }

  @Test
  public void noActivityNoScreenshot() {
    assertNull(new AndroidScreenshots(() -> null).jpeg());
  }

  @Test
  public void aBusyMainThreadGivesNullWithinTheBoundedWait() throws Exception {
    Activity a = Robolectric.buildActivity(Activity.class).setup().get();
    AtomicReference<Object> got = new AtomicReference<>("not yet");
    Thread worker = new Thread(() -> got.set(new AndroidScreenshots(() -> a).jpeg())); // a crash off main
    long started = System.nanoTime();
    worker.start();
    worker.join(5_000); // the main thread (this one) is busy: the posted capture cannot run
    long ms = (System.nanoTime() - started) / 1_000_000;
    assertNull(got.get());
    assertTrue("waited " + ms + " ms", ms >= AndroidScreenshots.WAIT_MS && ms < 4_000);
  }

  @Test
  public void noDeviceLogWithoutReadLogs() {
    assertEquals(Collections.emptyList(), new AndroidDeviceLog(RuntimeEnvironment.getApplication()).lastLines(200));
  }
}
