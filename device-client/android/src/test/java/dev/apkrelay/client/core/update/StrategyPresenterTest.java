package dev.apkrelay.client.core.update;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.apkrelay.client.core.ports.Scheduler;
import dev.apkrelay.client.core.protocol.VersionEvent;
import dev.apkrelay.client.strategy.Strategies;
import dev.apkrelay.client.strategy.Strategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Spec 4.4 "Strategy behaviour" and section 6 "Events", through a recording Ui and a manual clock. */
class StrategyPresenterTest {
  static final VersionEvent V2 = PendingUpdateTest.V2;
  final List<String> ui = new ArrayList<>();
  final Strategies strategies = new Strategies();
  boolean activity = true;
  long now;
  final List<long[]> due = new ArrayList<>(); // [at, index]
  final List<Runnable> tasks = new ArrayList<>();
  Runnable notNow;
  Runnable update;
  Runnable click;
  int accepted;

  final Scheduler scheduler = (task, delayMs) -> {
    tasks.add(task);
    long[] entry = {now + delayMs, tasks.size() - 1};
    due.add(entry);
    return () -> due.remove(entry);
  };

  void advance(long ms) {
    long until = now + ms;
    while (true) {
      long[] next = null;
      for (long[] d : due) if (d[0] <= until && (next == null || d[0] < next[0])) next = d;
      if (next == null) break;
      due.remove(next);
      now = next[0];
      tasks.get((int) next[1]).run();
    }
    now = until;
  }

  final Ui recording = new Ui() {
    @Override public void showNotification(String title, String description, Runnable onClick) {
      ui.add("notify " + title + " / " + description);
      click = onClick;
    }
    @Override public void cancelNotification() { ui.add("cancel notification"); }
    @Override public boolean showPopup(String message, String notNowLabel, String updateLabel, Runnable onNotNow, Runnable onUpdate) {
      if (!activity) return false;
      ui.add("popup " + message + " [" + notNowLabel + "] [" + updateLabel + "]");
      notNow = onNotNow;
      update = onUpdate;
      return true;
    }
    @Override public void hidePopup() { ui.add("hide popup"); }
    @Override public void broadcast(String action, Map<String, String> extras) { ui.add(now + " " + action + " " + extras); }
    @Override public String uriFor(String location) { return "content://dev.apkrelay.demo/" + location; }
    @Override public void install(VersionEvent event, String location) { }
  };

  StrategyPresenter presenter(Strategy s) {
    strategies.set(s);
    StrategyPresenter p = new StrategyPresenter(strategies, recording, scheduler, (l, m) -> ui.add("log " + m),
        "dev.apkrelay.demo", "Demo");
    p.onAccept(() -> accepted++);
    return p;
  }

  @Test
  void statusBarNotifiesUntilInstalledAndAClickAccepts() {
    StrategyPresenter p = presenter(Strategy.STATUS_BAR);
    p.present(V2, "update.apk");
    assertEquals(List.of("notify New version of Demo / Click to Update"), ui);
    click.run();
    assertEquals(1, accepted);
    p.withdraw(false);
    assertEquals("cancel notification", ui.get(1));
  }

  @Test
  void friendlyPopupAsksAgainAfterTheReminderTime() {
    StrategyPresenter p = presenter(Strategy.FRIENDLY_POPUP);
    p.present(V2, "update.apk");
    assertEquals("popup A new version of Demo is available. Do you want to update now? [Not Now] [Update]", ui.get(0));
    notNow.run();
    assertEquals("hide popup", ui.get(1));
    advance(3 * 60 * 60 * 1000L - 1);
    assertEquals(2, ui.size());
    advance(1);
    assertEquals(ui.get(0), ui.get(2)); // asked again after 3 hours
    update.run();
    assertEquals(1, accepted);
  }

  @Test
  void friendlyPopupKeepsNotNowInItsReminderAcrossARestart() {
    long[] remindAt = {0};
    StrategyPresenter.Reminder kept = new StrategyPresenter.Reminder() {
      @Override public void notNow(int seconds) { remindAt[0] = now + seconds * 1000L; }
      @Override public long msUntilDue() { return remindAt[0] - now; }
    };
    StrategyPresenter p = presenter(Strategy.FRIENDLY_POPUP);
    p.reminder(kept);
    p.present(V2, "update.apk");
    notNow.run();
    assertEquals(3 * 60 * 60 * 1000L, remindAt[0]);
    advance(60 * 60 * 1000L);
    StrategyPresenter restarted = presenter(Strategy.FRIENDLY_POPUP); // a new process, same record
    restarted.reminder(kept);
    due.clear();
    restarted.present(V2, "update.apk");
    assertEquals(2, ui.size()); // not asked again before the 3 h are over
    advance(2 * 60 * 60 * 1000L);
    assertEquals(ui.get(0), ui.get(2));
  }

  @Test
  void annoyingPopupHasOneButtonAndWaitsForAnActivity() {
    StrategyPresenter p = presenter(Strategy.ANNOYING_POPUP);
    activity = false;
    p.present(V2, "update.apk");
    assertEquals("log BadTokenException: popup strategies need Client.setCurrentActivity(activity) (call it in onResume)", ui.get(0));
    activity = true;
    p.activityChanged();
    assertEquals("popup Demo needs to be updated for security reasons. Please update now. [null] [Update]", ui.get(1));
    assertNull(notNow);
  }

  @Test
  void customBroadcastsApplyEvery30sThenGiveupOnce() {
    StrategyPresenter p = presenter(Strategy.CUSTOM);
    p.present(V2, "update.apk");
    p.present(V2, "update.apk"); // a repeated notice does not start a second loop
    advance(60_000);
    assertEquals(List.of(
        "0 dev.apkrelay.demo.svc.APPLY {uri=content://dev.apkrelay.demo/update.apk}",
        "30000 dev.apkrelay.demo.svc.APPLY {uri=content://dev.apkrelay.demo/update.apk}",
        "60000 dev.apkrelay.demo.svc.APPLY {uri=content://dev.apkrelay.demo/update.apk}"), ui);
    p.withdraw(true);
    advance(120_000);
    assertEquals("60000 dev.apkrelay.demo.svc.GIVEUP {}", ui.get(3));
    assertEquals(4, ui.size());
  }
}
