package dev.apkrelay.client.android;

import static org.junit.Assert.assertEquals;
import static org.robolectric.Shadows.shadowOf;

import android.os.Handler;
import android.os.Looper;
import dev.apkrelay.client.core.protocol.VersionEvent;
import dev.apkrelay.client.core.update.StrategyPresenter;
import dev.apkrelay.client.core.update.Ui;
import dev.apkrelay.client.strategy.Strategies;
import dev.apkrelay.client.strategy.Strategy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;

/**
 * Issue 32, must-hold 4: the strategies' presenter runs on the main thread only, whichever thread
 * the engine calls it from (the download thread presents, the engine's thread withdraws), while the
 * install stays on the caller's thread (it copies the APK). A recording Ui notes the thread of each
 * call.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 34)
public class MainThreadPresenterTest {
  final List<String> calls = Collections.synchronizedList(new ArrayList<>());

  final Ui recording = new Ui() {
    void note(String what) {
      calls.add(what + (Looper.myLooper() == Looper.getMainLooper() ? " on main" : " on " + Thread.currentThread().getName()));
    }
    @Override public void showNotification(String title, String description, Runnable onClick) { note("notify"); }
    @Override public void cancelNotification() { note("cancel"); }
    @Override public boolean showPopup(String m, String n, String u, Runnable a, Runnable b) { note("popup"); return true; }
    @Override public void hidePopup() { note("hide"); }
    @Override public void broadcast(String action, Map<String, String> extras) { note("broadcast"); }
    @Override public String uriFor(String location) { return "content://x/" + location; }
    @Override public void install(VersionEvent event, String location) { note("install"); }
  };

  @Test
  public void presentingAndWithdrawingRunOnTheMainThreadAndTheInstallOnTheCallers() throws Exception {
    Handler main = new Handler(Looper.getMainLooper());
    Strategies strategies = new Strategies();
    strategies.set(Strategy.STATUS_BAR);
    StrategyPresenter target = new StrategyPresenter(strategies, recording, MainThreadPresenter.scheduler(main),
        (level, message) -> { }, "dev.apkrelay.demo", "Demo");
    MainThreadPresenter p = new MainThreadPresenter(main, target);
    VersionEvent e = new VersionEvent("dev.apkrelay.demo", "apk-2", "900150983cd24fb0d6963f7d28e17f72",
        null, 2, "2.0", 3, "https://h/download", null);
    Thread worker = new Thread(() -> {
      p.present(e, "update.apk");
      p.withdraw(false);
      try {
        p.install(e, "update.apk");
      } catch (Exception ex) {
        throw new AssertionError(ex);
      }
    }, "apkrelay-download");
    worker.start();
    worker.join();
    assertEquals("only the install ran on the worker; the rest waits for the main thread",
        List.of("install on apkrelay-download"), calls);
    shadowOf(Looper.getMainLooper()).idle();
    // STATUS_BAR: the notification posted, then cancelled by the withdrawal (no popup to hide).
    assertEquals(List.of("install on apkrelay-download", "notify on main", "cancel on main"), calls);
  }
}
